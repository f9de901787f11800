/* Work in the test programs is measured in time, not in iterations, so a program gives about as
 * many samples and experiments on a fast CPU as on a slow or busy one. A budget runs on one clock
 * (a thread's CPU time unless the program says otherwise); loops do a fixed chunk of work between
 * looks at it. TEST_WORK_SCALE (default 1) scales every fixed amount of work (chunks, work per
 * item): 0.33 does a third of it, as a CPU three times faster would. Safe from any thread. */
#pragma once

#include <stdlib.h>
#include <time.h>

/* TEST_WORK_SCALE, or 1 when unset or not a positive number. */
static inline double work_scale(void) {
  const char* text = getenv("TEST_WORK_SCALE");
  double scale = text ? strtod(text, NULL) : 1;
  return scale > 0 ? scale : 1;
}

/* `n` units of work at the work scale; at least one. */
static inline unsigned long work_scaled(unsigned long n) {
  double scaled = (double)n * work_scale();
  return scaled < 1 ? 1 : (unsigned long)scaled;
}

static inline long long work_clock_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* A time budget on one clock: budget_left() is true until `ms` have passed on it. */
struct budget {
  clockid_t clock;
  long long end_ns;
};

static inline struct budget budget_on(clockid_t clock, double ms) {
  struct budget b;
  b.clock = clock;
  b.end_ns = work_clock_ns(clock) + (long long)(ms * 1e6);
  return b;
}

/* `ms` of the calling thread's CPU time: what samples count, whatever else runs. */
static inline struct budget budget_cpu(double ms) {
  return budget_on(CLOCK_THREAD_CPUTIME_ID, ms);
}

static inline int budget_left(const struct budget* b) {
  return work_clock_ns(b->clock) < b->end_ns;
}

/* Calls v = spin(n, v), n = work_scaled(chunk), until `ms` of the thread's CPU time have passed
 * (at least once); returns the last v. */
static inline unsigned long spin_for(unsigned long (*spin)(unsigned long, unsigned long),
                                     unsigned long chunk, double ms, unsigned long v) {
  unsigned long n = work_scaled(chunk);
  struct budget b = budget_cpu(ms);
  do {
    v = spin(n, v);
  } while (budget_left(&b));
  return v;
}
