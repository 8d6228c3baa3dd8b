/* Chooses and starts a clock source for each thread: kernel-side perf
 * sampling where the kernel allows it, else the POSIX timer fallback.  The
 * choice is per thread, so a process that runs into a perf limit (locked
 * memory for ring buffers, descriptors) keeps profiling its other threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/module_map.h"
#include "core/runtime_calls.h"
#include "core/thread_slot.h"
#include "inprocess/clock_sources.h"
#include "inprocess/runtime_thread_wakeup.h"
#include "inprocess/threads.h"
#include "unwind/clock_perf.h"

static int timer_handler_ready;

static int start_timer_source(struct col_thread *t, pid_t tid, long interval, int born_now)
{
  if (!__atomic_load_n(&timer_handler_ready, __ATOMIC_ACQUIRE)) {
    int rc = col_timer_install_handler();
    if (rc != 0) {
      col_clock_source_count_timer(-rc);
      return rc;
    }
    __atomic_store_n(&timer_handler_ready, 1, __ATOMIC_RELEASE);
  }
  int rc = col_timer_open(t, interval, col_cfg.stack_copy_bytes, born_now);
  col_clock_source_count_timer(-rc);
  if (rc != 0)
    return rc;
  t->source = COL_SOURCE_TIMER;
  return 0;
}

/* Where a thread's stack lies, told by the thread itself when it asks to be
 * armed (the timer source copies stack bytes within these bounds). */
struct stack_bounds {
  uintptr_t lo, hi;
  uintptr_t inside; /* an address on the stack, when the bounds are unknown */
  int born_now;     /* the thread itself, just begun: all its CPU time so far is the program's */
};

/* The calling thread's stack.  The main thread's bounds would come from
 * reading /proc/self/maps here (glibc does that), a descriptor on the
 * program's side: it gives an address instead, found in the runtime's own
 * scan of the mappings. */
/* The calling thread's stack as glibc knows it (for the main thread, read
 * from /proc/self/maps); 0 and 0 where it cannot say. */
static void glibc_stack_bounds(uint64_t *lo, uint64_t *hi)
{
  pthread_attr_t attr;
  void *addr;
  size_t size;
  *lo = *hi = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    *lo = (uintptr_t)addr;
    *hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&attr);
}

static void own_stack_bounds(struct stack_bounds *b)
{
  memset(b, 0, sizeof *b);
  if (gettid() == getpid()) {
    b->inside = (uintptr_t)__builtin_frame_address(0);
  } else {
    uint64_t lo, hi;
    glibc_stack_bounds(&lo, &hi);
    b->lo = (uintptr_t)lo;
    b->hi = (uintptr_t)hi;
  }
}

static void set_stack_bounds(struct col_thread *t, const struct stack_bounds *b)
{
  uint64_t lo = b->lo, hi = b->hi;
  if (hi == 0 && b->inside != 0 && col_modules_range_at(b->inside, &lo, &hi) != 0) {
    col_modules_rescan();
    if (col_modules_range_at(b->inside, &lo, &hi) != 0)
      lo = hi = 0;
    /* (where the runtime keeps no mappings: the sampler process does, the
     * program sampling itself for it) */
    if (hi == 0 && t->tid == gettid() && gettid() == getpid())
      glibc_stack_bounds(&lo, &hi);
    if (b->inside < lo || b->inside >= hi)
      lo = hi = 0;
  }
  t->stack_lo = (uintptr_t)lo;
  t->stack_hi = (uintptr_t)hi;
}

