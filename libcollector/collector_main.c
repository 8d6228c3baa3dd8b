/* Lifecycle of the runtime: open the experiment before main, close it when
 * the process ends (return from main, exit, _exit), and stay out of the way
 * everywhere else.  A crash or kill leaves a readable experiment because
 * everything written is already complete on disk (see experiment_log.c and
 * the sampler's flush cycle). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector_internal.h"
#include "er/er_archive.h"
#include "er/er_group.h"
#include "er/er_text.h"

struct col_config col_cfg;

enum { STATE_INERT, STATE_COLLECTING, STATE_CLOSED };
static int state = STATE_INERT;
static pid_t owner_pid;
extern uint64_t col_lost_samples;

int col_collecting(void)
{
  return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == STATE_COLLECTING && getpid() == owner_pid;
}

static void describe_clock_sources(void)
{
  struct col_clock_stats *s = &col_clock_stats;
  if (col_cfg.clock_interval_us <= 0)
    return;
  if (s->perf_threads > 0)
    col_log_comment("Clock profiling: kernel-side sampling (perf_event task-clock with user stack copies, no "
                    "signals), interval %ld us, %zu-byte stack copies, %s; %u thread(s)",
                    col_cfg.clock_interval_us, col_cfg.stack_copy_bytes,
                    s->perf_exclude_kernel ? "user mode only (kernel.perf_event_paranoid >= 2)" : "user and system time",
                    s->perf_threads);
  if (s->timer_threads > 0)
    col_log_comment("Clock profiling: per-thread POSIX CPU-time timers (signal %d), interval %ld us, samples weighted "
                    "by timer overruns%s; %u thread(s)",
                    COL_TIMER_SIGNAL, col_cfg.clock_interval_us,
                    s->last_perf_errno ? " (perf_event_open refused: using the fallback)" : "", s->timer_threads);
  if (s->failed_threads > 0)
    col_log_warning(200, "Clock profiling could not start on %u thread(s): %s", s->failed_threads,
                    strerror(s->last_timer_errno ? s->last_timer_errno : s->last_perf_errno));
}

static void describe_sampler_cost(void)
{
  const struct col_unwind_stats *u = &col_unwind_stats;
  col_log_comment("The runtime's sampler thread used %.3f s of CPU time (unwinding and writing %llu samples); "
                  "it is not sampled itself",
                  col_sampler_cpu_seconds, (unsigned long long)col_samples_written);
  col_log_comment("Unwinding: %llu stack(s) by cached frame rules, %llu by libunwind",
                  (unsigned long long)u->by_rules, (unsigned long long)u->by_libunwind);
  if (col_cfg.check_unwinder)
    col_log_comment("Unwinder check: %llu of %llu rule-based stack(s) differed from libunwind's",
                    (unsigned long long)u->disagreements, (unsigned long long)u->by_rules);
}

/* A group that cannot be joined costs the group, not the experiment. */
static void join_group(void)
{
  char err[600];
  if (col_cfg.group_path[0] != '\0' && er_group_join(col_cfg.group_path, col_exp.path, err, sizeof err) != 0)
    col_log_warning(200, "%s", err);
}

/* At the end, `collector archive on|copy`: after the last map update, and
 * before the status file says "closed", so that whoever waits for that
 * finds the archive complete. */
static void archive_experiment(void)
{
  struct er_archive_result r;
  char err[600];
  if (col_cfg.archive_mode == ER_ARCHIVE_OFF)
    return;
  if (er_archive_experiment(col_exp.path, col_cfg.archive_mode, &r, err, sizeof err) != 0) {
    col_log_warning(200, "archive %s: %s", er_archive_mode_name(col_cfg.archive_mode), err);
    return;
  }
  col_log_comment("Archive %s: %u load object(s) recorded in archive.log; %u copied to archives/, %u already there, "
                  "%u missing, %u failed",
                  er_archive_mode_name(col_cfg.archive_mode), r.objects - r.unlogged, r.copied, r.present, r.missing,
                  r.failed);
  if (r.unlogged > 0)
    col_log_final_warning(200, "archive.log could not record %u of %u load object(s): %s", r.unlogged, r.objects,
                          strerror(r.log_errno));
}

