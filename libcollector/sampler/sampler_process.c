/* gdbcol-sampler: clock profiling from outside the program, as `perf
 * record` samples: the program gets no thread, no descriptor and no locked
 * memory, and stays single-threaded if it was.
 *
 *     gdbcol-sampler PID READY_FD PROGRAM [ARGS...]
 *
 * Started by gdbcol-launch (pid PID) before it execs PROGRAM; settings come
 * from the GDBCOL_* environment as for the runtime.  It opens one
 * task-clock event per CPU on PID with `inherit` (threads created later are
 * counted through it) and `enable_on_exec` (counting starts with the
 * program), writes one byte to READY_FD, and the launcher execs.  The exec's
 * COMM record starts the experiment; samples of PID are unwound with the
 * cached frame rules over the files named in /proc/PID/maps and written as
 * the runtime writes them.  When PID ends (also by kill -9) the rings are
 * drained and the experiment closed.  The runtime preloaded in the program
 * keeps no thread and no descriptor: the Collector API's and GDB's requests
 * (samples, pause, resume, the end, an exec) reach us on the control page,
 * as does GDB's stop counter (dbxsample).
 *
 *     gdbcol-sampler --attach PID READY_FD [GO_FD]
 *
 * After `gdb -p`: GDB starts it while the process is stopped; it opens
 * events on every thread (sampler_events.c), starts the experiment, says
 * ready, and leaves GDB's process tree, so it outlives a detach.  With
 * GO_FD, GDB starts it before its calls load the runtime (they let the
 * threads run) and writes "g" there once the process is stopped again:
 * the start-up before the events overlaps with the calls.
 *
 *     gdbcol-sampler --rank PID READY_FD
 *
 * The same, started by the runtime in an MPI rank that no sampler process
 * follows (a rank on another node), before the rank's main. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <limits.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_limit.h"
#include "core/data_writers.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/omp_states.h"
#include "core/runtime_calls.h"
#include "core/sampler_parent.h"
#include "core/recording_cost.h"
#include "core/status_file.h"
#include "core/target.h"
#include "unwind/clock_perf.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "sampler_wake.h"
#include "shared_file.h"
#include "er/er_archive.h"
#include "er/er_format.h"
#include "er/er_text.h"
#include "sampler_descendants.h"
#include "sampler_spawns.h"
#include "sampler_events.h"
#include "sampler_offcpu.h"
#include "sampler_tails.h"
#include "sampler_state.h"
#include "trace_ring.h"
#include "sampler_writers.h"
#include "session_dir.h"

/* The longest wait for the rings: each wake-up costs (86 us of this
 * process's CPU in epoll_wait on this VM), and the kernel's rings, the
 * trace ring, the control page and GDB wake it when they need it sooner
 * (shared/sampler_wake.h).  With 50 ms, the cycle's timeouts were most of
 * its wake-ups (docs/measurements.md, "The sampler's wake-ups"). */
#define CYCLE_MS 250
/* After the founder's end, its descendants' requests (their ends) are
 * taken this often: a fork storm's fill the 64 slots faster. */
#define DESCENDANTS_CYCLE_MS 50
/* A status request seen: the answer waits for a drain past the time it
 * was seen (answer_status_request), this soon. */
#define STATUS_ANSWER_MS 3
#define STATUS_EVERY_NS 1000000000LL

static volatile sig_atomic_t terminated; /* SIGTERM, SIGINT */

static int64_t last_status, last_periodic, last_flush;
static int64_t read_due_in = -1; /* ns until a waiting thread is to be read (sampler_offcpu.h); -1: none */
static int epoll_fd = -1, pidfd = -1;
static int64_t status_asked_seen_at; /* a status request waits for a drain past this time; 0: none */
/* The signal mask of the waits: the wake and termination signals let in
 * (blocked elsewhere: signals_only_in_waits). */
static sigset_t waits_mask;

/* How long the loop may wait for the rings: a status request's answer and
 * the next periodic sample point come on time; a thread that waits is read
 * while it still waits (its stack), so with off-CPU time on the rings are
 * read often enough to see most waits of a few milliseconds while they
 * last. */
