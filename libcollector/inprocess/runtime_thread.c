/* The runtime's own thread.  It drains every thread's captures (perf ring
 * buffers, timer rings), unwinds them, deduplicates stacks and writes
 * data.frameinfo and profile.  Being the only writer of those files it needs
 * no locks; it flushes every cycle (at most ~50 ms), so a killed process
 * loses at most that much.  It runs with every signal blocked so that the
 * program's process-directed signals never land on it.
 *
 * It is also the only thread that holds a descriptor of the runtime's: it
 * unshares its descriptor table at start and closes its copies of the
 * program's descriptors, so nothing the program does to descriptors (close
 * them all, dup2 over them, close_range) reaches the experiment's files,
 * and nothing of ours can land in a file of the program's.  Other threads
 * hand it their file work (runtime_calls.c) and wake it with a
 * thread-directed signal it reads through a signalfd: a signal consumed
 * that way is never delivered, so GDB never stops for it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_limit.h"
#include "core/data_writers.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/runtime_calls.h"
#include "core/recording_cost.h"
#include "core/status_file.h"
#include "core/thread_slot.h"
#include "interpose/got_patch.h"
#include "interpose/real_calls.h"
#include "interpose/signal_guard.h"
#include "inprocess/clock_sources.h"
#include "inprocess/unwind_libraries.h"
#include "runtime/program_requests.h"
#include "inprocess/runtime_thread.h"
#include "inprocess/runtime_thread_wakeup.h"
#include "inprocess/threads.h"
#include "unwind/clock_perf.h"
#include "unwind/unwind.h"
#include "core/libc_condvar.h"
#include "er/er_fileutil.h"
#include "er/er_format.h"

#define CYCLE_MS 50
#define MAPS_RESCAN_NS 1000000000LL
#define STATUS_EVERY_NS 1000000000LL
#define THREAD_SCAN_NS 100000000LL

static pthread_t runtime_thread;
static int stop_requested, drained;
static int (*start_work)(void);
static void (*finish_work)(void);
static int start_result, start_reported;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static int64_t last_rescan, last_status, last_thread_scan, last_periodic_sample;
static int64_t last_alive_check;
int col_patch_got; /* injected: keep new objects' GOT slots pointed at us */

/* What the status file says of this side: the threads that blocked the
 * timer signal (the sampler process's figures stay 0 here). */
static void status_figures(struct col_status_figures *out)
{
  struct col_blocked_figures blocked;
  col_blocked_signal_describe(&blocked);
  out->unsampled_ns = blocked.unsampled_ns;
  out->blocking_threads = blocked.blocking_threads;
}

static void drain_thread(struct col_thread *t)
{
  if (t->source == COL_SOURCE_PERF)
    col_perf_drain(t, col_clock_writer_write, NULL);
  else if (t->source == COL_SOURCE_TIMER)
    col_timer_drain(t);
}

static void retire_thread(struct col_thread *t)
{
  drain_thread(t);
  col_blocked_signal_retire(t);
  if (t->source == COL_SOURCE_PERF)
    col_perf_release(t);
  col_thread_release(t);
}

/* ---- what the runtime thread serves each cycle, source by source ---------- */

/* The program's load objects: map.xml and the unwinder follow dlopen. */
static void load_objects_cycle(int64_t now)
{
  if (col_clock_writer_wants_rescan() || now - last_rescan > MAPS_RESCAN_NS) {
    if (col_modules_rescan())
      col_unwind_forget_modules();
    last_rescan = now;
  }
}

/* After an attach: objects loaded since the last cycle get their GOT slots. */
static void interposition_cycle(int64_t now)
{
  if (col_patch_got)
    col_got_patch_new_objects();
}

/* Sample points: GDB's stops and the periodic ones (one overview record
 * per period, §7). */
static void sample_points_cycle(int64_t now)
{
  col_control_note_stops();
  if (col_cfg.sample_period_ms > 0 && now - last_periodic_sample >= col_cfg.sample_period_ms * 1000000LL) {
    col_log_sample("periodic");
    last_periodic_sample = now;
  }
}

