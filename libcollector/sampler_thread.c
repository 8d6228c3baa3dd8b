/* The runtime's own thread.  It drains every thread's captures (perf ring
 * buffers, timer rings), unwinds them, deduplicates stacks and writes
 * data.frameinfo and profile.  Being the only writer of those files it needs
 * no locks; it flushes every cycle (at most ~50 ms), so a killed process
 * loses at most that much.  It runs with every signal blocked so that the
 * program's process-directed signals never land on it. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "collector_internal.h"
#include "er/er_format.h"
#include "er/er_stacks.h"

#define CYCLE_MS 50
#define MAPS_RESCAN_NS 1000000000LL
#define STATUS_EVERY_NS 1000000000LL
#define THREAD_SCAN_NS 100000000LL

uint64_t col_samples_written, col_ticks_written;
double col_sampler_cpu_seconds;

static int epoll_fd = -1, wake_fd = -1;
static pthread_t sampler;
static int stop_requested, finished;
static struct er_cursor *profile_out, *frames_out;
static struct er_idset seen_stacks;
static int64_t last_rescan, last_status, last_thread_scan, last_periodic_sample;
static int rescan_wanted;
static pid_t sampler_tid;
int col_patch_got; /* injected: keep new objects' GOT slots pointed at us */

static void write_clock_packet(const struct col_capture *cap, void *arg)
{
  if (col_paused_at(cap->tstamp) || col_limit_reached())
    return; /* taken while collection was paused, or past the data limit */
  uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  size_t n = col_unwind(cap, pcs, ER_MAX_STACK_DEPTH + 1);
  if (!col_modules_knows_pc(pcs[0]))
    rescan_wanted = 1; /* probably a library loaded since the last scan */
  uint32_t frames_before = frames_out->used;
  uint64_t frinfo = er_frameinfo_record(frames_out, &seen_stacks, pcs, n);
  if (frinfo == 0 && col_limit_reached())
    return; /* its stack did not fit: the packet would point at nothing */
  if (frames_out->used != frames_before)
    er_cursor_flush(frames_out); /* a stack reaches disk before its users */
  struct er_clock_packet p;
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_CLOCK;
  p.lwpid = p.thrid = (uint64_t)cap->tid;
  p.cpuid = cap->cpu;
  p.tstamp = cap->tstamp;
  p.frinfo = frinfo;
  p.mstate = ER_MSTATE_LINUX_CPU;
  p.ntick = (int32_t)cap->weight;
  if (er_cursor_append(profile_out, &p, sizeof p) == 0) {
    col_samples_written++;
    col_ticks_written += cap->weight;
  }
}

static void drain_thread(struct col_thread *t)
{
  if (t->source == COL_SOURCE_PERF)
    col_perf_drain(t, write_clock_packet, NULL);
  else if (t->source == COL_SOURCE_TIMER)
    col_timer_drain(t, write_clock_packet, NULL);
}

static void retire_thread(struct col_thread *t)
{
  drain_thread(t);
  if (t->source == COL_SOURCE_PERF)
    col_perf_release(t);
  col_thread_release(t);
}

uint64_t col_lost_samples;

static void drain_all(void)
{
  int64_t now = col_hrtime();
  if (rescan_wanted || now - last_rescan > MAPS_RESCAN_NS) {
    if (col_modules_rescan())
      col_unwind_forget_modules();
    last_rescan = now;
    rescan_wanted = 0;
  }
  if (col_patch_got)
    col_got_patch_new_objects(); /* a dlopen since the last cycle */
  col_control_note_stops();
  if (col_cfg.sample_period_ms > 0 && now - last_periodic_sample >= col_cfg.sample_period_ms * 1000000LL) {
    col_log_sample("periodic"); /* one overview record per period (§7) */
    last_periodic_sample = now;
  }
  if (now - last_thread_scan > THREAD_SCAN_NS) {
    col_scan_threads(sampler_tid);
    last_thread_scan = now;
  }
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) != 1)
      continue;
    if (__atomic_load_n(&t->retired, __ATOMIC_ACQUIRE)) {
      col_lost_samples += t->lost;
      retire_thread(t);
    } else {
      drain_thread(t);
    }
  }
  er_cursor_flush(frames_out);
  er_cursor_flush(profile_out);
  col_limit_note();
  col_progress_refresh();
  if (now - last_status > STATUS_EVERY_NS) {
    col_status_write(&col_cfg, "active", NULL);
    last_status = now;
  }
}