static int cycle_ms(void)
{
  if (status_asked_seen_at != 0)
    return STATUS_ANSWER_MS;
  int ms = CYCLE_MS;
  /* a periodic sample point on time (`collector sample period`; as drain_rings logs them) */
  if (col_cfg.sample_period_ms > 0 && sampler.started && !sampler.exec_pending) {
    int64_t due = last_periodic + col_cfg.sample_period_ms * 1000000LL - col_hrtime();
    if (due / 1000000 + 1 < ms)
      ms = due > 0 ? (int)(due / 1000000) + 1 : 1;
  }
  if (!col_cfg.offcpu)
    return ms;
  if (OFFCPU_READ_MS < ms)
    ms = OFFCPU_READ_MS;
  if (read_due_in >= 0 && read_due_in / 1000000 + 1 < ms)
    ms = (int)(read_due_in / 1000000) + 1;
  return ms;
}

/* Until a ring, the program's end or a wake (or TIMEOUT_MS): the events. */
static int wait_for_work(struct epoll_event *events, int max, int timeout_ms)
{
  return epoll_pwait(epoll_fd, events, max, timeout_ms, &waits_mask);
}

/* Data reach the files every FLUSH_EVERY_NS (and at the end), not every
 * cycle: the program's crash cannot lose them (they are in this process),
 * and each flush costs system calls (measured with strace at 1 ms: the
 * per-cycle writes and their file-size checks were 72 % of the sampler's
 * system calls). */
static int64_t drain_rings(int force_flush)
{
  int64_t newest = force_flush ? SAMPLER_ALL_RECORDS : sampler_ring_cutoff(); /* at the end: all there is */
  sampler_sources_take(newest);
  col_modules_settle(newest); /* the program's dlcloses up to the records taken */
  if (!sampler.started)
    return newest;
  if (!force_flush && !sampler.finished)
    read_due_in = sampler_accounts_tick(newest);
  int64_t now = col_hrtime();
  /* Mappings come from the kernel's records; where it gave none (the
   * program samples itself), from /proc when a sample meets an unknown
   * address, and once a second (unloads).  Not between the program's exec
   * request and its new image's start: /proc shows the new image's, which
   * the old experiment's map would get (at the same addresses under GDB:
   * the old image's samples were named after the new program). */
  static int64_t last_rescan;
  int wanted = col_clock_writer_wants_rescan(); /* (asked each round; with perf events, the records answer) */
  if (sampler.clock_in_program && !sampler.exec_pending && (wanted || now - last_rescan > 1000000000LL)) {
    if (col_modules_rescan())
      col_unwind_forget_modules();
    last_rescan = now;
  }
  if (force_flush || now - last_flush >= FLUSH_EVERY_NS) {
    col_data_writers_flush();
    last_flush = now;
  }
  int limit_noted = col_limit_note();
  /* (none after the exec's suspend_for_exec: that experiment has ended) */
  if (col_cfg.sample_period_ms > 0 && !sampler.exec_pending && now - last_periodic >= col_cfg.sample_period_ms * 1000000LL) {
    col_log_sample("periodic");
    last_periodic = now;
  }
  col_progress_refresh();
  if (limit_noted || now - last_status > STATUS_EVERY_NS) {
    col_status_write(&col_cfg, "active", NULL);
    last_status = now;
  }
  return newest;
}

/* GDB asks for a status current to now (`collector status`, most often at
 * a breakpoint: the program is stopped, so everything it did is in the
 * rings by then).  The answer waits for a drain that went past the time
 * the request was first seen; it carries the request's number.  Measured
 * before: after 1 s of CPU at 10 ms, status said 43 samples at a stop
 * (another run 0), the end 100. */
static void answer_status_request(int64_t drained_to)
{
  uint64_t asked = col_control != NULL ? __atomic_load_n(&col_control->status_asked, __ATOMIC_ACQUIRE) : 0;
  if (asked == col_status_answer || !sampler.started)
    return;
  if (status_asked_seen_at == 0) {
    status_asked_seen_at = col_hrtime();
    return;
  }
  if (drained_to < status_asked_seen_at)
    return;
  status_asked_seen_at = 0;
  col_status_answer = asked;
  /* What the threads still hold in their lanes too: at a deadlock's stop,
   * `collector report deadlocks` read no lock order of the two it had. */
  sampler_take_all_lanes();
  col_data_writers_flush(); /* samples count once in the file */
  last_flush = col_hrtime();
  col_progress_refresh();
  col_status_write(&col_cfg, "active", NULL);
  last_status = col_hrtime();
}


