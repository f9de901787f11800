/* A client of the runtime's binary interface written the way Coz 0.2's header works (a one-time
 * dlsym of _coz_get_counter, then an atomic add on the returned count), without our coz.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
  size_t count;
  size_t backoff;
} legacy_counter_t;

typedef legacy_counter_t* (*legacy_get_counter_t)(int, const char*);

int main(void) {
  legacy_get_counter_t get = (legacy_get_counter_t)dlsym(RTLD_DEFAULT, "_coz_get_counter");
  legacy_counter_t* progress = get ? get(1, "legacy progress") : NULL;
  legacy_counter_t* begin = get ? get(2, "legacy latency") : NULL;
  legacy_counter_t* end = get ? get(3, "legacy latency") : NULL;
  for (int i = 0; i < 37; i++) {
    if (progress) __atomic_add_fetch(&progress->count, 1, __ATOMIC_RELAXED);
    if (begin) __atomic_add_fetch(&begin->count, 1, __ATOMIC_RELAXED);
    if (end && i % 2 == 0) __atomic_add_fetch(&end->count, 1, __ATOMIC_RELAXED);
  }
  printf("runtime %s\n", get ? "found" : "absent");
  return 0;
}