/* Runs on the runtime's thread, in its own descriptor table: creates the
 * experiment's files and writes their headers.  On failure the status file
 * says why. */
static int open_experiment(void)
{
  char err[PATH_MAX + 200];
  if (col_log_open(&col_cfg, err, sizeof err) != 0) {
    col_status_write(&col_cfg, "error", err);
    col_log_discard();
    return -1;
  }
  col_limit_start(col_cfg.limit_mb);
  join_group();
  int rc = col_modules_open(col_exp.dirfd, col_exp.run_tstamp);
  if (rc != 0) {
    snprintf(err, sizeof err, "cannot create map.xml in %s: %s", col_exp.path, strerror(-rc));
    col_status_write(&col_cfg, "error", err);
    col_log_discard();
    return -1;
  }
  col_log_settings(&col_cfg);
  if (col_cfg.clock_interval_us > 0)
    col_log_profile_block(col_cfg.clock_interval_us);
  if (!col_private_descriptors)
    col_log_warning(200, "the runtime could not take a descriptor table of its own (unshare refused); "
                    "a program that closes or reuses descriptors it did not open may disturb the experiment");
  col_log_sample("collector_open_experiment");
  return 0;
}

static const char *close_reason = "exit";

/* Runs on the runtime's thread after its final drain. */
static void finish_experiment(void)
{
  describe_clock_sources();
  describe_sampler_cost();
  if (col_lost_samples > 0)
    col_log_warning(200, "%llu clock sample(s) were lost (ring buffer full); CPU time is under-counted by that much",
                    (unsigned long long)col_lost_samples);
  col_log_sample("collector_close_experiment");
  col_log_exit();
  col_modules_close();
  archive_experiment();
  col_status_write(&col_cfg, "closed", close_reason);
  col_log_close();
}

/* Opens an experiment in this process and starts the sampler: the part
 * launch (constructor) and attach (gdbcol_attach_start) share. */
static int start_experiment(void)
{
  memset(&col_clock_stats, 0, sizeof col_clock_stats);
  memset(&col_unwind_stats, 0, sizeof col_unwind_stats);
  col_control_reset();
  col_unwind_check_mode(col_cfg.check_unwinder);
  owner_pid = getpid();
  int rc = col_sampler_start(open_experiment, finish_experiment);
  if (rc == -1)
    return -1; /* the status file says why */
  if (rc != 0) {
    char err[300];
    snprintf(err, sizeof err, "cannot start the runtime's thread: %s", strerror(-rc));
    col_status_write(&col_cfg, "error", err);
    return -1;
  }
  __atomic_store_n(&state, STATE_COLLECTING, __ATOMIC_RELEASE);
  return 0;
}

__attribute__((constructor)) static void col_init(void)
{
  if (!col_config_load(&col_cfg))
    return;
  col_config_scrub_environment();
  if (start_experiment() != 0)
    return;
  if (col_cfg.clock_interval_us > 0)
    col_clock_start_thread(gettid());
  col_status_write(&col_cfg, "active", NULL);
}

/* The threads already running when the runtime arrived (runtime thread). */
static void arm_running_threads(void *unused)
{
  col_scan_threads(col_sampler_tid());
}

static void adopt_status_file(const char *status_path)
{
  if (status_path != NULL && status_path[0] != '\0') {
    snprintf(col_cfg.status_path, sizeof col_cfg.status_path, "%s", status_path);
    col_status_write(&col_cfg, col_collecting() ? "active" : "closed", NULL);
  }
}