/* The sub-experiments in the founder's directory (a writer that follows
 * a =REGEX may have written none), counted at the end for the status. */
static unsigned descendant_experiments;

static unsigned count_descendant_experiments(void)
{
  unsigned n = 0;
  DIR *dir = opendir(col_exp.path);
  for (struct dirent *d; dir != NULL && (d = readdir(dir)) != NULL;) {
    size_t len = strlen(d->d_name);
    n += d->d_name[0] == '_' && len > 3 && strcmp(d->d_name + len - 3, ".er") == 0;
  }
  if (dir != NULL)
    closedir(dir);
  return n;
}

/* What the status file says of this side: the threads seen, the records
 * the kernel lost, the descendants and the program's exec (the figures of
 * the runtime inside the program stay 0 here). */
static void status_figures(struct col_status_figures *out)
{
  struct descendants_figures unrecorded;
  descendants_describe(&unrecorded);
  struct writers_figures writers;
  writers_describe(&writers);
  out->threads_seen = sampler.threads_seen;
  out->records_lost = sampler.lost_records;
  out->descendants_seen = unrecorded.seen;
  out->descendant_samples = unrecorded.samples;
  int64_t kernel_ms = descendants_kernel_cpu_over_samples(&unrecorded);
  out->descendant_cpu_ms = kernel_ms > 0 ? kernel_ms : 0;
  out->descendant_experiments = descendant_experiments;
  out->exec_followed = writers.founder_exec;
}

/* PROGRAM_GONE: the program's process ended (else GDB or a signal asked). */
static void finish(int program_gone)
{
  /* The records first: a descendant's fork record there starts its writer.
   * Deciding before it (a daemon's starter ends right after its middle
   * process) turned the events off under a grandchild whose writer then
   * waited for an exit record forever: 5 runs of 10. */
  writers_note_gone();
  drain_rings(1);
  /* Descendants gone, drained: their writers end now and are waited for
   * below (where perf events are refused, ends are found only so: GDB
   * counted 46 of 50 experiments when some were found later). */
  writers_end_gone();
  if (writers_live() == 0)
    sampler_events_enable(0); /* else descendants still run: they are sampled on */
  /* Every request is in by now: a program that ended without its runtime
   * asking for the end (at exit, _exit, the API) was killed by a signal
   * (kill -9, the end of the GDB that ran it) or crashed.  Said so, not
   * written as a normal exit (before, GDB's death read as one). */
  col_end_without_exit = program_gone && !sampler.close_requested && !sampler.exec_pending && col_control != NULL;
  if (sampler.closing_at == INT64_MAX)
    sampler.closing_at = sampler.last_record_at + 1; /* later records of the founder are not written */
  writers_wait(0); /* descendants that ended have closed their experiments */
  if (sampler.clock_in_program) /* spawns whose child never said it ran: no runtime in it */
    spawns_take_unclaimed(col_target_pid, descendants_unfollowed);
  descendant_experiments = count_descendant_experiments();
  if (sampler.started && !sampler.exec_pending) { /* the threads still there: their tails up to the end */
    int64_t end = sampler.closing_at != INT64_MAX ? sampler.closing_at : sampler.last_record_at;
    uint64_t totals[ER_HWC_MAX_COUNTERS];
    if (sampler_counter_totals(totals, INT64_MAX) == 0)
      tails_finish_counters(col_target_pid, totals, end);
    sampler_accounts_end(end);
    col_data_writers_flush();
  }
  if (!sampler.started) {
    if (sampler.start_failed) /* the status file already says why */
      return;
    /* Perf events refused: the start is the runtime's word, which a
     * program without it (statically linked) never says, though it ran. */
    col_status_write(&col_cfg, "error", sampler.clock_in_program
                                            ? "the collector's runtime never started in the program (perf events "
                                              "are refused here, so the program samples itself, which needs the "
                                              "runtime in it)"
                                            : "the program ended before it started (the exec did not happen)");
    return;
  }
  col_recording_cost_measure(RUSAGE_SELF, CLOCK_PROCESS_CPUTIME_ID);
  sampler_describe();
  if (sampler.exec_pending) {
    col_experiment_finish_after_exec(sampler.exec_what);
  } else {
    col_experiment_finish(sampler.close_reason);
  }
  sampler.finished = 1;
}

