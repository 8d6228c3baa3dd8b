/* The experiment's files from start to end, whichever process writes
 * them: the runtime thread inside the program, or the sampler process
 * outside it.  Everything here runs on the thread that owns the files. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_limit.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/omp_trace_writer.h"
#include "core/runtime_calls.h"
#include "core/recording_cost.h"
#include "core/status_file.h"
#include "core/target.h"
#include "core/thread_names.h"
#include "core/thread_slot.h"
#include "unwind/clock_perf.h"
#include "unwind/unwind.h"
#include "er/er_archive.h"
#include "er/er_group.h"
#include "er/er_text.h"

/* Two standard deviations of a share near 50 % among WORTH equal samples,
 * in whole percentage points: 100 / sqrt(WORTH), rounded up (no libm in
 * the program's process for one figure). */
static int share_points(double worth)
{
  int points = 100;
  while (points > 1 && (double)(points - 1) * (points - 1) * worth >= 10000.0)
    points--;
  return points;
}

/* The kernel checks CPU-time timers at its scheduler tick (250 or 100 Hz
 * on most distributions' kernels): asked for 1 ms, a thread is sampled
 * every 4 or 10 ms, each sample weighted for its share.  Under CPU load
 * they come later and far between (on a 2-vCPU VM beside two busy loops:
 * 6-69 signals per second of CPU, gaps up to 0.6 s; the kernel's doing,
 * the same for a bare timer_create program).  The CPU time stays true;
 * what the function shares rest on is what samples of unequal weight
 * are worth: (sum of weights)^2 / sum of squared weights equal samples.
 * Said once, with how much a share may be off, and how to get more. */
static void say_timer_tick(void)
{
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  uint64_t placed = clock.ticks_appended - clock.ticks_unplaced;
  /* (packets counted as appended, samples as on disk: a full disk can keep some out) */
  uint64_t samples = clock.samples_written > clock.unplaced_packets ? clock.samples_written - clock.unplaced_packets : 0;
  if (samples < 50 || placed < 2 * samples || clock.ticks_squared == 0)
    return;
  double every_ms = (double)col_cfg.clock_interval_us / 1000.0 * (double)placed / (double)samples;
  double worth = (double)placed * (double)placed / (double)clock.ticks_squared;
  col_log_comment("The CPU-time timers fired every %.1f ms on average, not every %.3f ms (the kernel checks them at "
                  "its scheduler tick); their %llu samples of unequal weight are worth %.0f equal ones",
                  every_ms, col_cfg.clock_interval_us / 1000.0, (unsigned long long)samples, worth);
  col_status_add_note("the kernel's CPU-time timers sampled every %.1f ms, not every %.3f ms (they fire at its "
                      "scheduler tick, later while the CPUs are busy): CPU times are whole; function shares rest "
                      "on %.0f samples' worth, each within about %d points; with perf events allowed every "
                      "interval is sampled", every_ms, col_cfg.clock_interval_us / 1000.0, worth,
                      share_points(worth));
}

/* Threads preempted for others while no timer sample found them: that
 * CPU time is under <Not-sampled-under-load> (inprocess/timer_lateness.c).
 * Said in log.xml whenever there is some, to the user from 5 %. */
static void say_not_sampled(void)
{
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  if (clock.ticks_unplaced == 0)
    return;
  double seconds = (double)clock.ticks_unplaced * (double)col_cfg.clock_interval_us / 1e6;
  col_log_comment("Not sampled under load: %.3f s of CPU time (%llu interval(s)) that threads ran while the CPUs "
                  "had more threads ready than they could run and no CPU-time timer sample found them (the kernel "
                  "checks the timers only at its tick, for the thread running then), recorded under "
                  "<Not-sampled-under-load>, not at the next sample's stack",
                  seconds, (unsigned long long)clock.ticks_unplaced);
  if (clock.ticks_unplaced * 20 < clock.ticks_appended)
    return;
  col_status_add_note("%.0f %% of the CPU time (%.2f s) is under <Not-sampled-under-load>: the CPUs had more "
                      "threads ready than they could run, and the kernel's CPU-time timers, checked only at its "
                      "tick, missed where that time went; with perf events allowed every interval is sampled, or "
                      "profile with fewer busy threads than CPUs",
                      100.0 * (double)clock.ticks_unplaced / (double)clock.ticks_appended, seconds);
}

