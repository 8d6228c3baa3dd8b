/* Lifecycle of the runtime: open the experiment before main, close it when
 * the process ends (return from main, exit, _exit), and stay out of the way
 * everywhere else.  A crash or kill leaves a readable experiment because
 * everything written is already complete on disk (see experiment_log.c and
 * the sampler process's or the runtime thread's flush cycle). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/config.h"
#include "core/experiment_control.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/job_rank.h"
#include "core/omp_states.h"
#include "core/runtime_calls.h"
#include "core/status_file.h"
#include "interpose/descendant_carrier.h"
#include "interpose/got_patch.h"
#include "interpose/own_calls.h"
#include "interpose/tsan_frames.h"
#include "interpose/omp_marks.h"
#include "interpose/runtime_hooks.h"
#include "runtime/collection_state.h"
#include "runtime/collector_main.h"
#include "core/hrtime.h"
#include "runtime/data_sources.h"
#include "runtime/job_forwarding.h"
#include "runtime/never_sampled_frame.h"
#include "runtime/outside_rank.h"
#include "runtime/program_requests.h"
#include "runtime/sampler_start.h"
#include "inprocess/runtime_thread.h"
#include "unwind/clock_perf.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "trace_record.h"
#include "trace_ring.h"
#include "er/er_archive.h"
#include "er/er_group.h"
#include "er/er_text.h"


static const char *close_reason = "exit";

/* Processes the program made while sampled from inside: none of them is
 * recorded (only the sampler process follows descendants).  Counted in the
 * parent at each fork, said once at the end (before, nothing was said:
 * a daemon's work simply did not appear). */
static unsigned forks_unrecorded;

/* The thread that forks, for its child's fork announcement (the child's
 * own tid differs). */
/* The forking process and thread, noted before the fork: in the child,
 * getppid() names the reaper once the parent has ended (a daemon's first
 * child exits at once). */
static pid_t forking_pid, forking_tid;
/* When: the fork's time for the sampler where no kernel record gives it
 * (perf events refused), before the call (a spawn that made it, say
 * posix_spawn's or clone()'s, may have returned before the child speaks). */
static int64_t forking_at;

static void note_forking_thread(void)
{
  forking_pid = getpid();
  forking_tid = (pid_t)gettid();
  forking_at = col_hrtime();
  if (col_control != NULL && col_control_perf_refused() && col_state_collecting_anywhere())
    __atomic_add_fetch(&col_control->forks_begun, 1, __ATOMIC_RELEASE); /* (its child says it began) */
}

/* A fork's child, in its fork handler, or a vfork's, before its exec: one
 * of the forked children the sampler counts against its fork records
 * (control_page.h), once however many execs a vfork's child tries
 * (execvp's path search).  (A vfork's child writes the parent's memory:
 * the pid kept is the child's, harmless to the parent.) */
static void count_forked_child(void)
{
  static pid_t counted;
  pid_t self = getpid();
  if (col_control != NULL && __atomic_exchange_n(&counted, self, __ATOMIC_RELAXED) != self)
    __atomic_add_fetch(&col_control->forked_children, 1, __ATOMIC_RELAXED);
}

static void count_fork_in_parent(void)
{
  if (col_active() && col_state_owned_here())
    __atomic_add_fetch(&forks_unrecorded, 1, __ATOMIC_RELAXED);
}

static void finish_experiment(void)
{
  unsigned forks = __atomic_load_n(&forks_unrecorded, __ATOMIC_RELAXED);
  if (forks > 0) {
    col_log_warning(COL_WARN_TEXT, "%u process(es) the program forked were not recorded: the sampler inside the program "
                    "records the program only; where perf events are allowed, the sampler process records "
                    "descendants too", forks);
    col_status_add_note("%u process(es) it forked not recorded (sampled from inside: only the sampler process "
                        "follows descendants)", forks);
  }
  col_experiment_finish(close_reason);
}

/* Sampling from inside, the runtime thread writes the clock samples: their
 * OpenMP states come from this very file's marker sections, as the
 * sampler process reads them from its sibling's. */
