/* A user's own LD_PRELOAD library (tests/e2e/runtime_reliability_test.cpp, the reliability
 * catalogue): wraps pthread_create, counts the calls and those whose start routine is the
 * program's (not a shared library's), calls the next one, and reports on stderr at exit (not in
 * coz itself). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int calls, programs;

int pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*fn)(void*), void* arg) {
  static int (*next)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  if (!next) next = (int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*))dlsym(RTLD_NEXT, "pthread_create");
  __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
  Dl_info info;
  if (dladdr((void*)fn, &info) && info.dli_fname && !strstr(info.dli_fname, ".so")) {
    __atomic_fetch_add(&programs, 1, __ATOMIC_RELAXED);
  }
  return next(t, a, fn, arg);
}

__attribute__((destructor)) static void report(void) {
  if (strcmp(program_invocation_short_name, "coz") == 0) return; /* the CLI, which inherits it */
  char buf[128];
  int n = snprintf(buf, sizeof buf, "wrapper: %d pthread_create calls, %d with the program's routine\n",
                   calls, programs);
  if (n > 0) write(2, buf, (size_t)n);
}