void col_describe_clock_sources(void)
{
  if (col_cfg.clock_interval_us <= 0)
    return;
  struct col_clock_source_figures sources;
  col_clock_source_describe(&sources);
  const struct col_clock_source_figures *s = &sources;
  if (s->perf_threads > 0)
    col_log_comment("Clock profiling: kernel-side sampling (perf_event task-clock with user stack copies, no "
                    "signals), interval %ld us, %zu-byte stack copies, %s; %u thread(s)",
                    col_cfg.clock_interval_us, col_cfg.stack_copy_bytes,
                    s->perf_exclude_kernel ? "user mode only (kernel.perf_event_paranoid >= 2)" : "user and system time",
                    s->perf_threads);
  if (s->timer_threads > 0) {
    col_log_comment("Clock profiling: per-thread POSIX CPU-time timers (signal %d), interval %ld us, each sample "
                    "weighted by the CPU time it stands for (the thread's CPU clock, read in the handler)%s; %u "
                    "thread(s)",
                    COL_TIMER_SIGNAL, col_cfg.clock_interval_us,
                    s->last_perf_errno ? " (perf_event_open refused: using the fallback)" : "", s->timer_threads);
    say_timer_tick();
    say_not_sampled();
  }
  if (s->failed_threads > 0)
    col_log_warning(COL_WARN_TEXT, "Clock profiling could not start on %u thread(s): %s", s->failed_threads,
                    strerror(s->last_timer_errno ? s->last_timer_errno : s->last_perf_errno));
}

static void describe_recording_cost(void)
{
  struct col_unwind_stats walks;
  col_unwind_describe(&walks);
  const struct col_unwind_stats *u = &walks;
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  struct col_recording_cost cost;
  col_recording_cost_describe(&cost);
  col_log_comment("The %s used %.3f s of CPU time (unwinding and writing %llu samples), %.0f %% of it in the "
                  "kernel; it is not sampled itself",
                  col_target_pid != 0 ? "sampler process" : "runtime thread", cost.cpu_seconds,
                  (unsigned long long)clock.samples_written, 100 * cost.system_share);
  if (cost.records_seconds > 0)
    col_log_comment("Of that, %.3f s went to reading, unwinding and storing the records; the rest to waiting for "
                    "them, flushing the files and the status", cost.records_seconds);
  col_log_comment("Unwinding: %llu stack(s) by cached frame rules, %llu by libunwind, %llu stopped where the rules "
                  "end; %llu cut where the stack copy (%zu bytes) ended, %llu at the frame limit (%ld)",
                  (unsigned long long)u->by_rules, (unsigned long long)u->by_libunwind,
                  (unsigned long long)u->stopped, (unsigned long long)u->truncated, col_cfg.stack_copy_bytes,
                  (unsigned long long)u->truncated_depth, col_cfg.max_frames);
  col_log_comment("Stacks that reached the stack copy's end: %llu walked on in the thread's live stack (or its last reading), %llu left "
                  "cut because the thread had left those frames by then, %llu because its memory could not be read",
                  (unsigned long long)u->beyond_copy, (unsigned long long)u->beyond_moved_on,
                  (unsigned long long)u->beyond_unreadable);
  if (u->chain_ended > 0)
    col_log_comment("Stacks walked by frame pointers (code with no unwind tables) that ended where the chain of "
                    "frame pointers left the stack: %llu (a thread's first function that keeps no frame pointer)",
                    (unsigned long long)u->chain_ended);
  if (col_cfg.check_unwinder)
    col_log_comment("Unwinder check: %llu of %llu rule-based stack(s) differed from libunwind's",
                    (unsigned long long)u->disagreements, (unsigned long long)u->by_rules);
}

/* A group that cannot be joined costs the group, not the experiment. */
static void join_group(void)
{
  char err[600];
  if (col_cfg.group_path[0] != '\0' && er_group_join(col_cfg.group_path, col_exp.path, err, sizeof err) != 0)
    col_log_warning(COL_WARN_TEXT, "%s", err);
}

/* At the end, `collector archive on|copy`: after the last map update, and
 * before the status file says "closed", so that whoever waits for that
 * finds the archive complete. */