static void omp_states_inside(void)
{
  Dl_info self;
  char real[PATH_MAX];
  if (dladdr((void *)omp_states_inside, &self) != 0 && self.dli_fname != NULL &&
      realpath(self.dli_fname, real) != NULL && col_omp_states_init(real) == 0)
    __atomic_store_n(&col_omp_marking, 1, __ATOMIC_RELAXED);
}

/* Opens an experiment in this process and starts the runtime thread: the part
 * launch (constructor) and attach (gdbcol_attach_start) share. */
static int start_experiment(void)
{
  col_clock_source_reset();
  col_unwind_reset_stats();
  col_requests_reset();
  col_unwind_check_mode(col_cfg.check_unwinder);
  col_state_own();
  /* Traced events go through the sampler process (it unwinds and writes
   * them); sampling from inside, nobody would: said, not declared. */
  char untraced[100] = "";
  if (col_tracing_on(&col_cfg))
    col_tracing_text(&col_cfg, untraced, sizeof untraced);
  col_tracing_off(&col_cfg);
  /* Off-CPU time comes from the kernel's switch records, which only the
   * sampler process reads: not declared here either. */
  int offcpu_asked = col_cfg.offcpu;
  col_cfg.offcpu = 0;
  static int fork_counter_set;
  __atomic_store_n(&forks_unrecorded, 0, __ATOMIC_RELAXED);
  if (!fork_counter_set)
    fork_counter_set = pthread_atfork(NULL, count_fork_in_parent, NULL) == 0;
  int rc = col_runtime_thread_start(col_experiment_open_files, finish_experiment);
  if (rc == -1)
    return -1; /* the status file says why */
  if (rc != 0) {
    char err[300];
    snprintf(err, sizeof err, "cannot start the runtime's thread: %s", strerror(-rc));
    col_status_write(&col_cfg, "error", err);
    return -1;
  }
  if (untraced[0] != '\0') {
    col_log_warning(COL_WARN_TEXT, "%s was asked for but needs the sampler process, which is not running here (the "
                    "runtime samples from inside the program): nothing traced is recorded", untraced);
    /* GDB's closing line too: never a silent zero (issue 39) */
    if (islower((unsigned char)untraced[1]))
      untraced[0] = (char)tolower((unsigned char)untraced[0]);
    col_status_add_note("%s not recorded: the program sampled itself (no perf events here), and tracing needs "
                        "the sampler process", untraced);
  }
  if (offcpu_asked) {
    col_log_warning(COL_WARN_TEXT, "off-CPU time was asked for but needs the sampler process, which is not running here "
                    "(the runtime samples from inside the program): CPU time only");
    col_status_add_note("off-CPU time not recorded: the program sampled itself (no perf events here)");
  }
  omp_states_inside();
  col_state_set(COL_STATE_COLLECTING);
  return 0;
}

/* Clock profiling from outside (the sampler process): the runtime keeps no
 * thread and no descriptor, only the control page for the program's and
 * GDB's requests.  Without the page it stays inert; the sampler process
 * still profiles. */
static void forked_child(void);

/* Why the last start in a running process failed where the status file is
 * the sampler process's, not ours: GDB reads it from memory. */
char gdbcol_start_error[400];

/* TRACED, the traced kinds on, with the clock's where the program samples
 * itself: the signal-mask calls keep its timer signal deliverable
 * (signal_guard.h). */
static uint32_t with_clock(uint32_t traced)
{
  int clock_inside = !col_outside() || col_control_clock_in_program();
  return traced | (clock_inside && col_cfg.clock_interval_us > 0 ? 1u << ER_KIND_CLOCK : 0);
}

/* Preloaded, the calls of a traced kind that is off go to the real
 * functions directly, not through our idle wrappers (got_patch.c). */
static void bypass_idle_wrappers(void)
{
  if (!col_got_interposition_needed())
    col_got_bypass_idle(with_clock(col_trace != NULL ? col_trace->traced_kinds : 0));
}

