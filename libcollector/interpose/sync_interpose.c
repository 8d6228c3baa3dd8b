/* Synchronization-wait tracing (`collector synctrace`): the calls a thread
 * can block in (mutexes, condition variables, read-write locks, barriers,
 * joins, semaphores).  A wait at least as long as the threshold becomes an
 * event on the trace ring: its span, what it waited on, the wrapper's
 * registers and a copy of the stack above them; the sampler process
 * unwinds it like a clock sample and writes the synctrace packet.
 *
 * What it costs when nothing waits: a lock is tried first and the clock is
 * read only when the try fails (mutrace's way), so an uncontended lock
 * adds one predictable branch and a trylock.  Calls that always wait (a
 * condition, a join, a barrier) read the clock twice.
 *
 * The runtime's own use of these calls (GDB's inferior calls) and a wrapper
 * reached again from inside the recording (a program's own allocator that
 * locks) are not traced: a per-thread guard (trace_record.c, which also
 * keeps errno and allocates nothing: a signal handler may wait too).
 * A lock taken is also a lock order's second lock (`collector tha
 * deadlock`, lock_order.h), told after the real call.
 * Preloaded, these definitions win symbol lookup; after an attach the GOT
 * slots are redirected (got_patch.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "core/hrtime.h"
#include "er/er_data_kinds.h"
#include "interposed.h"
#include "deadlock_watch.h"
#include "lock_order.h"
#include "trace_record.h"

/* Nonzero when waits of this thread are traced now. */
static int sync_traced(void)
{
  struct col_trace_ring *t = col_trace; /* the kind's own flag first: off, that is the only test */
  return col_trace_kind_on(t, ER_KIND_SYNC) && col_trace_here() != NULL;
}

__attribute__((noinline)) static void record_wait(const void *object, int64_t start, int64_t end, uint64_t ip,
                                                  uint64_t sp, uint64_t bp)
{
  if (end - start < col_trace->sync_threshold_ns)
    return;
  struct er_sync_packet p = {.srqst = start, .sobj = (uint64_t)(uintptr_t)object};
  struct col_trace_fields f = COL_TRACE_PACKET(ER_KIND_SYNC, start, end, &p, sizeof p);
  col_trace_record(&f, ip, sp, bp);
}

/* A call that waits, as an expression: the clock around it, an event if
 * it was long; the call's result.  TRY_FIRST: an expression that takes
 * the object without waiting (its result is the call's) or gives EBUSY;
 * EBUSY itself for calls that always wait.  Expanded in the wrapper's own
 * body, so that HERE reads the wrapper's registers. */
#define TIMED_WAIT(type, object, try_first, call)                   \
  ({                                                                \
    type result_;                                                   \
    int tried_ = EBUSY;                                             \
    if (!sync_traced()) {                                           \
      result_ = call;                                               \
    } else if ((tried_ = (try_first)) != EBUSY) {                   \
      result_ = (type)tried_;                                       \
    } else {                                                        \
      uint64_t ip_, sp_, bp_;                                       \
      int64_t start_ = col_hrtime();                                \
      result_ = call;                                               \
      int64_t end_ = col_hrtime();                                  \
      HERE(ip_, sp_, bp_);                                          \
      record_wait(object, start_, end_, ip_, sp_, bp_);             \
    }                                                               \
    result_;                                                        \
  })
#define TRACED_WAIT(type, object, try_first, call) return TIMED_WAIT(type, object, try_first, call)
/* A lock call: straight to REAL_CALL while nothing is recorded (a tail
 * call), else timed as above, then (taken) the second lock of a lock
 * order (lock_order.h). */
#define LOCK_WAIT(real_call, object, try_first, call, lock_kind)      \
  do {                                                                \
    if (col_sync_wrappers_idle())                                     \
      return real_call;                                               \
    int rc_ = TIMED_WAIT(int, object, try_first, call);               \
    COL_LOCK_TAKEN(rc_, object, lock_kind, 0);                        \
    return rc_;                                                       \
  } while (0)

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*rwlock_fn)(pthread_rwlock_t *);
typedef int (*sem_fn)(sem_t *);