void col_experiment_archive(void)
{
  struct er_archive_result r;
  char err[600];
  if (col_cfg.archive_mode == ER_ARCHIVE_OFF)
    return;
  size_t n;
  const char *const *objects = col_modules_objects(&n);
  if (er_archive_objects(col_exp.path, col_cfg.archive_mode, objects, n, &r, err, sizeof err) != 0) {
    col_log_warning(COL_WARN_TEXT, "archive %s: %s", er_archive_mode_name(col_cfg.archive_mode), err);
    return;
  }
  col_log_comment("Archive %s: %u load object(s) recorded in archive.log; %u copied to archives/ (%u of them with the "
                  "symbols of their separate debug info, so gprofng names their static functions), %u already "
                  "there, %u missing, %u failed",
                  er_archive_mode_name(col_cfg.archive_mode), r.objects - r.unlogged, r.copied, r.with_debug_symbols,
                  r.present, r.missing, r.failed);
  if (r.unnamed > 0) { /* (gprofng puts all of such an object's code under one <static> name) */
    col_log_comment("Archive: %u load object(s) without any symbol table (stripped, no separate debug info "
                    "found), the first %s: their functions have no names", r.unnamed, r.first_unnamed);
    col_status_add_note("%.200s has no symbol table (stripped): its functions have no names in the experiment; "
                        "profile a build that keeps its symbols (Go: without -ldflags=-s)", r.first_unnamed);
  }
  if (r.unlogged > 0)
    col_log_final_warning(COL_WARN_TEXT, "archive.log could not record %u of %u load object(s): %s", r.unlogged, r.objects,
                          strerror(r.log_errno));
}

/* Runs on the runtime's thread, in its own descriptor table: creates the
 * experiment's files and writes their headers.  On failure the status file
 * says why. */
int col_experiment_open_files(void)
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
  for (int k = 0; k < ER_N_KINDS; k++) {
    char attributes[ER_HWC_MAX_COUNTERS * 192];
    if (col_kind_on(&col_cfg, (enum er_kind)k)) {
      col_kind_attributes(&col_cfg, (enum er_kind)k, attributes, sizeof attributes);
      col_log_kind_block((enum er_kind)k, attributes);
    }
  }
  if (!col_private_descriptors)
    col_log_warning(COL_WARN_TEXT, "the runtime could not take a descriptor table of its own (unshare refused); "
                    "a program that closes or reuses descriptors it did not open may disturb the experiment");
  col_log_sample("collector_open_experiment");
  return 0;
}

/* Runs on the runtime's thread after its final drain: the closing records,
 * the archive, the status "closed" with WHY. */
void col_experiment_finish_after_exec(const char *what)
{
  describe_recording_cost();
  col_omp_trace_finish();
  col_modules_close();
  col_experiment_archive();
  col_status_write(&col_cfg, "exec", what);
  col_log_close();
}

int col_end_without_exit;

int col_close_is_program_end(const char *why)
{
  return strcmp(why, "exit") == 0 || strcmp(why, "_exit") == 0 || strcmp(why, "_Exit") == 0 ||
         strcmp(why, "killed") == 0;
}

/* Open MPI's Fortran bindings (libmpi_mpifh, under the mpi and mpi_f08
 * modules too) call the implementation's PMPI_ functions directly, where no
 * wrapper sees them (MPICH's call the MPI_ ones, which are traced).  Said
 * once, at the end, where the program loaded them. */
static void warn_untraced_mpi_bindings(void)
{
  const char *bindings = col_kind_on(&col_cfg, ER_KIND_MPI) ? col_modules_loaded("libmpi_mpifh.so") : NULL;
  if (bindings != NULL)
    col_log_warning(COL_WARN_TEXT, "The program uses Open MPI's Fortran bindings (%s), which call Open MPI directly: the "
                    "MPI calls it makes from Fortran are not traced (its C calls are; MPICH's Fortran bindings "
                    "are traced)", bindings);
}

/* An OpenMP program's waits that sleep are off CPU: what a clock profile
 * of it cannot show, said once, where the program loaded libgomp. */