/* Runs on the runtime's thread: the perf descriptor goes into its table. */
static int arm_thread(pid_t tid, const struct stack_bounds *bounds)
{
  long interval = col_cfg.clock_interval_us;
  if (interval <= 0)
    return 0;
  if (col_thread_known(tid))
    return -EEXIST; /* armed already (by itself, or by the task scan) */
  struct col_thread *t = col_thread_claim(tid);
  if (t == NULL) {
    if (col_thread_known(tid))
      return -EEXIST;
    col_clock_source_count_failed();
    return -ENOSPC;
  }
  set_stack_bounds(t, bounds);
  int rc = -ENOSYS;
  if (!col_cfg.force_timer_source) {
    rc = col_perf_open(t, interval, col_cfg.stack_copy_bytes);
    col_clock_source_count_perf(-rc);
    if (rc == 0)
      t->source = COL_SOURCE_PERF;
  }
  if (rc != 0)
    rc = start_timer_source(t, tid, interval, bounds->born_now);
  if (rc != 0) {
    col_thread_release(t);
    col_clock_source_count_failed();
    return rc;
  }
  __atomic_store_n(&t->in_use, 1, __ATOMIC_RELEASE); /* visible to the runtime thread */
  if (t->source == COL_SOURCE_PERF)
    col_runtime_thread_watch_fd(t->perf_fd);
  return 0;
}

struct arm_request {
  pid_t tid;
  struct stack_bounds bounds;
  int rc;
};

static void arm_on_runtime_thread(void *p)
{
  struct arm_request *req = p;
  req->rc = arm_thread(req->tid, &req->bounds);
}

static void stop_source(struct col_thread *t);

int col_clock_start_thread_here(pid_t tid)
{
  struct stack_bounds bounds = {0};
  if (tid == gettid())
    own_stack_bounds(&bounds);
  return arm_thread(tid, &bounds);
}

int col_clock_start_new_thread_here(void)
{
  struct stack_bounds bounds;
  own_stack_bounds(&bounds);
  bounds.born_now = 1;
  return arm_thread((pid_t)gettid(), &bounds);
}

/* (how far below its top such a stack may reach: a bound for the copy's
 * check only; the copy is from the stack pointer up) */
#define RAW_STACK_REACH (64u << 20)

int col_clock_start_raw_thread_here(uintptr_t stack_hi)
{
  struct stack_bounds bounds = {stack_hi > RAW_STACK_REACH ? stack_hi - RAW_STACK_REACH : 0, stack_hi, 0, 1};
  return arm_thread((pid_t)gettid(), &bounds);
}

void col_clock_stop_thread_here(struct col_thread *t)
{
  /* Taken by one stopper (the thread's own end, or the experiment's on
   * another thread), and no longer found by the timer's handler. */
  int armed = 1;
  if (t == NULL || !__atomic_compare_exchange_n(&t->in_use, &armed, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;
  stop_source(t);
  if (t->source == COL_SOURCE_TIMER)
    col_timer_finish_thread(t);
  col_thread_release(t);
}

void col_clock_stop_all_here(void)
{
  col_clock_stop_thread_here(col_thread_find(gettid())); /* first: its last interval while it runs on */
  for (int i = 0; i < COL_MAX_THREADS; i++)
    col_clock_stop_thread_here(&col_threads[i]);
}

int col_clock_start_thread(pid_t tid)
{
  struct arm_request req = {.tid = tid};
  if (tid == gettid())
    own_stack_bounds(&req.bounds);
  int rc = col_on_runtime_thread(arm_on_runtime_thread, &req);
  return rc != 0 ? rc : req.rc;
}

/* A perf event is disabled through its descriptor, which only the
 * runtime's thread holds (elsewhere that number is the program's): other
 * threads leave it to the final drain, which releases the event. */
static void stop_source(struct col_thread *t)
{
  if (t->source == COL_SOURCE_PERF) {
    if (gettid() == col_runtime_thread_tid())
      col_perf_close(t);
  }
  else if (t->source == COL_SOURCE_TIMER)
    col_timer_close(t);
}

void col_clock_stop_thread(struct col_thread *t)
{
  if (t == NULL || __atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) != 1)
    return;
  stop_source(t);
  if (t->source == COL_SOURCE_TIMER && t->tid == gettid())
    col_timer_finish_thread(t); /* on the thread itself: what it ran since its last sample */
  /* The runtime thread drains what is left, then frees the slot. */
  __atomic_store_n(&t->retired, 1, __ATOMIC_RELEASE);
  col_runtime_thread_poke();
}

void col_clock_stop_all(void)
{
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == 1 && !__atomic_load_n(&t->retired, __ATOMIC_ACQUIRE))
      stop_source(t);
  }
}