/* The trylock that decides whether a lock call will wait. */
static int try_mutex(pthread_mutex_t *m)
{
  return COL_REAL_OTHER(mutex_fn, "pthread_mutex_trylock")(m);
}

/* A lock that would wait, with deadlock detection on: watched (a
 * deadlock is found while it happens: deadlock_watch.h). */
static int lock_mutex(pthread_mutex_t *m)
{
  if (!col_lock_order_on())
    return COL_REAL(pthread_mutex_lock)(m);
  int rc = try_mutex(m);
  return rc != EBUSY ? rc : col_lock_wait_watched(m, ER_LOCK_MUTEX, (col_timed_lock)COL_REAL(pthread_mutex_timedlock));
}

static int rdlock(pthread_rwlock_t *l)
{
  if (!col_lock_order_on())
    return COL_REAL(pthread_rwlock_rdlock)(l);
  int rc = COL_REAL_OTHER(rwlock_fn, "pthread_rwlock_tryrdlock")(l);
  return rc != EBUSY ? rc : col_lock_wait_watched(l, ER_LOCK_READ, (col_timed_lock)COL_REAL(pthread_rwlock_timedrdlock));
}

static int wrlock(pthread_rwlock_t *l)
{
  if (!col_lock_order_on())
    return COL_REAL(pthread_rwlock_wrlock)(l);
  int rc = COL_REAL_OTHER(rwlock_fn, "pthread_rwlock_trywrlock")(l);
  return rc != EBUSY ? rc : col_lock_wait_watched(l, ER_LOCK_WRITE, (col_timed_lock)COL_REAL(pthread_rwlock_timedwrlock));
}

/* The hot lock calls: while nothing is recorded, two loads, a test and a
 * tail call to the real function, before any register is saved (with the
 * traced body in the same function six were saved first, and one for
 * COL_REAL's first-call lookup: 9.3 ns a lock+unlock pair against 5.5
 * bare, measured); else, and at the first call, the traced body, also by
 * a tail call, whose events start at the wrapper's entry (col_here_entry,
 * trace_record.h).  The traced body leaves the real function for the idle
 * path. */
#define IDLE_FIRST(name, type, traced)                                            \
  static col_fn_##name idle_real_##name;                                          \
  __attribute__((noinline)) static int traced(type l);                            \
  int col_wrap_##name(type l)                                                     \
  {                                                                               \
    col_fn_##name real = __atomic_load_n(&idle_real_##name, __ATOMIC_RELAXED);    \
    if (col_sync_wrappers_idle() && real != NULL)                                 \
      return real(l);                                                             \
    return traced(l);                                                             \
  }                                                                               \
  static int traced(type l)
/* In a traced body: the real function for the idle path, and the entry
 * its events start at. */
#define TRACED_BODY(name)                                                         \
  void *const col_here_entry = (void *)col_wrap_##name;                           \
  __atomic_store_n(&idle_real_##name, COL_REAL(name), __ATOMIC_RELAXED)

IDLE_FIRST(pthread_mutex_lock, pthread_mutex_t *, traced_mutex_lock)
{
  TRACED_BODY(pthread_mutex_lock);
  LOCK_WAIT(COL_REAL(pthread_mutex_lock)(l), l, try_mutex(l), lock_mutex(l), ER_LOCK_MUTEX);
}

int col_wrap_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *when)
{
  LOCK_WAIT(COL_REAL(pthread_mutex_timedlock)(m, when), m, try_mutex(m),
            COL_REAL(pthread_mutex_timedlock)(m, when), ER_LOCK_MUTEX);
}

int col_wrap_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *when)
{
  LOCK_WAIT(COL_REAL(pthread_mutex_clocklock)(m, clock, when), m, try_mutex(m),
            COL_REAL(pthread_mutex_clocklock)(m, clock, when), ER_LOCK_MUTEX);
}

int col_wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
  TRACED_WAIT(int, c, EBUSY, COL_REAL(pthread_cond_wait)(c, m));
}