static void serve_from_outside(enum col_start_how how)
{
  int rc = col_control_attach(col_cfg.status_path);
  if (rc != 0) {
    char page[PATH_MAX + 16];
    col_control_path(page, sizeof page, col_cfg.status_path);
    snprintf(gdbcol_start_error, sizeof gdbcol_start_error, "the process could not open the collector's control "
             "page %.300s: %s", page, strerror(-rc));
    return;
  }
  __atomic_store_n(&col_control->never_sampled_pc, col_never_sampled_frame(), __ATOMIC_RELEASE);
  col_state_own();
  col_state_set(COL_STATE_COLLECTING);
  /* OpenMP regions' bodies under the runtime's marker frame: the sampler
   * process classifies clock samples by them (core/omp_states.c) */
  __atomic_store_n(&col_omp_marking, 1, __ATOMIC_RELAXED);
  col_sources_start(how);
  if (how != COL_START_ATTACH)
    bypass_idle_wrappers();
  static int fork_handler_set;
  if (strcmp(col_cfg.descendants, "off") != 0 && !col_carrier_active)
    col_carrier_start(col_cfg.status_path);
  if ((col_carrier_active || col_control_perf_refused()) && !fork_handler_set)
    fork_handler_set = pthread_atfork(note_forking_thread, NULL, forked_child) == 0;
  if (col_carrier_active && how != COL_START_ATTACH) /* before main: an MPI launcher reads its environment there */
    col_job_forward_if_launcher(col_carrier_runtime_path());
}

/* clone()'s child where perf events are refused (spawn_interpose.c): a
 * thread is armed; a process is what a fork's child is. */
static int col_cloned(int thread, pid_t ppid, pid_t ptid, int64_t forked_at, void *stack_top)
{
  if (thread)
    return col_sources_raw_thread_start(stack_top);
  forking_pid = ppid;
  forking_tid = ptid;
  forking_at = forked_at;
  forked_child();
  return 0;
}

/* A fork of a process that passes the runtime on is a descendant: the
 * sampler process records it (_fN.er), and what its runtime is asked
 * (the Collector API, spawns) is its own. */
static void forked_child(void)
{
  if (col_carrier_active && col_state_collecting_anywhere()) {
    col_state_own();
    col_is_descendant = 1;
    count_forked_child();
    if (col_control_perf_refused()) /* what the kernel's fork record would say; its own timer */
      col_sources_forked_child(forking_pid, forking_tid, forking_at);
  } else if (col_control_perf_refused() && col_state_collecting_anywhere()) {
    col_control_post(COL_CTL_FORKED_UNFOLLOWED, "", 0); /* (descendants off: counted, as the kernel's records are) */
  }
}

/* An MPI rank on another node (outside_rank.c): its own sampler process,
 * or, where that cannot start, the runtime samples it from inside. */
static void serve_as_outside_rank(void)
{
  char why[600] = "";
  switch (col_outside_rank_start(&col_cfg, why, sizeof why)) {
  case COL_RANK_NONE:
    return;
  case COL_RANK_SAMPLED_OUTSIDE:
    serve_from_outside(COL_START_LAUNCH);
    return;
  case COL_RANK_SAMPLED_INSIDE:
    if (start_experiment() != 0)
      return;
    col_log_warning(COL_WARN_TEXT, "This MPI rank ran on another node than the job's launcher: %s; the runtime samples it "
                    "from inside the program", why);
    col_sources_start(COL_START_LAUNCH);
    return;
  }
}

/* A descendant's runtime (descendant_carrier.c): the session's control
 * page, nothing else; the sampler process records the descendant. */
static void serve_as_descendant(void)
{
  memset(&col_cfg, 0, sizeof col_cfg);
  if (!col_carrier_adopt(col_cfg.status_path, sizeof col_cfg.status_path)) {
    serve_as_outside_rank();
    return;
  }
  col_outside_rank_forget(); /* followed here: the job's settings are for ranks elsewhere */
  col_cfg.sampled_outside = 1;
  snprintf(col_cfg.descendants, sizeof col_cfg.descendants, "on");
  serve_from_outside(COL_START_DESCENDANT);
  /* An MPI rank says its rank: its exec may have been recorded before the
   * sampler could read it (core/job_rank.c). */
  int rank = col_job_rank(getpid());
  if (rank >= 0 && col_control != NULL)
    col_control_post(COL_CTL_RANK_SELF, "", rank);
}

