/* The lock calls that never wait long, for lock orders (`collector tha
 * deadlock`, lock_order.h): releases (the lock leaves the thread's held
 * locks), tries (a lock taken, ordering nothing: a try cannot deadlock)
 * and spin locks (a spin can; a spin lock is a lock like a mutex).  With
 * lock orders off, each is a load, a branch and the real call.
 * Preloaded, these definitions win symbol lookup; after an attach the GOT
 * slots are redirected (got_patch.c). */
#define _GNU_SOURCE
#include <pthread.h>

#include "interposed.h"
#include "lock_order.h"

/* Lock orders off: two loads, a test and a tail call, before any
 * register is saved (the first call, and every call with lock orders on,
 * take the slow path, which leaves the real function for the idle one:
 * sync_interpose.c's IDLE_FIRST).  Nothing is recorded here: no HERE. */
#define RELEASE(name, type)                      \
  static col_fn_##name idle_real_##name;         \
  __attribute__((noinline)) static int released_##name(type lock) \
  {                                              \
    __atomic_store_n(&idle_real_##name, COL_REAL(name), __ATOMIC_RELAXED); \
    if (col_lock_order_on())                     \
      col_lock_order_released((const void *)(uintptr_t)lock); \
    return COL_REAL(name)(lock);                 \
  }                                              \
  int col_wrap_##name(type lock)                 \
  {                                              \
    col_fn_##name real = __atomic_load_n(&idle_real_##name, __ATOMIC_RELAXED); \
    if (!col_lock_order_on() && real != NULL)    \
      return real(lock);                         \
    return released_##name(lock);                \
  }

#define TAKE(name, type, kind, tried)            \
  int col_wrap_##name(type lock)                 \
  {                                              \
    if (!col_lock_order_on())                    \
      return COL_REAL(name)(lock);               \
    int rc = COL_REAL(name)(lock);               \
    COL_LOCK_TAKEN(rc, lock, kind, tried);       \
    return rc;                                   \
  }

RELEASE(pthread_mutex_unlock, pthread_mutex_t *)
RELEASE(pthread_rwlock_unlock, pthread_rwlock_t *)
RELEASE(pthread_spin_unlock, pthread_spinlock_t *)
TAKE(pthread_mutex_trylock, pthread_mutex_t *, ER_LOCK_MUTEX, 1)
TAKE(pthread_rwlock_tryrdlock, pthread_rwlock_t *, ER_LOCK_READ, 1)
TAKE(pthread_rwlock_trywrlock, pthread_rwlock_t *, ER_LOCK_WRITE, 1)
TAKE(pthread_spin_lock, pthread_spinlock_t *, ER_LOCK_SPIN, 0)
TAKE(pthread_spin_trylock, pthread_spinlock_t *, ER_LOCK_SPIN, 1)

COL_PRELOAD_ALIASES(COL_LOCK_FUNCTIONS)