int col_wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *when)
{
  TRACED_WAIT(int, c, EBUSY, COL_REAL(pthread_cond_timedwait)(c, m, when));
}

int col_wrap_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock, const struct timespec *when)
{
  TRACED_WAIT(int, c, EBUSY,
              COL_REAL(pthread_cond_clockwait)(c, m, clock, when));
}

IDLE_FIRST(pthread_rwlock_rdlock, pthread_rwlock_t *, traced_rdlock)
{
  TRACED_BODY(pthread_rwlock_rdlock);
  LOCK_WAIT(COL_REAL(pthread_rwlock_rdlock)(l), l, COL_REAL_OTHER(rwlock_fn,
            "pthread_rwlock_tryrdlock")(l), rdlock(l), ER_LOCK_READ);
}

IDLE_FIRST(pthread_rwlock_wrlock, pthread_rwlock_t *, traced_wrlock)
{
  TRACED_BODY(pthread_rwlock_wrlock);
  LOCK_WAIT(COL_REAL(pthread_rwlock_wrlock)(l), l, COL_REAL_OTHER(rwlock_fn,
            "pthread_rwlock_trywrlock")(l), wrlock(l), ER_LOCK_WRITE);
}

int col_wrap_pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *when)
{
  LOCK_WAIT(COL_REAL(pthread_rwlock_timedrdlock)(l, when), l, COL_REAL_OTHER(rwlock_fn,
            "pthread_rwlock_tryrdlock")(l),
              COL_REAL(pthread_rwlock_timedrdlock)(l, when), ER_LOCK_READ);
}

int col_wrap_pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *when)
{
  LOCK_WAIT(COL_REAL(pthread_rwlock_timedwrlock)(l, when), l, COL_REAL_OTHER(rwlock_fn,
            "pthread_rwlock_trywrlock")(l),
              COL_REAL(pthread_rwlock_timedwrlock)(l, when), ER_LOCK_WRITE);
}

int col_wrap_pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *when)
{
  LOCK_WAIT(COL_REAL(pthread_rwlock_clockrdlock)(l, clock, when), l, COL_REAL_OTHER(rwlock_fn,
            "pthread_rwlock_tryrdlock")(l),
              COL_REAL(pthread_rwlock_clockrdlock)(l, clock, when), ER_LOCK_READ);
}

int col_wrap_pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *when)
{
  LOCK_WAIT(COL_REAL(pthread_rwlock_clockwrlock)(l, clock, when), l, COL_REAL_OTHER(rwlock_fn,
            "pthread_rwlock_trywrlock")(l),
              COL_REAL(pthread_rwlock_clockwrlock)(l, clock, when), ER_LOCK_WRITE);
}

int col_wrap_pthread_barrier_wait(pthread_barrier_t *b)
{
  TRACED_WAIT(int, b, EBUSY, COL_REAL(pthread_barrier_wait)(b));
}

int col_wrap_pthread_join(pthread_t thread, void **result)
{
  TRACED_WAIT(int, (void *)thread, EBUSY, COL_REAL(pthread_join)(thread, result));
}

/* sem_trywait reports EAGAIN through errno: the try succeeds or the call waits. */
static int try_sem(sem_t *s)
{
  int saved = errno;
  int rc = COL_REAL_OTHER(sem_fn, "sem_trywait")(s);
  errno = saved;
  return rc == 0 ? 0 : EBUSY;
}

int col_wrap_sem_wait(sem_t *s)
{
  TRACED_WAIT(int, s, try_sem(s), COL_REAL(sem_wait)(s));
}

int col_wrap_sem_timedwait(sem_t *s, const struct timespec *when)
{
  TRACED_WAIT(int, s, try_sem(s), COL_REAL(sem_timedwait)(s, when));
}

int col_wrap_sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *when)
{
  TRACED_WAIT(int, s, try_sem(s), COL_REAL(sem_clockwait)(s, clock, when));
}

COL_PRELOAD_ALIASES(COL_SYNC_FUNCTIONS)
