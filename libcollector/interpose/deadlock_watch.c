/* Actual deadlocks (`collector tha deadlock`; deadlock_watch.h): a thread
 * that would wait for a mutex or a read-write lock waits through the
 * call's timed variant, a check interval at a time.  Each time one runs
 * out, it follows the chain "the lock I wait for is held by thread T, who
 * waits for a lock held by thread U..." (a mutex names its owner, glibc's
 * __owner; a write-locked read-write lock its writer; the waits are in a
 * table here).  A chain that comes back to itself is a deadlock: its
 * threads will never go on.  It is said once: one packet per thread of the
 * cycle (er_tha.h), then gdbcol_deadlock_found(), where GDB has a
 * breakpoint (the plugin sets it): the program stops there and GDB prints
 * the cycle.  Without GDB the call returns and the thread waits on, as the
 * program would have; the experiment closes when the process is killed.
 *
 * Waiting this way changes nothing for the program: the same lock, taken
 * by the same thread, the same result; it costs a clock read and a
 * system call per check interval of a wait, nothing to a lock taken at
 * once (the wrapper tries first). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/hrtime.h"
#include "deadlock_watch.h"
#include "lock_order.h"

#define CHECK_NS 500000000L /* half a second */
#define WAITERS 1024

/* A thread that waits now (LOCK non-NULL), found by its id. */
static struct waiter {
  pid_t tid;           /* atomic: 0 free */
  const void *lock;    /* atomic */
  int kind;
  int reported;        /* its wait is part of a deadlock said already */
} waiters[WAITERS];
static __thread struct waiter *my_waiter __attribute__((tls_model("initial-exec")));

/* What GDB reads at gdbcol_deadlock_found (exported). */
int gdbcol_deadlock_size;
int gdbcol_deadlock_threads[GDBCOL_DEADLOCK_MAX];
int gdbcol_deadlock_owners[GDBCOL_DEADLOCK_MAX];
uint64_t gdbcol_deadlock_locks[GDBCOL_DEADLOCK_MAX];
int gdbcol_deadlock_kinds[GDBCOL_DEADLOCK_MAX];
static int deadlocks_found;

/* GDB stops here (its breakpoint); nothing happens without it. */
__attribute__((noinline, used)) void gdbcol_deadlock_found(void)
{
  __asm__ volatile("" ::: "memory");
}

static int thread_gone(pid_t tid)
{
  return syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH;
}