/* What the wrappers tell the runtime (interpose/runtime_hooks.h). */
static void set_hooks(void)
{
  col_hooks = (struct col_runtime_hooks){col_sources_thread_start, col_sources_thread_stop, col_close_experiment,
                                         col_exec_starting, col_exec_failed, col_pause_everything, col_resume_everything,
                                         col_cloned};
}

/* GDB ran the program without gdbcol-launch (startup-with-shell off, or
 * the user's own exec-wrapper, which must stay the only one: GDB counts
 * the execs before the program): no sampler process was started for it,
 * so the runtime starts one on this process before main, as an MPI rank
 * on another node does.  Where it cannot start (perf events refused), the
 * runtime samples from inside, as the launcher's fallback does.  Before
 * the environment is scrubbed: the settings are the sampler's too. */
static void start_own_sampler(void)
{
  char buf[PATH_MAX];
  const char *source = getenv("GDBCOL_CLOCK_SOURCE");
  const char *sampler = er_value_decode(getenv("GDBCOL_SAMPLER"), buf, sizeof buf);
  if ((source != NULL && *source != '\0') || sampler == NULL || *sampler == '\0' ||
      (col_cfg.clock_interval_us <= 0 && col_cfg.n_hwc == 0 && !col_tracing_on(&col_cfg)))
    return;
  /* The sampler's environment: ours less LD_PRELOAD (the runtime in the
   * sampler would start a sampler of its own, and so on), and the clock
   * source said, as the launcher leaves it. */
  extern char **environ;
  size_t n = 0;
  while (environ[n] != NULL)
    n++;
  char **env = calloc(n + 2, sizeof *env);
  if (env == NULL)
    return;
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && strncmp(environ[i], "GDBCOL_CLOCK_SOURCE=", 20) != 0)
      env[kept++] = environ[i];
  env[kept++] = "GDBCOL_CLOCK_SOURCE=process";
  env[kept] = NULL;
  pid_t sampler_pid = 0;
  int started = col_sampler_start_on_self(sampler, "--self", env, &sampler_pid);
  free(env);
  if (started == 0) {
    col_cfg.sampled_outside = 1;
    col_sampler_may_read(col_cfg.offcpu, sampler_pid);
  }
}

__attribute__((constructor)) static void col_init(void)
{
  col_own_calls_start();
  col_tsan_frames_find();
  set_hooks();
  if (!col_config_load(&col_cfg)) {
    serve_as_descendant();
    return;
  }
  start_own_sampler();
  col_config_scrub_environment();
  if (col_cfg.sampled_outside) {
    serve_from_outside(COL_START_LAUNCH);
    return;
  }
  if (start_experiment() != 0)
    return;
  col_sources_start(COL_START_LAUNCH);
  bypass_idle_wrappers(); /* (sampling from inside, nothing is traced) */
  col_status_write(&col_cfg, "active", NULL);
}

static void adopt_status_file(const char *status_path)
{
  if (status_path == NULL || status_path[0] == '\0')
    return;
  if (col_outside()) { /* the sampler process keeps the status file */
    if (strlen(status_path) < sizeof col_control->slots[0].text)
      col_control_post(COL_CTL_STATUS_FILE, status_path, 0);
    return;
  }
  snprintf(col_cfg.status_path, sizeof col_cfg.status_path, "%s", status_path);
  col_status_write(&col_cfg, col_collecting() ? "active" : "closed", NULL);
}

/* Called by the GDB plugin from another GDB session than the one that
 * started the experiment (`collector status` there): its reports go to
 * that session's STATUS_PATH from now on. */
void gdbcol_adopt_status(const char *status_path)
{
  adopt_status_file(status_path);
}

/* After an attach, the calls the experiment must see (exec, thread
 * creation, the traced kinds that are on) reach the wrappers through the
 * GOT, since nothing was preloaded. */
