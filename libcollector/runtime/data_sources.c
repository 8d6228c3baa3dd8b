/* The data sources that run inside the program, in one registry: each is
 * configured from the settings, started with the experiment (at launch, by
 * an attach, in a descendant), told of the program's threads starting and
 * ending, of pauses and resumes, and stopped when the experiment ends.
 * A new source (heap tracing, a counter fallback) is one entry here.
 *
 * What they record is drained and written where the experiment's files
 * are written: by the data writers (core/data_writers.c), in the sampler
 * process (sampler/sampler_sources.c, which also says in log.xml what
 * each source recorded and lost) or on the runtime's own thread when the
 * program samples itself.  A pause is applied there, by the time each
 * record carries; a source's pause hook only saves the program the work
 * of recording what would be dropped. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/hrtime.h"
#include "core/runtime_calls.h"
#include "inprocess/clock_sources.h"
#include "interpose/descendant_carrier.h"
#include "runtime/data_sources.h"
#include "inprocess/runtime_thread_wakeup.h"
#include "inprocess/threads.h"
#include "control_page.h"
#include "er/er_data_kinds.h"
#include "interposed.h"
#include "sampler_wake.h"
#include "trace_record.h"
#include "trace_ring.h"

struct data_source {
  const char *what;
  int (*wanted)(void);
  void (*start)(enum col_start_how how);
  /* Nonzero when the thread now needs thread_stop at its end. */
  int (*thread_start)(pid_t tid);
  void (*thread_stop)(pid_t tid);
  void (*pause)(void);
  void (*resume)(void);
  void (*stop)(void);
};

/* ---- clock samples from inside (the fallback where no sampler process runs) */

static int clock_inside_wanted(void)
{
  return !col_cfg.sampled_outside && col_cfg.clock_interval_us > 0;
}

/* The threads already running when the runtime arrived (runtime thread). */
static void arm_running_threads(void *unused)
{
  col_scan_threads(col_runtime_thread_tid());
}

static void clock_inside_start(enum col_start_how how)
{
  if (how == COL_START_ATTACH)
    col_on_runtime_thread(arm_running_threads, NULL); /* it lists /proc/self/task */
  else
    col_clock_start_thread(gettid());
}

static int clock_inside_thread_start(pid_t tid)
{
  return col_clock_start_thread(tid) == 0;
}

static void clock_inside_thread_stop(pid_t tid)
{
  col_clock_stop_thread(col_thread_find(tid));
}

/* ---- traced calls (every traced kind): events onto the trace ring -------- */

static int traced_calls_wanted(void)
{
  return col_cfg.sampled_outside; /* the ring is there when a tracing kind is on */
}

/* Heap tracing at launch where the program's malloc is found before ours
 * (AddressSanitizer's runtime, which must be preloaded first, or an
 * allocator built into the program): its allocations never reach our
 * wrappers, which the sampler says (else GDB would only say "0
 * allocations").  Asked in the constructor,
 * after that library started (never from a wrapper: see interpose.c). */
static void tell_heap_elsewhere(enum col_start_how how)
{
  Dl_info where;
  void *program_malloc = dlsym(RTLD_DEFAULT, "malloc");
  if (how == COL_START_ATTACH || !col_trace_kind_on(col_trace, ER_KIND_HEAP) || program_malloc == NULL ||
      program_malloc == (void *)col_wrap_malloc || !dladdr(program_malloc, &where) || where.dli_fname == NULL)
    return;
  const char *base = strrchr(where.dli_fname, '/');
  col_control_post(COL_CTL_HEAP_ELSEWHERE, base != NULL ? base + 1 : where.dli_fname, 0);
}

static void traced_calls_start(enum col_start_how how)
{
  col_trace_record_pause(0);
  int rc = col_trace_attach(col_cfg.status_path);
  if (rc == 0) {
    col_trace_record_init();
    /* (where perf events are refused, the experiment starts only with the
     * clock source below: told there, or the sampler would drop it) */
    if (!(col_control_perf_refused() && how == COL_START_LAUNCH))
      tell_heap_elsewhere(how);
  } else if (rc != -ENOENT) { /* no ring: no tracing asked for, or the sampler said why */
    col_control_post(COL_CTL_TRACE_UNMAPPED, "", -rc);
  }
}

static void traced_calls_pause(void)
{
  col_trace_record_pause(1);
}

static void traced_calls_resume(void)
{
  col_trace_record_pause(0);
}

/* ---- clock samples the program takes for the sampler process ------------ */

