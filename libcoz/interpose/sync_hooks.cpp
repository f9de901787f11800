// Hooks for POSIX synchronisation: mutexes, condition variables, read-write locks, barriers,
// joins and semaphores (Tables 5.1 and 5.2, plus their timed and clock variants).
#include "interpose/hook_support.h"

using coz::real;
using namespace coz::hooks;

// --- mutexes ---------------------------------------------------------------------------------
COZ_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  return locking(
      m, [m] { return real().pthread_mutex_trylock(m); }, EBUSY,
      [m] { return real().pthread_mutex_lock(m); });
}
COZ_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  return took_lock(real().pthread_mutex_trylock(m));
}
COZ_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* t) {
  return lock_waiting(m, [=] { return real().pthread_mutex_timedlock(m, t); });
}
COZ_EXPORT int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t c, const struct timespec* t) {
  return lock_waiting(m, [=] { return real().pthread_mutex_clocklock(m, c, t); });
}
COZ_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  return unlocking(m, [m] { return real().pthread_mutex_unlock(m); });
}

// --- condition variables ---------------------------------------------------------------------
// The waiter holds the mutex when it calls wait and again when wait returns: nothing is paid
// here. The signaller usually holds it too: it publishes now and pays when it unlocks.
COZ_EXPORT int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  return waiting(
      c, [=] { return real().pthread_cond_wait(c, m); }, returned_zero);
}
COZ_EXPORT int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                      const struct timespec* t) {
  // A timeout still re-acquires the mutex: the thread holds it either way.
  return waiting(
      c, [=] { return real().pthread_cond_timedwait(c, m, t); }, returned_zero);
}
COZ_EXPORT int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t k,
                                      const struct timespec* t) {
  return waiting(
      c, [=] { return real().pthread_cond_clockwait(c, m, k, t); }, returned_zero);
}
COZ_EXPORT int pthread_cond_signal(pthread_cond_t* c) {
  return signalling(c, [c] { return real().pthread_cond_signal(c); });
}
COZ_EXPORT int pthread_cond_broadcast(pthread_cond_t* c) {
  return signalling(c, [c] { return real().pthread_cond_broadcast(c); });
}

// --- read-write locks ------------------------------------------------------------------------
COZ_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  return locking(
      l, [l] { return real().pthread_rwlock_tryrdlock(l); }, EBUSY,
      [l] { return real().pthread_rwlock_rdlock(l); });
}
COZ_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  return locking(
      l, [l] { return real().pthread_rwlock_trywrlock(l); }, EBUSY,
      [l] { return real().pthread_rwlock_wrlock(l); });
}
COZ_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* t) {
  return lock_waiting(l, [=] { return real().pthread_rwlock_timedrdlock(l, t); });
}
COZ_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* t) {
  return lock_waiting(l, [=] { return real().pthread_rwlock_timedwrlock(l, t); });
}
COZ_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t c,
                                          const struct timespec* t) {
  return lock_waiting(l, [=] { return real().pthread_rwlock_clockrdlock(l, c, t); });
}
COZ_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t c,
                                          const struct timespec* t) {
  return lock_waiting(l, [=] { return real().pthread_rwlock_clockwrlock(l, c, t); });
}
COZ_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  return unlocking(l, [l] { return real().pthread_rwlock_unlock(l); });
}

// --- barriers and joins ----------------------------------------------------------------------
COZ_EXPORT int pthread_barrier_wait(pthread_barrier_t* b) {
  return meeting(
      b, [b] { return real().pthread_barrier_wait(b); },
      [](int rc) { return rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD; });
}
COZ_EXPORT int pthread_join(pthread_t t, void** result) {
  return waiting(
      thread_key(t), [=] { return real().pthread_join(t, result); }, returned_zero);
}
COZ_EXPORT int pthread_tryjoin_np(pthread_t t, void** result) {
  return real().pthread_tryjoin_np(t, result);  // never blocks
}
COZ_EXPORT int pthread_timedjoin_np(pthread_t t, void** result, const struct timespec* limit) {
  return waiting(
      thread_key(t), [=] { return real().pthread_timedjoin_np(t, result, limit); }, returned_zero);
}
COZ_EXPORT int pthread_clockjoin_np(pthread_t t, void** result, clockid_t c,
                                    const struct timespec* limit) {
  return waiting(
      thread_key(t), [=] { return real().pthread_clockjoin_np(t, result, c, limit); },
      returned_zero);
}

// --- semaphores ------------------------------------------------------------------------------
COZ_EXPORT int sem_wait(sem_t* s) {
  return trying_then_waiting(
      s, [s] { return real().sem_trywait(s); }, [s] { return real().sem_wait(s); });
}
COZ_EXPORT int sem_timedwait(sem_t* s, const struct timespec* t) {
  return waiting(
      s, [=] { return real().sem_timedwait(s, t); }, returned_zero);
}
COZ_EXPORT int sem_clockwait(sem_t* s, clockid_t c, const struct timespec* t) {
  return waiting(
      s, [=] { return real().sem_clockwait(s, c, t); }, returned_zero);
}
COZ_EXPORT int sem_post(sem_t* s) {
  return releasing(s, [s] { return real().sem_post(s); });
}