/* Clock profiling from inside: threads found by the scan are armed, every
 * thread's captures drained, ended threads retired. */
static void clock_cycle(int64_t now)
{
  int scan = now - last_thread_scan > THREAD_SCAN_NS;
  if (scan) {
    col_scan_threads(col_runtime_thread_tid());
    last_thread_scan = now;
  }
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) != 1)
      continue;
    if (__atomic_load_n(&t->retired, __ATOMIC_ACQUIRE)) {
      col_clock_writer_count_lost(t->lost);
      retire_thread(t);
    } else {
      drain_thread(t);
      if (scan)
        col_blocked_signal_check(t);
    }
  }
}

/* The end: no thread is sampled any more; every slot drained and freed, so
 * that a later experiment in this process starts from an empty table. */
static void clock_stop(void)
{
  col_clock_stop_all();
}

static void clock_finish(void)
{
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == 1) {
      col_clock_writer_count_lost(t->lost);
      col_blocked_signal_check(t); /* its CPU time up to now */
      retire_thread(t);
    }
  }
  col_blocked_signal_warn();
}

/* The sources the runtime thread serves in the program's process (the
 * sampler process has its own loop): each cycle in this order, then the
 * data writers; at the end, STOP before the last cycle, FINISH after it. */
struct runtime_source {
  const char *what;
  void (*cycle)(int64_t now);
  void (*stop)(void);
  void (*finish)(void);
};
static const struct runtime_source sources[] = {
    {"load objects", load_objects_cycle, NULL, NULL},
    {"interposition after an attach", interposition_cycle, NULL, NULL},
    {"sample points", sample_points_cycle, NULL, NULL},
    {"clock profiling from inside", clock_cycle, clock_stop, clock_finish},
};
#define N_SOURCES (sizeof sources / sizeof sources[0])

static void drain_all(void)
{
  int64_t now = col_hrtime();
  for (size_t i = 0; i < N_SOURCES; i++)
    sources[i].cycle(now);
  col_data_writers_flush();
  int limit_noted = col_limit_note();
  col_progress_refresh();
  if (limit_noted || now - last_status > STATUS_EVERY_NS) {
    col_status_write(&col_cfg, "active", NULL);
    last_status = now;
  }
}

/* A descriptor table of our own, holding nothing of the program's (an
 * open copy of its pipe's write end would keep its reader from seeing EOF). */
static int take_private_descriptor_table(void)
{
  if (unshare(CLONE_FILES) != 0)
    return -errno;
  if (syscall(SYS_close_range, 0u, ~0u, 0u) != 0)
    for (int fd = 0; fd < 65536; fd++)
      close(fd);
  return 0;
}

static void report_start(int rc)
{
  pthread_mutex_lock(&start_lock);
  start_result = rc;
  start_reported = 1;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_lock);
}

void col_runtime_thread_drain_now(void)
{
  drain_all();
}

/* No thread of the program is left (its main thread called pthread_exit,
 * then the others ended): only this one, which must not keep the process
 * alive.  Measured before: with the in-process source the process was
 * still there 5 s after its last worker returned, its experiment never
 * closed. */
static int only_runtime_thread_left(void)
{
  DIR *tasks = opendir("/proc/self/task");
  if (tasks == NULL)
    return 0;
  int others = 0;
  for (struct dirent *e; !others && (e = readdir(tasks)) != NULL;) {
    pid_t tid = (pid_t)atoi(e->d_name);
    if (tid <= 0 || tid == col_runtime_thread_tid())
      continue;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    const char *fields = er_proc_stat_fields(path, stat, sizeof stat);
    others = fields == NULL || (fields[0] != 'Z' && fields[0] != 'X'); /* unreadable: counted as running */
  }
  closedir(tasks);
  return !others;
}

