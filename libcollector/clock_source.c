/* Chooses and starts a clock source for each thread: kernel-side perf
 * sampling where the kernel allows it, else the POSIX timer fallback.  The
 * choice is per thread, so a process that runs into a perf limit (locked
 * memory for ring buffers, descriptors) keeps profiling its other threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "collector_internal.h"

size_t col_stack_copy_bytes;

static int timer_handler_ready;

static int start_timer_source(struct col_thread *t, pid_t tid, long interval)
{
  if (!__atomic_load_n(&timer_handler_ready, __ATOMIC_ACQUIRE)) {
    int rc = col_timer_install_handler();
    if (rc != 0) {
      col_clock_stats.last_timer_errno = -rc;
      return rc;
    }
    __atomic_store_n(&timer_handler_ready, 1, __ATOMIC_RELEASE);
  }
  int rc = col_timer_open(t, interval);
  if (rc != 0) {
    col_clock_stats.last_timer_errno = -rc;
    return rc;
  }
  t->source = COL_SOURCE_TIMER;
  __atomic_fetch_add(&col_clock_stats.timer_threads, 1, __ATOMIC_RELAXED);
  return 0;
}

int col_clock_start_thread(pid_t tid)
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
    __atomic_fetch_add(&col_clock_stats.failed_threads, 1, __ATOMIC_RELAXED);
    return -ENOSPC;
  }
  col_stack_copy_bytes = col_cfg.stack_copy_bytes;
  int rc = -ENOSYS;
  if (!col_cfg.force_timer_source) {
    rc = col_perf_open(t, interval, col_cfg.stack_copy_bytes);
    if (rc == 0) {
      t->source = COL_SOURCE_PERF;
      __atomic_fetch_add(&col_clock_stats.perf_threads, 1, __ATOMIC_RELAXED);
    } else {
      col_clock_stats.last_perf_errno = -rc;
    }
  }
  if (rc != 0)
    rc = start_timer_source(t, tid, interval);
  if (rc != 0) {
    col_thread_release(t);
    __atomic_fetch_add(&col_clock_stats.failed_threads, 1, __ATOMIC_RELAXED);
    return rc;
  }
  __atomic_store_n(&t->in_use, 1, __ATOMIC_RELEASE); /* visible to the sampler */
  if (t->source == COL_SOURCE_PERF)
    col_sampler_watch_fd(t->perf_fd);
  return 0;
}

static void stop_source(struct col_thread *t)
{
  if (t->source == COL_SOURCE_PERF)
    col_perf_close(t);
  else if (t->source == COL_SOURCE_TIMER)
    col_timer_close(t);
}

void col_clock_stop_thread(struct col_thread *t)
{
  if (t == NULL || __atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) != 1)
    return;
  stop_source(t);
  /* The sampler drains what is left, then frees the slot. */
  __atomic_store_n(&t->retired, 1, __ATOMIC_RELEASE);
  col_sampler_poke();
}

void col_clock_stop_all(void)
{
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == 1 && !__atomic_load_n(&t->retired, __ATOMIC_ACQUIRE))
      stop_source(t);
  }
}
