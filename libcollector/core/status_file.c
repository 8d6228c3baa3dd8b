/* The status file GDB reads (key=value lines, replaced whole), and the
 * progress counters GDB reads from a stopped process with a plain memory
 * read.  Both gather the figures of every module (the writers, the data
 * limit, the unwinder, the clock sources, the pause state): this module
 * sits above them all, and none of them calls it; what changes the status
 * (a pause, the data limit) is written by the caller that made the change.
 * The figures of modules linked into one side only (inprocess/, sampler/)
 * that side hands in (col_status_figures_from). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_limit.h"
#include "core/experiment_control.h"
#include "core/experiment_log.h"
#include "core/runtime_calls.h"
#include "core/status_file.h"
#include "core/target.h"
#include "core/trace_writer.h"
#include "unwind/clock_perf.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "er/er_fileutil.h"
#include "er/er_text.h"

/* Several threads refresh it (the sampler, GDB's calls, the API): each
 * field is stored whole, so a reader never sees a torn number. */
struct er_progress gdbcol_progress;

void col_progress_refresh(void)
{
  int next_id = __atomic_load_n(&col_exp.next_sample_id, __ATOMIC_RELAXED);
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  __atomic_store_n(&gdbcol_progress.profile_packets, clock.samples_written, __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.sample_points, next_id > 0 ? (uint64_t)next_id - 1 : 0, __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.data_bytes, col_data_bytes(), __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.limit_reached, (uint64_t)(col_limit_reached() && col_data_stop_errno() == 0),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.paused, (uint64_t)col_is_paused(), __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.write_errno, (uint64_t)col_write_errno(), __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.samples_not_written, clock.samples_not_written, __ATOMIC_RELAXED);
}

struct status_request {
  const struct col_config *cfg;
  const char *state, *detail;
};

/* Who samples the clock: the sampler process outside the program, or
 * inside it a perf task-clock per thread or, where the kernel refuses perf
 * events (perf_errno says why), CPU-time timers and a signal.  GDB tells
 * the user what the fallback costs and how to get more. */
static const char *clock_source(const struct col_clock_source_figures *sources)
{
  /* (also the sampler process's, where the program sampled itself: the
   * kernel refused it perf events) */
  if (sources->timer_threads > 0 || (col_target_pid != 0 && sources->last_perf_errno != 0))
    return "timer";
  if (col_target_pid != 0)
    return "sampler-process";
  return sources->perf_threads > 0 ? "perf-in-process" : "";
}

/* Set once by the side that records, read by whichever thread writes. */
static void (*fill_figures)(struct col_status_figures *out);

void col_status_figures_from(void (*fill)(struct col_status_figures *out))
{
  __atomic_store_n(&fill_figures, fill, __ATOMIC_RELAXED);
}

/* The sampler every second, GDB's calls and the API all report here; the
 * runtime's thread writes the file.  An active experiment with no other
 * detail reports whether it is paused, whoever asks. */