/* ---- descendants ------------------------------------------------------------ */

/* The files this process shared with the program's runtime (the control
 * page, the trace ring, which is resident): nothing serves them any more,
 * and the mappings that remain keep their memory until they go.  Then
 * this process leaves the session directories it was in (the last one
 * out removes each). */
static void remove_shared_files(void)
{
  char path[PATH_MAX + 16];
  const char *first_status_path = session_dir_first();
  if (first_status_path[0] == '\0')
    return;
  col_control_path(path, sizeof path, first_status_path);
  col_shared_file_remove(path);
  col_trace_path(path, sizeof path, first_status_path);
  col_shared_file_remove(path);
  session_dir_leave(first_status_path);
  if (strcmp(col_cfg.status_path, first_status_path) != 0)
    session_dir_leave(col_cfg.status_path);
}

/* A descendant's writer, in a fork of this process: the founder's loop
 * (its epoll set, the program's pidfd) is not its own. */
static void run_as_writer(pid_t pid, const char *lineage, int fd, int64_t tstamp, int after_exec, const char *comm)
{
  sigprocmask(SIG_SETMASK, &waits_mask, NULL); /* (nobody wakes a writer: its pipe does) */
  close(epoll_fd);
  close(pidfd);
  sampler_run_as_writer(pid, lineage, fd, tstamp, after_exec, comm);
}

/* After the founder's end: its descendants' records still come through the
 * rings until the last of them has ended (or the sampler is told to end). */
static void serve_descendants(void)
{
  struct epoll_event events[64];
  /* The program's pidfd stays readable once it ended: in the set, every
   * wait returned at once (a sampler at 90 % of a CPU for minutes). */
  epoll_ctl(epoll_fd, EPOLL_CTL_DEL, pidfd, NULL);
  /* (perf events refused, a fork's news is its child's post: a daemon's
   * grandchild speaks after its parent may have gone) */
  while ((writers_live() > 0 || sampler_forks_in_flight()) && !terminated) {
    wait_for_work(events, 64, DESCENDANTS_CYCLE_MS);
    int64_t newest = sampler_ring_cutoff();
    sampler_take_requests(); /* the descendants' */
    sampler_drain_ring_records(newest);
    sampler_take_trace(newest);
    sampler_trace_rearm();
    writers_end_vanished();
    writers_wait(0);
  }
}

/* Root's GDB recording another user's process: the files its runtime maps
 * (the control page, the trace ring) become that user's, as the kernel
 * checks them against its file-system ids.  The experiment stays GDB's
 * user's: we write it. */
static void share_files_with_target(void)
{
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)col_target_pid);
  FILE *f = fopen(path, "re");
  if (f == NULL)
    return;
  long ids[2] = {-1, -1}; /* the file-system uid and gid: the 4th of each line */
  while (fgets(line, sizeof line, f) != NULL) {
    long real, eff, saved, fs;
    int which = strncmp(line, "Uid:", 4) == 0 ? 0 : strncmp(line, "Gid:", 4) == 0 ? 1 : -1;
    if (which >= 0 && sscanf(line + 4, "%ld %ld %ld %ld", &real, &eff, &saved, &fs) == 4)
      ids[which] = fs;
  }
  fclose(f);
  if (ids[0] >= 0 && ids[1] >= 0 && ((uid_t)ids[0] != geteuid() || (gid_t)ids[1] != getegid()))
    col_shared_file_owner((uid_t)ids[0], (gid_t)ids[1]);
}

static void quiet_standard_descriptors(int keep)
{
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; fd++)
    if (fd != keep && null >= 0)
      dup2(null, fd);
  if (null > 2)
    close(null);
}

/* GDB's word that the process stands stopped for the events to be opened
 * (a "g"); its end of the pipe closed (GDB gave up) is a no. */
static int told_to_go(int go_fd)
{
  char word = 0;
  ssize_t n;
  do
    n = read(go_fd, &word, 1);
  while (n < 0 && errno == EINTR && !terminated);
  close(go_fd);
  return n == 1 && word == 'g';
}