static void *runtime_thread_main(void *unused)
{
  prctl(PR_SET_NAME, "gdbcol-runtime");
  last_thread_scan = last_periodic_sample = col_hrtime();
  col_private_descriptors = take_private_descriptor_table() == 0;
  int rc = col_wakeup_open();
  if (rc == 0) {
    col_calls_set_runtime_thread(col_runtime_thread_tid(), col_runtime_thread_poke);
    rc = start_work();
  }
  if (rc != 0) {
    col_calls_set_runtime_thread(0, NULL);
    col_wakeup_close();
    report_start(rc);
    return NULL;
  }
  last_rescan = last_status = col_hrtime();
  col_calls_accept(1);
  report_start(0);
  while (!__atomic_load_n(&stop_requested, __ATOMIC_ACQUIRE)) {
    col_wakeup_wait(CYCLE_MS);
    col_calls_serve();
    drain_all();
    int64_t now = col_hrtime();
    if (now - last_alive_check > THREAD_SCAN_NS) {
      last_alive_check = now;
      if (only_runtime_thread_left()) {
        col_log_comment("The program's last thread ended (its main thread had called pthread_exit): the "
                        "experiment ends, and the runtime's thread with it, so the process ends as it would "
                        "unrecorded");
        __atomic_store_n(&stop_requested, 1, __ATOMIC_RELEASE);
      }
    }
  }
  col_calls_accept(0);
  col_calls_serve();
  for (size_t i = 0; i < N_SOURCES; i++)
    if (sources[i].stop != NULL)
      sources[i].stop();
  drain_all();
  for (size_t i = 0; i < N_SOURCES; i++)
    if (sources[i].finish != NULL)
      sources[i].finish();
  col_recording_cost_measure(RUSAGE_THREAD, CLOCK_THREAD_CPUTIME_ID);
  __atomic_store_n(&drained, 1, __ATOMIC_RELEASE);
  finish_work();
  col_calls_set_runtime_thread(0, NULL);
  col_wakeup_close();
  return NULL;
}

int col_runtime_thread_start(int (*start)(void), void (*finish)(void))
{
  if (col_runtime_thread_tid() != 0)
    return -EBUSY; /* a previous experiment's thread never finished */
  stop_requested = drained = 0;
  start_work = start;
  finish_work = finish;
  start_reported = 0;
  col_blocked_signal_reset();
  col_status_figures_from(status_figures);
  col_recording_cost_reset();
  /* The runtime thread walks the program's stacks: its libraries are
   * loaded here, on the thread that starts the experiment (the constructor,
   * GDB's call), where the loader's lock may be taken, and before anything
   * is started that a refusal would leave behind. */
  char why[400];
  if (col_unwind_libraries_load(why, sizeof why) != 0) {
    char err[500];
    snprintf(err, sizeof err, "sampling from inside the program needs its stack-walking libraries: %s", why);
    col_status_write(&col_cfg, "error", err);
    return -1; /* (the status file says why) */
  }
  if (col_data_writers_start() != 0)
    return -ENOMEM;
  if (col_unwind_init() != 0)
    return -ENOMEM;
  col_unwind_forget_modules();

  sigset_t all, old;
  sigfillset(&all);
  col_real_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits this */
  int rc = col_real_pthread_create(&runtime_thread, NULL, runtime_thread_main, NULL);
  col_real_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0)
    return -rc;
  pthread_mutex_lock(&start_lock);
  while (!start_reported)
    pthread_cond_wait(&start_cond, &start_lock);
  rc = start_result;
  pthread_mutex_unlock(&start_lock);
  if (rc != 0)
    pthread_join(runtime_thread, NULL);
  return rc;
}

/* Bounded: never hang the program's exit on the runtime.  The final drain
 * gets DRAIN_WAIT_S, the closing work (archive copies) FINISH_WAIT_S. */
#define DRAIN_WAIT_S 2
#define FINISH_WAIT_S 60

static int join_within(int seconds)
{
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += seconds;
  return pthread_timedjoin_np(runtime_thread, NULL, &deadline);
}

int col_runtime_thread_stop(void)
{
  __atomic_store_n(&stop_requested, 1, __ATOMIC_RELEASE);
  col_runtime_thread_poke();
  if (join_within(DRAIN_WAIT_S) == 0)
    return 0;
  if (!__atomic_load_n(&drained, __ATOMIC_ACQUIRE) || join_within(FINISH_WAIT_S) != 0)
    return -1;
  return 0;
}