static void write_status(void *p)
{
  const struct status_request *req = p;
  const char *detail = req->detail;
  if (detail == NULL && strcmp(req->state, "active") == 0 && col_is_paused())
    detail = "paused";
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  struct col_unwind_stats walks;
  col_unwind_describe(&walks);
  struct col_clock_source_figures sources;
  col_clock_source_describe(&sources);
  struct col_status_figures side = {0};
  void (*fill)(struct col_status_figures *) = __atomic_load_n(&fill_figures, __ATOMIC_RELAXED);
  if (fill != NULL)
    fill(&side);
  /* Paths and the detail as GDB reads them back (er_value_encode: a
   * newline in a path would end its line).  Static: one status at a time
   * (the runtime thread's, or the caller's when there is none). */
  static pthread_mutex_t status_lock = PTHREAD_MUTEX_INITIALIZER;
  static char experiment[PATH_MAX * 2 + 8], control[PATH_MAX * 2 + 8], detail_text[1024], text[PATH_MAX * 6];
  pthread_mutex_lock(&status_lock);
  er_value_encode(col_exp.path, experiment, sizeof experiment);
  er_value_encode(col_target_pid != 0 ? col_control_file : "", control, sizeof control);
  er_value_encode(detail ? detail : "", detail_text, sizeof detail_text);
  char tmp[PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", req->cfg->status_path, (int)gettid());
  col_progress_refresh();
  const struct er_progress *g = &gdbcol_progress;
  int n = snprintf(text, sizeof text,
                   "state=%s\npid=%d\nexperiment=%s\nsamples=%llu\nsample_points=%llu\ndata_bytes=%llu\n"
                   "limit_mb=%ld\nlimit_reached=%llu\nwrite_errno=%llu\nnot_written=%llu\nsampler_pid=%d\ncontrol=%s\n"
                   "descendants=%llu\ndescendant_cpu_ms=%llu\ndescendant_experiments=%llu\nexec_followed=%d\n"
                   "cpu_ms=%llu\nthreads=%llu\nlost=%llu\nstacks=%llu\ntruncated=%llu\nclock_source=%s\n"
                   "perf_errno=%d\ndetail=%s\n",
                   req->state, col_target(), experiment, (unsigned long long)g->profile_packets,
                   (unsigned long long)g->sample_points, (unsigned long long)g->data_bytes, req->cfg->limit_mb,
                   (unsigned long long)g->limit_reached, (unsigned long long)g->write_errno,
                   (unsigned long long)g->samples_not_written, col_target_pid != 0 ? (int)getpid() : 0,
                   control, (unsigned long long)side.descendants_seen,
                   (unsigned long long)(side.descendant_cpu_ms > 0
                                            ? (uint64_t)side.descendant_cpu_ms
                                            : side.descendant_samples * (uint64_t)req->cfg->clock_interval_us / 1000),
                   (unsigned long long)side.descendant_experiments, side.exec_followed,
                   (unsigned long long)(clock.ticks_appended * (uint64_t)(req->cfg->clock_interval_us > 0
                                                                          ? req->cfg->clock_interval_us : 0) / 1000),
                   (unsigned long long)side.threads_seen, (unsigned long long)side.records_lost,
                   (unsigned long long)(walks.by_rules + walks.by_libunwind + walks.stopped),
                   (unsigned long long)walks.truncated, clock_source(&sources), sources.last_perf_errno,
                   detail_text);
  if (n > 0 && n < (int)sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, "status_answer=%llu\ntruncated_depth=%llu\nmax_frames=%ld\n",
                  (unsigned long long)col_status_answer, (unsigned long long)walks.truncated_depth,
                  req->cfg->max_frames);
  if (n > 0 && n < (int)sizeof text && req->cfg->offcpu)
    n += snprintf(text + n, sizeof text - (size_t)n, "offcpu_ms=%llu\n",
                  (unsigned long long)(clock.offcpu_ticks * (uint64_t)req->cfg->clock_interval_us / 1000));
  if (n > 0 && n < (int)sizeof text && col_status_note[0] != '\0') {
    static char note[sizeof col_status_note * 2 + 8];
    er_value_encode(col_status_note, note, sizeof note);
    n += snprintf(text + n, sizeof text - (size_t)n, "note=%s\n", note);
  }
  if (n > 0 && n < (int)sizeof text && side.blocking_threads > 0)
    n += snprintf(text + n, sizeof text - (size_t)n, "unsampled_ms=%llu\nblocking_threads=%u\n",
                  (unsigned long long)(side.unsampled_ns / 1000000), side.blocking_threads);
  /* What each data kind on recorded (GDB's closing line says it): the
   * clock's interval (0: off), each other kind's events under its name. */
  if (n > 0 && n < (int)sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, "clock_us=%ld\n", req->cfg->clock_interval_us);
  col_trace_writer_count();
  for (int k = 0; k < ER_N_KINDS; k++)
    if (k != ER_KIND_CLOCK && col_kind_on(req->cfg, (enum er_kind)k) && n > 0 && n < (int)sizeof text)
      n += snprintf(text + n, sizeof text - (size_t)n, "%s_events=%llu\n", er_kinds[k].name,
                    (unsigned long long)col_kind_events_written((enum er_kind)k));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  int ok = fd >= 0 && er_write_all(fd, text, (size_t)(n < (int)sizeof text ? n : (int)sizeof text - 1)) == 0;
  if (fd >= 0)
    close(fd);
  if (fd >= 0 && (!ok || rename(tmp, req->cfg->status_path) != 0))
    unlink(tmp);
  pthread_mutex_unlock(&status_lock);
}

uint64_t col_status_answer;
char col_status_note[2048];

void col_status_add_note(const char *fmt, ...)
{
  size_t used = strlen(col_status_note);
  if (used > 0 && used + 2 < sizeof col_status_note)
    used += (size_t)snprintf(col_status_note + used, sizeof col_status_note - used, "; ");
  va_list ap;
  va_start(ap, fmt);
  if (used < sizeof col_status_note)
    vsnprintf(col_status_note + used, sizeof col_status_note - used, fmt, ap);
  va_end(ap);
}

void col_status_write(const struct col_config *cfg, const char *state, const char *detail)
{
  if (cfg->status_path[0] == '\0')
    return;
  struct status_request req = {cfg, state, detail};
  /* Without the runtime's thread (it could not start, or the experiment
   * is over) the caller writes: a fresh descriptor, used at once. */
  if (col_on_runtime_thread(write_status, &req) != 0)
    write_status(&req);
}