static void interpose_after_attach(void)
{
  col_patch_got = 1;
  if (!col_got_interposition_needed()) {
    /* Preloaded (a later experiment in a launched process): the kinds on
     * now reach the wrappers again where they were bypassed, the others
     * are bypassed, in one walk. */
    struct col_got_report again;
    col_got_patch_all(with_clock(col_traced_kinds(&col_cfg)), &again);
    return;
  }
  struct col_got_report got;
  col_got_patch_all(with_clock(col_traced_kinds(&col_cfg)), &got);
  if (col_outside()) { /* the log is the sampler process's */
    char counts[sizeof col_control->slots[0].text];
    snprintf(counts, sizeof counts, "%u %u %u %.60s %u", got.slots, got.objects, got.unreadable,
             got.unreadable > 0 ? got.first_unreadable : "-", got.kept);
    col_control_post(COL_CTL_INTERPOSED, counts, 0);
    return;
  }
  col_log_comment("Interposition by GOT patching: %u slot(s) in %u object(s) now call the runtime's wrappers; "
                  "threads created otherwise are found by scanning /proc/self/task", got.slots, got.objects);
  if (got.kept > 0)
    col_log_comment("%u GOT slot(s) bound to another definition than the process's own were left as they were: "
                    "their calls are not traced", got.kept);
}

/* Called by the GDB plugin, through an inferior call, after it loaded the
 * runtime into a running process (or found it there): starts an
 * experiment with SETTINGS ("NAME=value" lines, the GDBCOL_* names of
 * config.c).  Returns 0, 1 when an experiment was already being recorded
 * (it goes on, reported in the new status file), or -1 with the reason in
 * the status file.  Runs on a program thread that GDB borrowed, so it only
 * starts things: the runtime thread arms the program's threads.  With
 * GDBCOL_CLOCK_SOURCE=process the sampler process GDB started records the
 * experiment; the runtime only maps its control page, as at launch. */
int gdbcol_attach_start(const char *settings)
{
  struct col_config requested;
  col_config_parse(&requested, settings);
  if (col_is_descendant) {
    /* A descendant of a recorded program, attached on its own: it gets an
     * experiment of its own, and passes that one on. */
    col_is_descendant = col_carrier_active = 0;
    col_state_set(COL_STATE_INERT);
  }
  if (col_collecting()) {
    /* Still collecting (a GDB attached before and detached): the new GDB
     * session adopts the experiment; nothing else changes. */
    adopt_status_file(requested.status_path);
    return 1;
  }
  col_state_set(COL_STATE_INERT);
  col_cfg = requested;
  gdbcol_start_error[0] = '\0';
  if (col_cfg.sampled_outside) {
    serve_from_outside(COL_START_ATTACH);
    if (!col_collecting())
      return -1; /* no control page: the sampler process did not start */
    interpose_after_attach();
    return 0;
  }
  if (start_experiment() != 0)
    return -1;
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  col_log_comment("Collection started in a running process: GDB attached and loaded the runtime at %s", when);
  interpose_after_attach();
  col_sources_start(COL_START_ATTACH);
  col_status_write(&col_cfg, "active", NULL);
  return 0;
}

/* ---- exec ------------------------------------------------------------------ */

struct exec_record {
  const char *variant, *what;
  int err;
  int exec_count;
};

static int execs_seen;

/* On the runtime's thread, before the exec: everything captured so far is
 * written, the objects archived, the end recorded. */
static void suspend_for_exec(void *p)
{
  const struct exec_record *r = p;
  col_runtime_thread_drain_now();
  col_describe_clock_sources();
  col_experiment_exec_event("exec_start", r->variant, r->what, r->exec_count);
  col_log_final_sample("suspend_for_exec");
  col_experiment_archive();
  col_status_write(&col_cfg, "exec", r->what);
}

static void resume_after_failed_exec(void *p)
{
  const struct exec_record *r = p;
  col_experiment_exec_event("exec_error", r->variant, r->what, r->exec_count);
  col_log_warning(COL_WARN_TEXT, "%s of %s failed (%s); the experiment goes on", r->variant, r->what, strerror(r->err));
  col_status_write(&col_cfg, "active", NULL);
}