static void on_terminate(int sig)
{
  terminated = sig;
}

/* SIGTERM or SIGINT (GDB's plugin when the runtime could not join us, or a
 * user) ends the experiment properly; the program runs on. */
static void wake_up(int sig)
{
  (void)sig; /* the wait returns (EINTR): the rings are drained at once */
}

static void close_on_termination_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_terminate;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sa.sa_handler = wake_up;
  sa.sa_flags = SA_RESTART; /* (the other calls go on; epoll_pwait is never restarted) */
  sigaction(COL_SAMPLER_WAKE_SIGNAL, &sa, NULL);
}

/* From the loop's start: the wake and the termination signals only inside
 * the waits (one that comes while the loop works ends the next wait at
 * once, never after a whole cycle). */
static void signals_only_in_waits(void)
{
  static const int taken[] = {COL_SAMPLER_WAKE_SIGNAL, SIGTERM, SIGINT};
  sigset_t blocked;
  sigemptyset(&blocked);
  for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
    sigaddset(&blocked, taken[i]);
  sigprocmask(SIG_BLOCK, &blocked, &waits_mask);
  for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
    sigdelset(&waits_mask, taken[i]);
}

/* The runtime the program maps is this file's sibling (installed
 * together): its marker sections give clock samples their OpenMP state. */