/* Called by the GDB plugin, through an inferior call, after it loaded the
 * runtime into a running process (or found it there): starts an
 * experiment with SETTINGS ("NAME=value" lines, the GDBCOL_* names of
 * config.c).  Returns 0, 1 when an experiment was already being recorded
 * (it goes on, reported in the new status file), or -1 with the reason in
 * the status file.  Runs on
 * a program thread that GDB borrowed, so it only starts things: the
 * sampler thread arms the program's threads. */
int gdbcol_attach_start(const char *settings)
{
  struct col_config requested;
  col_config_parse(&requested, settings);
  if (col_collecting()) {
    /* Still collecting (a GDB attached before and detached): the new GDB
     * session adopts the experiment; nothing else changes. */
    adopt_status_file(requested.status_path);
    return 1;
  }
  __atomic_store_n(&state, STATE_INERT, __ATOMIC_RELEASE);
  col_cfg = requested;
  if (start_experiment() != 0)
    return -1;
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  col_log_comment("Collection started in a running process: GDB attached and loaded the runtime at %s", when);
  col_patch_got = col_got_interposition_needed();
  if (col_patch_got)
    col_log_comment("Interposition by GOT patching: %u slot(s) now call the runtime's pthread_create, _exit, "
                    "_Exit and exec functions; threads created otherwise are found by scanning /proc/self/task",
                    col_got_patch_all());
  if (col_cfg.clock_interval_us > 0)
    col_on_runtime_thread(arm_running_threads, NULL); /* it lists /proc/self/task */
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

static void write_exec_event(const char *kind, const struct exec_record *r)
{
  char ts[32], what[1024], variant[64], line[1400];
  er_format_tstamp(ts, sizeof ts, col_hrtime() - col_exp.run_tstamp);
  er_xml_escape(r->what, what, sizeof what);
  er_xml_escape(r->variant, variant, sizeof variant);
  snprintf(line, sizeof line, "<event kind=\"%s\" tstamp=\"%s\" variant=\"%s\" lineage=\"_x%d\" follow=\"0\" "
           "msg=\"%s\"/>\n", kind, ts, variant, r->exec_count, what);
  er_recordfile_append(&col_exp.log, line, strlen(line), 1);
}

/* On the runtime's thread, before the exec: everything captured so far is
 * written, the objects archived, the end recorded. */
static void suspend_for_exec(void *p)
{
  const struct exec_record *r = p;
  col_sampler_drain_now();
  describe_clock_sources();
  write_exec_event("exec_start", r);
  col_log_final_sample("suspend_for_exec");
  archive_experiment();
  col_status_write(&col_cfg, "exec", r->what);
}

static void resume_after_failed_exec(void *p)
{
  const struct exec_record *r = p;
  write_exec_event("exec_error", r);
  col_log_warning(200, "%s of %s failed (%s); the experiment goes on", r->variant, r->what, strerror(r->err));
  col_status_write(&col_cfg, "active", NULL);
}

int col_exec_starting(const char *variant, const char *what)
{
  if (!col_collecting() || col_in_runtime_call())
    return 0;
  struct exec_record r = {variant, what != NULL ? what : "", 0, ++execs_seen};
  return col_on_runtime_thread(suspend_for_exec, &r) == 0;
}

void col_exec_failed(const char *variant, const char *what, int err)
{
  if (!col_collecting())
    return;
  struct exec_record r = {variant, what != NULL ? what : "", err, execs_seen};
  col_on_runtime_thread(resume_after_failed_exec, &r);
}

void col_close_experiment(const char *why)
{
  if (!col_collecting())
    return;
  int expected = STATE_COLLECTING;
  if (!__atomic_compare_exchange_n(&state, &expected, STATE_CLOSED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;
  close_reason = why;
  /* The runtime's thread drains, writes the closing records and closes the
   * files; a thread that does not finish in time leaves the experiment
   * readable, without its end records. */
  col_sampler_stop();
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
 * may not be the session that started the experiment). */
void gdbcol_close_experiment(const char *status_path)
{
  adopt_status_file(status_path);
  col_close_experiment("collector disable");
  end_interposition();
}
