/* Threads that block the timer signal (the in-process source): the kernel
 * holds the signal pending while the thread runs on, so their CPU time is
 * not sampled.  A program whose threads block every signal recorded
 * "0 samples" for 3.0 s of CPU, with no word.  Each cycle's thread scan
 * reads each timer thread's blocked mask and CPU time from /proc; a thread
 * seen blocking the signal counts the CPU its samples did not reach, kept
 * when it ends; the end says how much, and GDB warns once (status
 * unsampled_ms).
 *
 * One look is not enough: glibc blocks every signal, by a raw system call
 * no interposition sees, in a new thread until it sets its creator's mask
 * and in an ending thread from its last steps on.  A scan that met a
 * worker there said "1 thread(s) blocked the collector's timer signal:
 * 0.00 s not sampled" for a program whose every thread was sampled.  A
 * thread counts once two checks in a row see it blocking and its CPU time
 * grew between them: it ran with the signal held. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/experiment_log.h"
#include "core/thread_slot.h"
#include "inprocess/threads.h"
#include "er/er_fileutil.h"

/* Counted on the runtime's thread, read by whichever thread writes the
 * status: each field is read and written whole. */
static struct col_blocked_figures figures;

void col_blocked_signal_describe(struct col_blocked_figures *out)
{
  out->unsampled_ns = __atomic_load_n(&figures.unsampled_ns, __ATOMIC_RELAXED);
  out->blocking_threads = __atomic_load_n(&figures.blocking_threads, __ATOMIC_RELAXED);
}

void col_blocked_signal_reset(void)
{
  __atomic_store_n(&figures.unsampled_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&figures.blocking_threads, 0, __ATOMIC_RELAXED);
}

int col_thread_blocks_timer_signal(pid_t tid)
{
  char path[64], text[4096];
  snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
  if (er_read_text(path, text, sizeof text) <= 0)
    return -1;
  const char *blk = strstr(text, "\nSigBlk:\t");
  unsigned long long mask = blk != NULL ? strtoull(blk + 9, NULL, 16) : 0;
  return (mask >> (COL_TIMER_SIGNAL - 1)) & 1;
}

/* TID's CPU time in ns and whether it blocks the timer signal; -1 when
 * /proc has no such thread any more. */
static int read_task(pid_t tid, uint64_t *cpu_ns, int *blocks)
{
  char path[64], text[4096];
  *blocks = col_thread_blocks_timer_signal(tid);
  if (*blocks < 0)
    return -1;
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
  const char *fields = er_proc_stat_fields(path, text, sizeof text);
  unsigned long long utime = 0, stime = 0;
  if (fields == NULL || sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
    return -1;
  *cpu_ns = (utime + stime) * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
  return 0;
}

void col_blocked_signal_check(struct col_thread *t)
{
  uint64_t cpu;
  int blocks;
  if (t->source != COL_SOURCE_TIMER || read_task(t->tid, &cpu, &blocks) != 0)
    return;
  t->cpu_ns_seen = cpu;
  if (!blocks) {
    t->blocked_since_cpu_ns = 0;
    return;
  }
  if (t->blocked_since_cpu_ns == 0) {
    t->blocked_since_cpu_ns = cpu + 1; /* + 1: a thread seen at CPU time 0 is still "seen" */
    return;
  }
  if (cpu + 1 > t->blocked_since_cpu_ns && !t->blocks_timer_signal) {
    t->blocks_timer_signal = 1;
    __atomic_fetch_add(&figures.blocking_threads, 1, __ATOMIC_RELAXED);
  }
}

void col_blocked_signal_retire(const struct col_thread *t)
{
  if (!t->blocks_timer_signal)
    return;
  uint64_t sampled = t->ticks * (uint64_t)col_cfg.clock_interval_us * 1000;
  if (t->cpu_ns_seen > sampled)
    __atomic_fetch_add(&figures.unsampled_ns, t->cpu_ns_seen - sampled, __ATOMIC_RELAXED);
}

void col_blocked_signal_warn(void)
{
  struct col_blocked_figures f;
  col_blocked_signal_describe(&f);
  if (f.blocking_threads == 0)
    return;
  col_log_warning(COL_WARN_TEXT, "%u thread(s) blocked the collector's timer signal (%d): about %.2f s of their CPU time "
                  "was not sampled. Sampling from inside the program cannot sample a thread that blocks it; where perf "
                  "events are allowed, the sampler process samples from outside the program", f.blocking_threads,
                  COL_TIMER_SIGNAL, f.unsampled_ns / 1e9);
}
