/* coz.h: progress points for the causal profiler, for C (C99) and C++.
 *
 * Binary compatible with Coz 0.2's header: the runtime exports
 *   coz_counter_t* _coz_get_counter(int type, const char* name)
 * and a program built against either header works under either runtime. Every macro is a cheap
 * no-op when the runtime is not loaded, and nothing extra needs to be linked: dlsym is declared
 * weak, so it resolves from libc (glibc >= 2.34) or libdl when present and is null otherwise.
 *
 * Each macro site looks its counter up once. Unlike Coz 0.2, the lookup is published with
 * acquire/release atomics, so threads racing through a site for the first time never see a
 * half-initialised pointer.
 */
#ifndef COZ_H
#define COZ_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define COZ_COUNTER_TYPE_THROUGHPUT 1
#define COZ_COUNTER_TYPE_BEGIN 2
#define COZ_COUNTER_TYPE_END 3
/* This project's extension: a per-thread arrival counter (Coz's runtime returns null for it). */
#define COZ_COUNTER_TYPE_ARRIVAL 4

/* A progress point's counter, shared with the runtime. `backoff` is unused (kept for ABI). */
typedef struct {
  size_t count;
  size_t backoff;
} coz_counter_t;

typedef coz_counter_t* (*coz_get_counter_t)(int, const char*);

/* Weak so that programs never need -ldl; null when no libdl/libc provides it. */
void* dlsym(void* handle, const char* symbol) __attribute__((weak));

/* RTLD_DEFAULT is only visible with _GNU_SOURCE; its value is the null handle on Linux. */
#ifdef RTLD_DEFAULT
#define COZ_RTLD_DEFAULT_ RTLD_DEFAULT
#else
#define COZ_RTLD_DEFAULT_ ((void*)0)
#endif

/* Marks "looked up, runtime absent" so the lookup is not repeated. Never dereferenced. */
#define COZ_ABSENT_COUNTER_ ((coz_counter_t*)(uintptr_t)1)

static inline coz_counter_t* coz_lookup_counter_(int type, const char* name) {
  coz_get_counter_t get = 0;
  if (dlsym) {
    void* p = dlsym(COZ_RTLD_DEFAULT_, "_coz_get_counter");
    /* memcpy, not a cast: ISO C forbids converting object pointers to function pointers. */
    __builtin_memcpy(&get, &p, sizeof(p));
  }
  coz_counter_t* c = get ? get(type, name) : 0;
  return c ? c : COZ_ABSENT_COUNTER_;
}

/* Look the site's counter up once (racing threads get the same pointer), then add one. */
#define COZ_INCREMENT_COUNTER(type, name)                                          \
  do {                                                                             \
    static coz_counter_t* coz_site_counter_ = 0;                                   \
    coz_counter_t* coz_c_ = __atomic_load_n(&coz_site_counter_, __ATOMIC_ACQUIRE); \
    if (__builtin_expect(coz_c_ == 0, 0)) {                                        \
      coz_c_ = coz_lookup_counter_((type), (name));                                \
      __atomic_store_n(&coz_site_counter_, coz_c_, __ATOMIC_RELEASE);              \
    }                                                                              \
    if (coz_c_ != COZ_ABSENT_COUNTER_) {                                           \
      __atomic_add_fetch(&coz_c_->count, 1, __ATOMIC_RELAXED);                     \
    }                                                                              \
  } while (0)

/* As above, but the counter is the calling thread's own: each thread's first visit to the site
 * looks it up with `lookup` (an expression), later visits only add one (it is only ever written
 * by this thread, so a plain atomic store suffices). */
#define COZ_ADD_TO_THREAD_COUNTER_(lookup)                                                    \
  do {                                                                                        \
    static __thread coz_counter_t* coz_thread_counter_ = 0;                                   \
    coz_counter_t* coz_c_ = coz_thread_counter_;                                              \
    if (__builtin_expect(coz_c_ == 0, 0)) {                                                   \
      coz_c_ = (lookup);                                                                      \
      coz_thread_counter_ = coz_c_;                                                           \
    }                                                                                         \
    if (coz_c_ != COZ_ABSENT_COUNTER_) {                                                      \
      __atomic_store_n(&coz_c_->count, __atomic_load_n(&coz_c_->count, __ATOMIC_RELAXED) + 1, \
                       __ATOMIC_RELAXED);                                                     \
    }                                                                                         \
  } while (0)
/* A counter of the thread's own registered with the runtime per site (arrivals). */
#define COZ_INCREMENT_THREAD_COUNTER_(type, name) \
  COZ_ADD_TO_THREAD_COUNTER_(coz_lookup_counter_((type), (name)))

#define COZ_STR2_(x) #x
#define COZ_STR_(x) COZ_STR2_(x)

/* This project's extension: every visit also counts in the visiting thread's own total, one
 * counter a thread for every point, from `_coz_thread_visits()` (an experiment takes off its time
 * only the delays the threads that made its progress took). The function is looked up once, the
 * counter once per site and thread; absent from Coz's runtime, so there a visit costs one
 * thread-local load more. */
typedef coz_counter_t* (*coz_thread_visits_t)(void);