/* Where the kernel refused the sampler process perf events, it still runs
 * (it writes the experiment, takes the traced calls, reads /proc), and the
 * program's threads sample themselves: CPU-time timers whose samples go
 * onto the trace ring (clock_timer.c), armed by each thread itself, with
 * no runtime thread in the program (docs/design.md). */
static int clock_for_sampler_wanted(void)
{
  return col_cfg.sampled_outside && col_control_perf_refused();
}

/* Arming is the runtime's own work (glibc's pthread_getattr_np allocates):
 * not traced as the program's calls. */
static int arm_untraced(pid_t tid)
{
  int rc;
  COL_AS_RUNTIME(rc = col_clock_start_thread_here(tid));
  return rc;
}

/* The sampler opens the experiment on the request, reading the program's
 * mappings from /proc: while the program waits here, before its main (a
 * short program would have ended, its mappings gone, before the sampler's
 * next cycle).  Woken at once; bounded (a sampler that is gone). */
#define SAMPLER_WAIT_MS 2000

/* Until the sampler has set *FIELD to AT_LEAST or more (woken at once;
 * bounded, and not for a sampler that is gone). */
static void wait_for_sampler(const int64_t *field, int64_t at_least)
{
  pid_t sampler = col_trace->sampler_pid;
  if (sampler > 0)
    kill(sampler, COL_SAMPLER_WAKE_SIGNAL);
  col_control_wait_for(field, at_least, SAMPLER_WAIT_MS, sampler);
}

static void wait_for_experiment(void)
{
  wait_for_sampler(&col_control->experiment_run_tstamp, 1);
}

/* After an attach: every thread there (GDB keeps the process stopped), each
 * armed from here (a CPU-time timer can be made for any thread of the
 * process); their stacks are found among the writable mappings.  A thread
 * whose mask blocks the timer signal stays unsampled (no system call
 * changes another thread's mask) until it changes its mask itself,
 * through our wrappers: counted and said. */
static void arm_running_threads_here(void)
{
  col_timer_read_stacks();
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task");
  DIR *dir = opendir(path);
  int blocking = 0;
  for (struct dirent *d; dir != NULL && (d = readdir(dir)) != NULL;) {
    pid_t tid = (pid_t)atoi(d->d_name);
    if (tid > 0 && !col_thread_known(tid) && arm_untraced(tid) == 0 && tid != gettid())
      blocking += col_thread_blocks_timer_signal(tid) == 1;
  }
  if (dir != NULL)
    closedir(dir);
  if (blocking > 0) /* never a silent zero */
    col_control_post(COL_CTL_BLOCKED_THREADS, "", blocking);
}

static void clock_for_sampler_start(enum col_start_how how)
{
  if (col_trace == NULL)
    return; /* (the sampler makes the ring first) */
  /* (no clock profiling: nothing armed, the experiment's start and the
   * descendants' news said all the same) */
  col_cfg.clock_interval_us = col_control_clock_in_program() ? col_control->clock_in_program_us : 0;
  if (col_control->stack_bytes_in_program > 0) /* (a descendant's runtime loaded no settings: 0 before) */
    col_cfg.stack_copy_bytes = (size_t)col_control->stack_bytes_in_program;
  col_cfg.force_timer_source = 1;
  col_timer_to_trace_ring(1);
  if (how == COL_START_ATTACH) { /* the sampler opened the experiment before it said it was ready */
    if (col_cfg.clock_interval_us > 0)
      arm_running_threads_here();
    return;
  }
  if (how == COL_START_DESCENDANT) { /* a new image (an exec): what the kernel's exec record would say */
    char text[100], comm[16] = "";
    prctl(PR_GET_NAME, comm, 0, 0, 0);
    snprintf(text, sizeof text, "%d %s", (int)getppid(), comm);
    int64_t asked_at = col_hrtime();
    if (col_control_post(COL_CTL_EXECED, text, 0) == 0)
      wait_for_sampler(&col_control->news_taken_tstamp, asked_at);
    arm_untraced(gettid());
    return;
  }
  col_control_post(COL_CTL_CLOCK_IN_PROGRAM, "", 0); /* the experiment starts: samples come after it */
  wait_for_experiment();
  tell_heap_elsewhere(how);
  arm_untraced(gettid());
}

/* (called by the new thread itself, at its start) */
static int clock_for_sampler_thread_start(pid_t tid)
{
  int rc = -1;
  if (col_trace != NULL && tid == gettid())
    COL_AS_RUNTIME(rc = col_clock_start_new_thread_here());
  return rc == 0;
}

/* The end: every thread's timer stopped, with what it ran since its
 * last sample (the process's exit: the threads still running end with
 * it). */
static void clock_for_sampler_stop(void)
{
  col_clock_stop_all_here();
}