static void note_openmp_waits(void)
{
  if (!col_kind_on(&col_cfg, ER_KIND_CLOCK))
    return;
  /* LLVM's runtime (clang -fopenmp): no states, and the user is told so. */
  const char *libomp = col_modules_loaded("libomp.so");
  libomp = libomp != NULL ? libomp : col_modules_loaded("libiomp5.so");
  if (libomp != NULL)
    col_log_comment("OpenMP (%s, LLVM's runtime): the clock samples carry no OpenMP state (work, barriers, "
                    "waits), no parallel regions and no user-mode stacks: those are recorded for GCC's libgomp "
                    "(gcc -fopenmp); the profile shows the runtime's own frames", libomp);
  const char *libgomp = col_modules_loaded("libgomp.so");
  if (libgomp != NULL)
    col_log_comment("OpenMP (%s): the clock samples carry each thread's OpenMP state; a wait that sleeps "
                    "(OMP_WAIT_POLICY=passive, or libgomp's default once it has spun GOMP_SPINCOUNT times) is "
                    "off CPU, so no sample shows it: run with OMP_WAIT_POLICY=active to see every wait as time",
                    libgomp);
}

void col_experiment_finish(const char *why)
{
  if (col_end_without_exit) {
    col_log_warning(COL_WARN_TEXT, "The program ended without its runtime seeing an exit: an exit system call made directly "
                    "(static programs, Go, the sanitizers' exits), a signal (kill -9, or the end of the GDB that ran "
                    "it) or a crash; what was recorded up to its end is intact");
    why = "killed";
  }
  const char *ended_early = col_close_is_program_end(why) ? NULL : why;
  if (ended_early != NULL) /* log.xml's closing event is named "exit" whatever ended it */
    col_log_comment("The experiment ended before the program did (%s); the program ran on unrecorded", why);
  col_describe_clock_sources();
  describe_recording_cost();
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  if (clock.lost_samples > 0)
    col_log_warning(COL_WARN_TEXT, "%llu clock sample(s) were lost (ring buffer full); CPU time is under-counted by that much",
                    (unsigned long long)clock.lost_samples);
  if (col_exp.samples_dropped > 0)
    col_log_final_warning(COL_WARN_TEXT, "%llu sample point(s) could not be written (%s); the overview may hold one record "
                          "more than log.xml's samples", (unsigned long long)col_exp.samples_dropped,
                          strerror(col_write_errno() ? col_write_errno() : ENOSPC));
  warn_untraced_mpi_bindings();
  note_openmp_waits();
  col_omp_trace_finish();
  col_log_final_sample("collector_close_experiment");
  col_modules_close();
  /* The archive before the exit event: a reader that sees the experiment
   * closed finds the objects' copies whole (a report run as soon as the
   * exit event was there named the program's compute_phase after a libc
   * function, its copy still being written). */
  col_experiment_archive();
  col_thread_names_write(col_exp.dirfd, col_target_pid != 0 ? col_target_pid : getpid());
  col_log_exit(col_end_without_exit, ended_early);
  col_status_write(&col_cfg, "closed", why);
  col_log_close();
}


/* A descendant event (desc_start, exec_start, exec_error) as gprofng's
 * collector writes them, at TSTAMP (the experiment clock). */
void col_experiment_descendant_event(const char *kind, const char *variant, const char *lineage, const char *what,
                                     int64_t tstamp, int follow)
{
  char ts[32], escaped_what[1024], escaped_variant[64], line[1400];
  er_format_tstamp(ts, sizeof ts, tstamp - col_exp.run_tstamp);
  er_xml_escape(what, escaped_what, sizeof escaped_what);
  er_xml_escape(variant, escaped_variant, sizeof escaped_variant);
  snprintf(line, sizeof line, "<event kind=\"%s\" tstamp=\"%s\" variant=\"%s\" lineage=\"%s\" follow=\"%d\" "
           "msg=\"%s\"/>\n", kind, ts, escaped_variant, lineage, follow, escaped_what);
  er_recordfile_append(&col_exp.log, line, strlen(line), 1);
}

/* exec_start (the experiment ends with the exec) or exec_error (it failed,
 * the experiment goes on). */
void col_experiment_exec_event(const char *kind, const char *variant, const char *what, int exec_count)
{
  char lineage[32];
  snprintf(lineage, sizeof lineage, "_x%d", exec_count);
  col_experiment_descendant_event(kind, variant, lineage, what, col_hrtime(), 0);
}