static void omp_states_from_runtime_beside(void)
{
  char self[PATH_MAX], runtime[PATH_MAX + 32], real[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (slash == NULL)
    return;
  *slash = '\0';
  snprintf(runtime, sizeof runtime, "%s/libcollector.so", self);
  if (realpath(runtime, real) != NULL)
    col_omp_states_init(real);
}

static void usage(void)
{
  fprintf(stderr, "usage: gdbcol-sampler PID READY_FD PROGRAM [ARGS...]   (started by gdbcol-launch)\n"
                  "       gdbcol-sampler --attach PID READY_FD [GO_FD] (started by GDB's collector enable)\n"
                  "       gdbcol-sampler --rank PID READY_FD            (started by an MPI rank on another node)\n"
                  "       gdbcol-sampler --self PID READY_FD            (started by the program's runtime before main)\n");
}

/* Where the kernel refuses perf events (ERR: its errno): this
 * process still records the experiment, and the program's threads sample
 * themselves with CPU-time timers, their samples coming through the trace
 * ring (the control page tells the runtime before the program runs).  At
 * launch the experiment starts when the runtime says it samples; its
 * mappings come from /proc.  0, or -1 where that cannot be (not a
 * refusal, no clock wanted, no ring). */
static int clock_in_program(int err)
{
  int refused = err == EACCES || err == EPERM || err == ENOSYS || err == ENOENT || err == EOPNOTSUPP;
  if (!refused || col_control == NULL || sampler_trace_for_clock() != 0)
    return -1;
  if (col_cfg.n_hwc > 0) { /* (GDB refuses them when typed where it sees the refusal itself) */
    col_log_final_warning(COL_WARN_TEXT, "hardware counter profiling not recorded: the kernel refused perf events "
                          "(perf_event_open: %s), which counters need", strerror(err));
    col_status_add_note("counters not recorded: the kernel refused perf events, which they need");
    col_cfg.n_hwc = 0;
  }
  sampler.clock_in_program = 1;
  col_clock_source_count_perf(err > 0 ? err : EACCES); /* why, in log.xml and the status */
  col_modules_restart(); /* mappings from /proc/PID/maps, rescanned */
  col_control->stack_bytes_in_program = (int64_t)col_cfg.stack_copy_bytes; /* (published by the store below) */
  __atomic_store_n(&col_control->clock_in_program_us,
                   col_cfg.clock_interval_us > 0 ? (int64_t)col_cfg.clock_interval_us : -1, __ATOMIC_RELEASE);
  return 0;
}

/* Opens the events; after an attach also starts the experiment, whose run
 * begins now (at launch, the exec's COMM record begins it). */
static int begin(int epoll_fd, char *err, size_t err_len)
{
  uint64_t intervals[ER_HWC_MAX_COUNTERS];
  for (int i = 0; i < col_cfg.n_hwc; i++)
    intervals[i] = col_cfg.hwc[i].interval;
  tails_set_counters((unsigned)col_cfg.n_hwc, intervals);
  int opened = sampler.attached ? sampler_open_for_attach(col_target_pid, err, err_len)
                                : sampler_open_for_launch(col_target_pid, err, err_len);
  if (opened != 0 && clock_in_program(-opened) == 0) {
    if (!sampler.attached)
      return 0; /* the experiment starts when the runtime samples */
    opened = 0;  /* an attach: it starts now, the runtime arms the threads when GDB lets it */
    err[0] = '\0';
  }
  struct sampler_events_figures events;
  sampler_events_describe(&events);
  if (!sampler.attached || opened != 0)
    return opened;
  col_run_started_at = col_hrtime();
  sampler_accounts_start(col_run_started_at, 0); /* threads there may have waited since before */
  sampler_start_experiment(); /* the mappings: /proc/PID/maps now, records later */
  sampler_mappings_from_records();
  if (sampler.start_failed) {
    snprintf(err, err_len, "%s", ""); /* the status file says why */
    return -1;
  }
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  char how[160];
  if (sampler.clock_in_program)
    snprintf(how, sizeof how, "the kernel refused it perf events, so the program's threads sample themselves and "
             "this process writes their samples");
  else
    snprintf(how, sizeof how, "it opened events on the program's %u thread(s)", events.attached_threads);
  if (sampler.started_by_rank)
    col_log_comment("Collection started at %s by an MPI rank outside the process tree the job's sampler process "
                    "follows (a rank on another node), before its main: this sampler process is the rank's own; %s",
                    when, how);
  else if (sampler.started_by_self)
    col_log_comment("Collection started at %s before the program's main: GDB ran it without the collector's "
                    "launcher (startup-with-shell off, or the user's exec-wrapper), so the runtime started this "
                    "sampler process; %s; the dynamic loader's start is not recorded", when, how);
  else if (sampler.clock_in_program)
    col_log_comment("Collection started in a running process at %s: GDB attached; the kernel refused perf events, "
                    "so the program's threads sample themselves (armed by the runtime GDB loaded)", when);
  else
    col_log_comment("Collection started in a running process at %s: GDB attached; the sampler process opened "
                    "events on its %u thread(s)", when, events.attached_threads);
  sampler_events_enable(1);
  return 0;
}

int main(int argc, char **argv)
{
  /* --rank: an MPI rank on another node starts its own (runtime/outside_rank.c) */
  sampler.started_by_rank = argc == 4 && strcmp(argv[1], "--rank") == 0;
  /* --self: GDB started the program without gdbcol-launch (startup-with-shell
   * off, or the user's own exec-wrapper, which must stay the only one) */
  sampler.started_by_self = argc == 4 && strcmp(argv[1], "--self") == 0;
  sampler.attached = sampler.started_by_rank || sampler.started_by_self ||
                     ((argc == 4 || argc == 5) && strcmp(argv[1], "--attach") == 0);
  if (argc < 4 || (!sampler.attached && argv[1][0] == '-')) {
    usage();
    return 2;
  }
  col_target_pid = (pid_t)atoi(argv[sampler.attached ? 2 : 1]);
  int ready_fd = atoi(argv[sampler.attached ? 3 : 2]);
  /* GDB starts us before it loads the runtime and says "go" once the
   * process is stopped again: what comes before overlaps with its calls. */
  int go_fd = sampler.attached && argc == 5 ? atoi(argv[4]) : -1;
  /* GDB's child stays one (GDB reaps it); the child of a program's runtime
   * leaves it (runtime/sampler_start.h). */
  if (sampler.attached && !col_sampler_parent_is_gdb() && fork() != 0)
    _exit(0);
  setsid(); /* the terminal's signals are the program's, not ours */
  quiet_standard_descriptors(ready_fd);
  close_on_termination_signals();
  size_t used = 0;
  for (int i = 3; !sampler.attached && i < argc && used < sizeof col_target_command - 1; i++)
    used += (size_t)snprintf(col_target_command + used, sizeof col_target_command - used, "%s%s",
                             i > 3 ? " " : "", argv[i]);
  col_config_from_environment(&col_cfg);
  omp_states_from_runtime_beside();
  if (!sampler.attached)
    col_modules_use_records();
  col_calls_set_runtime_thread(gettid(), NULL);
  col_status_figures_from(status_figures);
  col_private_descriptors = 1; /* a process of its own */
  sampler.tid_seen_bits = 1u << 22;
  sampler.tid_seen = calloc(sampler.tid_seen_bits / 8, 1);
  session_dir_begin(col_cfg.status_path);
  if (sampler.attached && geteuid() == 0)
    share_files_with_target();
  int control_rc = col_cfg.status_path[0] != '\0' ? col_control_create(col_cfg.status_path) : 0;
  if (control_rc != 0) /* before "ready": the runtime maps it at start; without it, it stays inert */
    col_status_add_note("the control page could not be made beside %.300s (%s): the program's requests (its exit, "
                        "pause, sample points) are not seen", col_cfg.status_path, strerror(-control_rc));
  char trace_err[PATH_MAX + 100] = "";
  if (sampler_trace_begin(trace_err, sizeof trace_err) != 0)
    col_tracing_off(&col_cfg); /* said in the experiment's log below */
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  pidfd = (int)syscall(SYS_pidfd_open, col_target_pid, 0);
  char follow_err[300] = "";
  if (er_follow_parse(col_cfg.descendants, &sampler.follow, follow_err, sizeof follow_err) != 0)
    er_follow_parse("on", &sampler.follow, NULL, 0); /* GDB checked it: only a hand-made setting gets here */
  writers_init(col_target_pid, run_as_writer, sampler_take_lanes_of, sampler.follow.mode == ER_FOLLOW_NONE);
  char err[300];
  if (go_fd >= 0 && !told_to_go(go_fd)) {
    remove_shared_files(); /* GDB gave up (its own error says why) */
    return 0;
  }
  if (sampler.tid_seen == NULL || epoll_fd < 0 || pidfd < 0 || col_unwind_init() != 0 ||
      begin(epoll_fd, err, sizeof err) != 0) {
    if (pidfd < 0 || epoll_fd < 0 || sampler.tid_seen == NULL)
      snprintf(err, sizeof err, "the sampler process could not start: %s", strerror(errno));
    if (err[0] != '\0')
      col_status_write(&col_cfg, "error", err);
    if (write(ready_fd, "E", 1) < 0) {
    }
    remove_shared_files();
    return 1;
  }
  sampler_events_watch(epoll_fd);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = pidfd};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, pidfd, &ev);
  /* At launch the launcher learns our pid with the answer: under Yama's
   * scope 1 the program declares us its tracer (gdbcol_launch.c), so that
   * waiting threads can be read (blocked_stack.h). */
  char ready[32];
  int ready_len = sampler.attached && !sampler.started_by_self ? snprintf(ready, sizeof ready, "R")
                                                               : snprintf(ready, sizeof ready, "R%d", (int)getpid());
  if (write(ready_fd, ready, (size_t)ready_len) < 0) {
  }
  close(ready_fd);
  last_status = last_periodic = col_hrtime();
  struct epoll_event events[64];
  int ended = 0;
  signals_only_in_waits();
  while (!ended && !sampler.finished) {
    int n = wait_for_work(events, 64, cycle_ms());
    if (terminated) {
      sampler.close_reason = "the sampler process was asked to end: by GDB when the runtime in the program "
                             "could not join it, or by a signal a user sent";
      sampler.closing_at = col_hrtime();
      sampler.finished = 1;
    }
    for (int i = 0; i < n; i++)
      if (events[i].data.fd == pidfd)
        ended = 1; /* the program is gone (exit, kill -9, exec failure) */
    answer_status_request(drain_rings(0));
    writers_end_vanished();
  }
  finish(ended);
  /* The program exited: its descendants run on.  Its runtime's request to
   * close at exit may come a round before the process is gone (then the
   * loop ends on the request): the same end.  A daemon's grandchild was
   * lost so, its route closed at once (1 run in 25 with the CPUs busy). */
  if (ended || (sampler.close_requested && col_close_is_program_end(sampler.close_reason)))
    serve_descendants();
  writers_wait(1);       /* else (disable, a signal) theirs end with it */
  remove_shared_files();
  return 0;
}
