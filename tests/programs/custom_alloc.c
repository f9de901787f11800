/* A replacement allocator whose malloc takes a pthread mutex: the profiler's own allocations and
 * hooks must not deadlock with it. A bump allocator over one mmap'd arena; free does nothing.
 * Three threads allocate and work for 100 ms of CPU time each. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "fixture_work.h"

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static char* arena;
static size_t used;
enum { kArena = 256 << 20 };

void* malloc(size_t n) {
  pthread_mutex_lock(&arena_lock);
  if (!arena) {
    arena = mmap(NULL, kArena, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  n = (n + 15) & ~(size_t)15;
  void* p = used + n + 16 <= kArena ? arena + used + 16 : NULL;
  if (p) {
    memcpy(arena + used, &n, sizeof n);
    used += n + 16;
  }
  pthread_mutex_unlock(&arena_lock);
  return p;
}
void free(void* p) { (void)p; }
void* calloc(size_t a, size_t b) {
  void* p = malloc(a * b);
  if (p) memset(p, 0, a * b);
  return p;
}
void* realloc(void* old, size_t n) {
  void* p = malloc(n);
  if (p && old) {
    size_t size;
    memcpy(&size, (char*)old - 16, sizeof size);
    memcpy(p, old, size < n ? size : n);
  }
  return p;
}

static void* work(void* arg) {
  unsigned long v = (unsigned long)arg, n = work_scaled(5000);
  struct budget b = budget_cpu(100);
  for (int i = 0; i % 16 != 0 || budget_left(&b); i++) {
    char* p = malloc(64);
    if (!p) {
      break; /* the arena is used up: far more work than the budget allows on any CPU */
    }
    p[0] = (char)i;
    v = v * 31 + (unsigned long)p[0];
    for (unsigned long k = 0; k < n; k++) v = v * 2654435761ul + k;
    free(p);
  }
  return (void*)v;
}

int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, work, (void*)i);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("allocator ok\n");
  return 0;
}