static void *sampler_main(void *unused)
{
  prctl(PR_SET_NAME, "gdbcol-sampler");
  last_thread_scan = last_periodic_sample = col_hrtime();
  __atomic_store_n(&sampler_tid, (pid_t)gettid(), __ATOMIC_RELEASE);
  struct epoll_event events[64];
  while (!__atomic_load_n(&stop_requested, __ATOMIC_ACQUIRE)) {
    int n = epoll_wait(epoll_fd, events, 64, CYCLE_MS);
    for (int i = 0; i < n; i++)
      if (events[i].data.fd == wake_fd) {
        uint64_t count;
        while (read(wake_fd, &count, sizeof count) < 0 && errno == EINTR)
          ;
      }
    drain_all();
  }
  drain_all();
  /* The experiment ends: every slot is drained and freed, so that a later
   * experiment in this process starts from an empty table. */
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == 1) {
      col_lost_samples += t->lost;
      retire_thread(t);
    }
  }
  struct timespec cpu;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  col_sampler_cpu_seconds = cpu.tv_sec + cpu.tv_nsec / 1e9;
  __atomic_store_n(&finished, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *map_zeroed(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

int col_sampler_start(void)
{
  stop_requested = finished = 0;
  rescan_wanted = 0;
  col_samples_written = col_ticks_written = col_lost_samples = 0;
  col_sampler_cpu_seconds = 0;
  if (profile_out == NULL)
    profile_out = map_zeroed(sizeof *profile_out);
  if (frames_out == NULL)
    frames_out = map_zeroed(sizeof *frames_out);
  if (profile_out == NULL || frames_out == NULL)
    return -ENOMEM;
  er_cursor_init(profile_out, &col_exp.profile);
  er_cursor_init(frames_out, &col_exp.frameinfo);
  static int seen_stacks_ready;
  if (seen_stacks_ready)
    er_idset_destroy(&seen_stacks); /* a new experiment: a new data.frameinfo */
  er_idset_init(&seen_stacks);
  seen_stacks_ready = 1;
  if (col_unwind_init() != 0)
    return -ENOMEM;
  col_unwind_forget_modules();
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd < 0 || wake_fd < 0)
    return -errno;
  col_sampler_watch_fd(wake_fd);
  last_rescan = last_status = col_hrtime();

  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits this */
  __atomic_store_n(&sampler_tid, 0, __ATOMIC_RELEASE);
  int rc = col_real_pthread_create(&sampler, NULL, sampler_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0)
    return -rc;
  /* Callers need the sampler's thread id (it must never sample itself). */
  for (int spins = 0; spins < 100000 && __atomic_load_n(&sampler_tid, __ATOMIC_ACQUIRE) == 0; spins++)
    sched_yield();
  return 0;
}

pid_t col_sampler_tid(void)
{
  return __atomic_load_n(&sampler_tid, __ATOMIC_ACQUIRE);
}

void col_sampler_watch_fd(int fd)
{
  struct epoll_event ev;
  memset(&ev, 0, sizeof ev);
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

void col_sampler_poke(void)
{
  uint64_t one = 1;
  if (wake_fd >= 0)
    while (write(wake_fd, &one, sizeof one) < 0 && errno == EINTR)
      ;
}

int col_sampler_stop(void)
{
  __atomic_store_n(&stop_requested, 1, __ATOMIC_RELEASE);
  col_sampler_poke();
  /* Bounded: never hang the program's exit on the runtime. */
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 2;
  if (pthread_timedjoin_np(sampler, NULL, &deadline) != 0)
    return -1;
  close(epoll_fd);
  close(wake_fd);
  epoll_fd = wake_fd = -1;
  return __atomic_load_n(&finished, __ATOMIC_ACQUIRE) ? 0 : -1;
}