static struct waiter *waiter_slot(void)
{
  if (my_waiter != NULL)
    return my_waiter;
  pid_t me = col_trace_thread_id();
  int saved = errno;
  for (int i = 0; i < WAITERS; i++) {
    pid_t there = __atomic_load_n(&waiters[i].tid, __ATOMIC_ACQUIRE);
    /* a free slot, or one whose thread has ended */
    if ((there == 0 || (__atomic_load_n(&waiters[i].lock, __ATOMIC_ACQUIRE) == NULL && thread_gone(there))) &&
        __atomic_compare_exchange_n(&waiters[i].tid, &there, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
      my_waiter = &waiters[i];
      break;
    }
  }
  errno = saved;
  return my_waiter;
}

static const struct waiter *waiting(pid_t tid)
{
  for (int i = 0; i < WAITERS; i++)
    if (__atomic_load_n(&waiters[i].tid, __ATOMIC_ACQUIRE) == tid &&
        __atomic_load_n(&waiters[i].lock, __ATOMIC_ACQUIRE) != NULL)
      return &waiters[i];
  return NULL;
}

/* The thread that holds LOCK, as the lock itself says; 0: unknown (a
 * read-locked read-write lock has readers, not an owner). */
static pid_t owner_of(const void *lock, int kind)
{
  if (kind == ER_LOCK_MUTEX)
    return __atomic_load_n(&((const pthread_mutex_t *)lock)->__data.__owner, __ATOMIC_RELAXED);
  return (pid_t)__atomic_load_n(&((const pthread_rwlock_t *)lock)->__data.__cur_writer, __ATOMIC_RELAXED);
}

struct member {
  pid_t tid, owner;
  const void *lock;
  int kind;
  struct waiter *slot;
};

/* The cycle of waits through this thread, waiting for LOCK: its size, 0
 * when the chain ends (a lock free or held by a thread that runs). */
static int find_cycle(pid_t me, const void *lock, int kind, struct member *m)
{
  pid_t t = me;
  struct waiter *slot = my_waiter;
  for (int i = 0; i < GDBCOL_DEADLOCK_MAX; i++) {
    pid_t owner = owner_of(lock, kind);
    if (owner <= 0 || owner == t)
      return 0;
    m[i] = (struct member){t, owner, lock, kind, slot};
    if (owner == me)
      return i + 1;
    const struct waiter *w = waiting(owner);
    if (w == NULL)
      return 0;
    t = owner;
    slot = (struct waiter *)w;
    lock = __atomic_load_n(&w->lock, __ATOMIC_ACQUIRE);
    kind = w->kind;
    if (lock == NULL)
      return 0;
  }
  return 0;
}

static void report(const struct member *m, int n, uint64_t ip, uint64_t sp, uint64_t bp)
{
  /* Said by one thread of the cycle: the one that marks its first member
   * in one order for all (the lowest slot).  Each marking its own first,
   * two threads whose checks ran out together each found the other's mark
   * and neither said it (a clean-clone CI run: GDB waited for good). */
  int first = 0;
  for (int i = 1; i < n; i++)
    if (m[i].slot < m[first].slot)
      first = i;
  if (__atomic_exchange_n(&m[first].slot->reported, 1, __ATOMIC_ACQ_REL))
    return; /* another thread of the cycle says it */
  for (int i = 0; i < n; i++)
    __atomic_store_n(&m[i].slot->reported, 1, __ATOMIC_RELEASE);
  int number = __atomic_add_fetch(&deadlocks_found, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < n; i++) {
    gdbcol_deadlock_threads[i] = m[i].tid;
    gdbcol_deadlock_owners[i] = m[i].owner;
    gdbcol_deadlock_locks[i] = (uint64_t)(uintptr_t)m[i].lock;
    gdbcol_deadlock_kinds[i] = m[i].kind;
  }
  gdbcol_deadlock_size = n;
  if (col_lock_order_on() && col_trace_here() != NULL) {
    int64_t now = col_hrtime();
    for (int i = 0; i < n; i++) {
      const struct member *held = &m[(i + n - 1) % n]; /* the lock this thread holds: the one before waits for */
      struct er_lock_order_packet p;
      memset(&p, 0, sizeof p);
      p.srqst = now;
      p.sobj = (uint64_t)(uintptr_t)m[i].lock;
      p.did = number;
      p.dtype = ER_LOCK_DEADLOCK;
      p.dltype = m[i].kind;
      p.heldtype = held->kind;
      p.dvaddr = (uint64_t)(uintptr_t)held->lock;
      p.dthread = (uint64_t)m[i].tid;
      struct col_trace_fields f = COL_TRACE_PACKET(ER_KIND_LOCK_ORDER, now, now, &p, sizeof p);
      col_trace_record(&f, ip, sp, bp);
    }
  }
  gdbcol_deadlock_found();
}

int col_lock_wait_watched(void *lock, int kind, col_timed_lock timed)
{
  struct waiter *me = waiter_slot();
  if (me == NULL) { /* more waiting threads than the table holds: a plain wait */
    struct timespec never = {(time_t)1 << 40, 0};
    return timed(lock, &never);
  }
  me->kind = kind;
  me->reported = 0;
  __atomic_store_n(&me->lock, lock, __ATOMIC_RELEASE);
  int saved = errno, rc;
  for (;;) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += CHECK_NS;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000L;
    }
    rc = timed(lock, &deadline);
    if (rc != ETIMEDOUT)
      break;
    struct member cycle[GDBCOL_DEADLOCK_MAX];
    int n = find_cycle(col_trace_thread_id(), lock, kind, cycle);
    if (n > 0) {
      uint64_t ip, sp, bp;
      HERE(ip, sp, bp);
      report(cycle, n, ip, sp, bp);
    }
  }
  __atomic_store_n(&me->lock, NULL, __ATOMIC_RELEASE);
  errno = saved;
  return rc;
}