int col_exec_starting(const char *variant, const char *what)
{
  /* A vfork's child (no fork handler ran in it; the parent's memory, the
   * parent's state): counted where no runtime follows it, as the kernel's
   * records would count it. */
  if (!col_state_owned_here() && col_state_collecting_anywhere() && col_outside() && col_control_perf_refused() &&
      !col_carrier_active) {
    col_control_post(COL_CTL_FORKED_UNFOLLOWED, "", 0);
    return 0;
  }
  if (!col_state_owned_here() && col_state_collecting_anywhere() && col_carrier_active)
    count_forked_child();
  if (!col_collecting() || col_in_runtime_call())
    return 0;
  if (col_outside()) {
    int64_t asked_at = col_hrtime();
    if (col_control_post_variant(COL_CTL_EXEC_START, variant, what, 0) != 0)
      return 0;
    col_sources_exec_starting(asked_at);
    return 1;
  }
  struct exec_record r = {variant, what != NULL ? what : "", 0, ++execs_seen};
  return col_on_runtime_thread(suspend_for_exec, &r) == 0;
}

void col_exec_failed(const char *variant, const char *what, int err)
{
  if (!col_collecting())
    return;
  if (col_outside()) {
    col_control_post_variant(COL_CTL_EXEC_FAILED, variant, what, err);
    return;
  }
  struct exec_record r = {variant, what != NULL ? what : "", err, execs_seen};
  col_on_runtime_thread(resume_after_failed_exec, &r);
}

/* The descendants not followed: their CPU time as the kernel sums it for
 * the children this process waited for (and theirs).  Perf events refused,
 * the one measure of it left; with them, the one that counts processes
 * shorter than a sampling period (2000 forks of 0.27 ms: 0.55 s, 0
 * samples). */
static void tell_children_cpu(void)
{
  struct rusage children;
  if (col_carrier_active || !col_state_owned_here() ||
      getrusage(RUSAGE_CHILDREN, &children) != 0)
    return;
  long long ms = (long long)(children.ru_utime.tv_sec + children.ru_stime.tv_sec) * 1000 +
                 (children.ru_utime.tv_usec + children.ru_stime.tv_usec) / 1000;
  char text[32];
  snprintf(text, sizeof text, "%lld", ms);
  col_control_post(COL_CTL_CHILDREN_CPU, text, 0);
}

void col_close_experiment(const char *why)
{
  if (!col_collecting())
    return;
  if (!col_state_close())
    return;
  close_reason = why;
  __atomic_store_n(&col_omp_marking, 0, __ATOMIC_RELAXED);
  col_sources_stop();
  if (col_outside()) {
    tell_children_cpu();
    /* the sampler process ends it; the founder's end in its slot of its
     * own (a descendant's end lost to a full page is also its exit) */
    if (col_is_descendant)
      col_control_post(COL_CTL_CLOSE, why, 0);
    else
      col_control_post_founder_end(why);
    return;
  }
  /* The runtime's thread drains, writes the closing records and closes the
   * files; a thread that does not finish in time leaves the experiment
   * readable, without its end records. */
  col_runtime_thread_stop();
}

/* Collection ends while the process runs on: the program's calls go to
 * libc directly again. */
static void end_interposition(void)
{
  if (col_patch_got) {
    col_patch_got = 0;
    col_got_restore_all();
  }
}

__attribute__((destructor)) static void col_fini(void)
{
  col_close_experiment("exit");
}

/* Called by the GDB plugin (`collector disable` while the program is
 * stopped): ends the experiment; the process keeps running.  STATUS_PATH,
 * when not NULL, is where the calling GDB session reads the outcome (it
 * may not be the session that started the experiment).  Returns 2 when
 * the sampler process closes it (a little later: GDB waits for the status
 * file), 1 when it closed here, 0 when none was being recorded. */
int gdbcol_close_experiment(const char *status_path)
{
  int collecting = col_collecting(), outside = col_outside();
  adopt_status_file(status_path);
  col_close_experiment("collector disable");
  end_interposition();
  return !collecting ? 0 : outside ? 2 : 1;
}

/* For the GDB plugin before an attach: is an experiment being recorded
 * here already (one a GDB session that detached left running)? */
int gdbcol_collecting(void)
{
  return col_collecting() && !col_is_descendant; /* a descendant's experiment is its founder's */
}