static inline coz_counter_t* coz_lookup_thread_visits_(void) {
  /* The function is looked up once (per translation unit), not once per thread: without the
   * runtime a new thread's first visit costs a load, not a dlsym. */
  static void* coz_visits_fn_ = 0;
  void* f = __atomic_load_n(&coz_visits_fn_, __ATOMIC_ACQUIRE);
  if (__builtin_expect(f == 0, 0)) {
    f = dlsym ? dlsym(COZ_RTLD_DEFAULT_, "_coz_thread_visits") : 0;
    if (!f)
      f = (void*)COZ_ABSENT_COUNTER_;
    __atomic_store_n(&coz_visits_fn_, f, __ATOMIC_RELEASE);
  }
  if (f == (void*)COZ_ABSENT_COUNTER_)
    return COZ_ABSENT_COUNTER_;
  coz_thread_visits_t get;
  __builtin_memcpy(&get, &f, sizeof(f));
  coz_counter_t* c = get();
  return c ? c : COZ_ABSENT_COUNTER_;
}

#define COZ_COUNT_THREAD_VISIT_() COZ_ADD_TO_THREAD_COUNTER_(coz_lookup_thread_visits_())

/* A throughput progress point with a chosen name. */
#define COZ_PROGRESS_NAMED(name)                              \
  do {                                                        \
    COZ_INCREMENT_COUNTER(COZ_COUNTER_TYPE_THROUGHPUT, name); \
    COZ_COUNT_THREAD_VISIT_();                                \
  } while (0)
/* A throughput progress point named after its file and line. */
#define COZ_PROGRESS COZ_PROGRESS_NAMED(__FILE__ ":" COZ_STR_(__LINE__))
/* Start and end of a transaction, for latency by Little's law. A BEGIN is also an arrival. */
#define COZ_BEGIN(name)                                            \
  do {                                                             \
    COZ_INCREMENT_COUNTER(COZ_COUNTER_TYPE_BEGIN, name);           \
    COZ_INCREMENT_THREAD_COUNTER_(COZ_COUNTER_TYPE_ARRIVAL, name); \
    COZ_COUNT_THREAD_VISIT_();                                     \
  } while (0)
#define COZ_END(name)                                  \
  do {                                                 \
    COZ_INCREMENT_COUNTER(COZ_COUNTER_TYPE_END, name); \
    COZ_COUNT_THREAD_VISIT_();                         \
  } while (0)
/* A request arrives (load amplification, `coz run --load` / `--arrival-speedup`): each thread
 * that passes here is virtually sped up per arrival, so requests seem to arrive faster. */
#define COZ_ARRIVAL \
  COZ_INCREMENT_THREAD_COUNTER_(COZ_COUNTER_TYPE_ARRIVAL, __FILE__ ":" COZ_STR_(__LINE__))
#define COZ_ARRIVAL_NAMED(name) COZ_INCREMENT_THREAD_COUNTER_(COZ_COUNTER_TYPE_ARRIVAL, name)

/* For programs with their own blocking primitives (futex-based locks, custom queues): call
 * COZ_PRE_BLOCK() before a thread may block or wake another, COZ_POST_BLOCK(woken) after it
 * blocked (woken: nonzero if another thread released it, zero after a timeout), and
 * COZ_CATCH_UP() before waking another thread without blocking. The profiler then credits
 * virtual-speedup delays correctly (dissertation section 5.2.5.4). No-ops without the runtime. */
typedef void (*coz_void_fn_t)(void);
typedef void (*coz_int_fn_t)(int);

/* Looks `symbol` up once per site and calls it with `args` (a parenthesised list). */
#define COZ_CALL_RUNTIME_(fn_type, symbol, args)                     \
  do {                                                               \
    static void* coz_site_fn_ = 0;                                   \
    void* coz_f_ = __atomic_load_n(&coz_site_fn_, __ATOMIC_ACQUIRE); \
    if (__builtin_expect(coz_f_ == 0, 0)) {                          \
      coz_f_ = dlsym ? dlsym(COZ_RTLD_DEFAULT_, symbol) : 0;         \
      if (!coz_f_)                                                   \
        coz_f_ = (void*)COZ_ABSENT_COUNTER_;                         \
      __atomic_store_n(&coz_site_fn_, coz_f_, __ATOMIC_RELEASE);     \
    }                                                                \
    if (coz_f_ != (void*)COZ_ABSENT_COUNTER_) {                      \
      fn_type coz_call_;                                             \
      __builtin_memcpy(&coz_call_, &coz_f_, sizeof coz_f_);          \
      coz_call_ args;                                                \
    }                                                                \
  } while (0)

#define COZ_PRE_BLOCK() COZ_CALL_RUNTIME_(coz_void_fn_t, "_coz_pre_block", ())
#define COZ_POST_BLOCK(woken) COZ_CALL_RUNTIME_(coz_int_fn_t, "_coz_post_block", ((woken) ? 1 : 0))
#define COZ_CATCH_UP() COZ_CALL_RUNTIME_(coz_void_fn_t, "_coz_catch_up", ())

#if defined(__cplusplus)
}
#endif

#endif /* COZ_H */