void col_sources_unloading(void)
{
  if (col_trace == NULL || !clock_for_sampler_wanted())
    return;
  int64_t asked_at = col_hrtime();
  if (col_control_post(COL_CTL_UNLOADING, "", 0) == 0)
    wait_for_sampler(&col_control->news_taken_tstamp, asked_at);
}

void col_sources_exec_starting(int64_t asked_at)
{
  if (col_trace != NULL && clock_for_sampler_wanted())
    wait_for_sampler(&col_control->news_taken_tstamp, asked_at);
}

void col_sources_forked_child(pid_t ppid, pid_t ptid, int64_t forked_at)
{
  char text[64];
  snprintf(text, sizeof text, "%d %d %lld", (int)ppid, (int)ptid, (long long)forked_at);
  int64_t asked_at = col_hrtime();
  int posted = col_control_post(COL_CTL_FORKED, text, 0) == 0;
  if (col_trace == NULL)
    return;
  if (posted)
    wait_for_sampler(&col_control->news_taken_tstamp, asked_at);
  col_threads_forked(); /* the parent's threads' slots: their timers are not the child's */
  arm_untraced(gettid());
}

int col_sources_raw_thread_start(void *stack_top)
{
  /* (arming only: glibc's calls here would take its creator's thread
   * descriptor for its own) */
  return clock_for_sampler_wanted() && col_trace != NULL && col_cfg.clock_interval_us > 0 &&
         col_clock_start_raw_thread_here((uintptr_t)stack_top) == 0;
}

static void clock_for_sampler_thread_stop(pid_t tid)
{
  col_clock_stop_thread_here(col_thread_find(tid));
}

static const struct data_source sources[] = {
    {"clock samples from inside the program (timers or perf events per thread)", clock_inside_wanted,
     clock_inside_start, clock_inside_thread_start, clock_inside_thread_stop, NULL, NULL, NULL},
    {"traced calls (every traced kind) onto the trace ring", traced_calls_wanted, traced_calls_start,
     NULL, NULL, traced_calls_pause, traced_calls_resume, NULL},
    /* after the traced calls: the ring is mapped by then */
    {"clock samples the program takes for the sampler process (perf events refused)", clock_for_sampler_wanted,
     clock_for_sampler_start, clock_for_sampler_thread_start, clock_for_sampler_thread_stop, NULL, NULL,
     clock_for_sampler_stop},
};
#define N_SOURCES (sizeof sources / sizeof sources[0])

/* Which sources this experiment runs, decided at its start. */
static unsigned running;

#define EACH_RUNNING(i) \
  for (size_t i = 0; i < N_SOURCES; i++) \
    if (__atomic_load_n(&running, __ATOMIC_ACQUIRE) & (1u << i))

void col_sources_start(enum col_start_how how)
{
  unsigned now = 0;
  for (size_t i = 0; i < N_SOURCES; i++)
    if (sources[i].wanted())
      now |= 1u << i;
  __atomic_store_n(&running, now, __ATOMIC_RELEASE);
  EACH_RUNNING(i)
  if (sources[i].start != NULL)
    sources[i].start(how);
}

int col_sources_thread_start(pid_t tid)
{
  int needs_stop = 0;
  EACH_RUNNING(i)
  if (sources[i].thread_start != NULL && sources[i].thread_start(tid))
    needs_stop = 1;
  return needs_stop;
}

/* A thread that named itself (pthread_setname_np) tells its name as it
 * ends: where perf events are refused no kernel record of the rename
 * reaches the sampler, and the thread is gone from /proc by the
 * experiment's end (core/thread_names.c). */
static void tell_thread_name(void)
{
  int saved = errno; /* (the thread's own, as it ends) */
  char name[17] = "";
  if (prctl(PR_GET_NAME, name) == 0 && name[0] != '\0' &&
      strncmp(name, program_invocation_short_name, sizeof name - 1) != 0)
    col_control_post(COL_CTL_THREAD_NAME, name, 0);
  errno = saved;
}

void col_sources_thread_stop(pid_t tid)
{
  tell_thread_name();
  EACH_RUNNING(i)
  if (sources[i].thread_stop != NULL)
    sources[i].thread_stop(tid);
}

void col_sources_pause(void)
{
  EACH_RUNNING(i)
  if (sources[i].pause != NULL)
    sources[i].pause();
}

void col_sources_resume(void)
{
  EACH_RUNNING(i)
  if (sources[i].resume != NULL)
    sources[i].resume();
}

void col_sources_stop(void)
{
  EACH_RUNNING(i)
  if (sources[i].stop != NULL)
    sources[i].stop();
  __atomic_store_n(&running, 0, __ATOMIC_RELEASE);
}
