/* log.xml (§3), overview (§7) and the status file the plugin reads.
 * Every write is one complete line (or record), written whole or not at
 * all (er_recordfile), so the experiment can be read at any moment, also
 * after the process is killed or the disk filled up.
 *
 * Only the runtime's thread writes (its descriptors are its own); the
 * public functions below hand the work to it when called elsewhere (the
 * Collector API, GDB's calls). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_limit.h"
#include "core/data_writers.h"
#include "core/experiment_control.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/runtime_calls.h"
#include "core/target.h"
#include "unwind/clock_perf.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "er/er_fileutil.h"
#include "er/er_naming.h"
#include "er/er_overview.h"
#include "er/er_recordfile.h"
#include "er/er_text.h"

/* Room kept for the closing records: log.xml's end comments, warnings,
 * last sample and exit event (about 2 KB); the last overview records. */
#define LOG_CLOSING_RESERVE (8 * 1024)
#define OVERVIEW_CLOSING_RESERVE (4 * sizeof(struct er_overview_record))

struct col_experiment col_exp = {.dirfd = -1, .log = {.fd = -1}, .overview = {.fd = -1},
                                  .frameinfo = {.fd = -1},
                                  .data = {[0 ... ER_N_KINDS - 1] = {.fd = -1}}};
static int64_t overview_create;

static void log_system(void)
{
  struct utsname u;
  char host[300], os[300];
  uname(&u);
  er_xml_escape(u.nodename, host, sizeof host);
  snprintf(os, sizeof os, "Linux %s", u.release);
  char os_escaped[600];
  er_xml_escape(os, os_escaped, sizeof os_escaped);
  er_recordfile_printf(&col_exp.log, 0, "<system hostname=\"%s\" arch=\"x86_64\" os=\"%s\" pagesz=\"%ld\" npages=\"%ld\">\n",
                 host, os_escaped, sysconf(_SC_PAGESIZE), sysconf(_SC_PHYS_PAGES));
  long ncpu = sysconf(_SC_NPROCESSORS_CONF);
  for (long i = 0; i < ncpu && i < 4096; i++)
    er_recordfile_printf(&col_exp.log, 0, "  <cpu id=\"%ld\"/>\n", i);
  er_recordfile_printf(&col_exp.log, 0, "</system>\n");
}

static void log_process(void)
{
  char cwd[PATH_MAX], escaped[PATH_MAX * 6];
  struct er_recordfile *fd = &col_exp.log;
  struct col_target_ids ids;
  col_target_ids(&ids);
  er_recordfile_printf(fd, 0, "<process pid=\"%d\"></process>\n", ids.pid);
  er_recordfile_printf(fd, 0, "<process ppid=\"%d\"></process>\n", ids.ppid);
  er_recordfile_printf(fd, 0, "<process pgrp=\"%d\"></process>\n", ids.pgrp);
  er_recordfile_printf(fd, 0, "<process sid=\"%d\"></process>\n", ids.sid);
  if (col_target_cwd(cwd, sizeof cwd) == 0) {
    er_xml_escape(cwd, escaped, sizeof escaped);
    er_recordfile_printf(fd, 0, "<process cwd=\"%s\"></process>\n", escaped);
  }
  er_recordfile_printf(fd, 0, "<process wsize=\"64\"></process>\n");
  /* The command line: argv[0]'s basename names the target for gprofng. */
  char cmdline[4096];
  if (col_target_cmdline(cmdline, sizeof cmdline) > 0) {
    er_xml_escape(cmdline, escaped, sizeof escaped);
    er_recordfile_printf(fd, 0, "<process>%s</process>\n", escaped);
  }
}

int col_log_open(const struct col_config *cfg, char *err, size_t err_len)
{
  int dirfd = cfg->lineage[0] != '\0'
                  ? er_create_descendant_dir(cfg->store_dir, cfg->lineage, col_exp.path, sizeof col_exp.path)
                  : er_create_experiment_dir(cfg->store_dir, cfg->experiment_name[0] ? cfg->experiment_name : NULL,
                                             col_exp.path, sizeof col_exp.path);
  if (dirfd < 0) {
    snprintf(err, err_len, "cannot create the experiment in %s: %s", cfg->store_dir,
             dirfd == -EEXIST ? "an experiment of that name exists" : strerror(-dirfd));
    return dirfd;
  }
  col_exp.dirfd = dirfd;
  col_exp.next_sample_id = 0; /* id 0 carries the start label (§3.3) */
  col_exp.samples_dropped = 0;
  int rc = er_recordfile_create(&col_exp.log, dirfd, "log.xml", LOG_CLOSING_RESERVE);
  if (rc >= 0)
    rc = er_recordfile_create(&col_exp.overview, dirfd, "overview", OVERVIEW_CLOSING_RESERVE);
  if (rc >= 0)
    rc = er_datafile_create(&col_exp.frameinfo, dirfd, "data.frameinfo");
  for (int k = 0; k < ER_N_KINDS && rc >= 0; k++)
    if (col_kind_on(cfg, (enum er_kind)k))
      rc = er_datafile_create(&col_exp.data[k], dirfd, er_kinds[k].name);
  if (rc < 0) {
    snprintf(err, err_len, "cannot create the files of %s: %s", col_exp.path, strerror(-rc));
    return rc;
  }
  struct er_recordfile *fd = &col_exp.log;
  er_recordfile_printf(fd, 0, "<experiment version=\"12.4\">\n<collector>gdb-collector %s</collector>\n</experiment>\n",
                 GDBCOL_VERSION);
  log_system();
  log_process();
  /* The sampler process opens the experiment a little after the exec it
   * starts with; the run begins at the exec. */
  col_exp.run_tstamp = col_run_started_at != 0 ? col_run_started_at : col_hrtime();
  char ts[32];
  er_format_tstamp(ts, sizeof ts, col_exp.run_tstamp);
  er_recordfile_printf(fd, 0, "<event kind=\"run\" tstamp=\"%s\" time=\"%lld\" tm_zone=\"0\"/>\n", ts, (long long)time(NULL));
  overview_create = col_exp.run_tstamp;
  if (col_exp.log.error != 0) {
    /* Not even the header fits: say so now rather than record nothing. */
    snprintf(err, err_len, "nothing could be written to %s: %s", col_exp.path, strerror(col_exp.log.error));
    return -col_exp.log.error;
  }
  return 0;
}

void col_log_settings(const struct col_config *cfg)
{
  /* gprofng's header shows it under "Data collection parameters"; whole
   * seconds, 0 for manual sampling. */
  long seconds = cfg->sample_period_ms > 0 ? (cfg->sample_period_ms + 999) / 1000 : 0;
  er_recordfile_printf(&col_exp.log, 0, "<setting sample_period=\"%ld\"/>\n", seconds);
  /* A period that is not whole seconds (0.2 s showed as "1 secs."): the
   * exact one, said where gprofng's header lists the comments. */
  if (cfg->sample_period_ms % 1000 != 0)
    col_log_comment("Periodic sampling every %.3f s (the sample_period setting holds whole seconds: %ld)",
                    cfg->sample_period_ms / 1000.0, seconds);
  if (cfg->limit_mb > 0)
    er_recordfile_printf(&col_exp.log, 0, "<setting limit=\"%ld\"/>\n", cfg->limit_mb);
}

void col_log_kind_block(enum er_kind kind, const char *attributes)
{
  char block[4096];
  er_kind_profile_block(kind, attributes, block, sizeof block);
  er_recordfile_printf(&col_exp.log, 0, "%s", block);
}

/* ---- records written on the runtime's thread ------------------------------- */

struct sample_request {
  const char *label;
  const char *event_xml; /* NULL, or a format with one %s for the timestamp */
  int64_t when;
  int final;
};

/* A sample event and its overview record always go together: the reader
 * pairs them by position (§7), so both are written or neither. */
static void write_sample(void *p)
{
  const struct sample_request *req = p;
  char ts[32], escaped[256], event[1024], line[1400];
  struct er_overview_record rec;
  if (col_target_pid != 0)
    er_overview_fill_proc(&rec, col_target_pid, overview_create, req->when);
  else
    er_overview_fill(&rec, overview_create, req->when);
  er_format_tstamp(ts, sizeof ts, req->when - col_exp.run_tstamp);
  event[0] = '\0';
  if (req->event_xml != NULL)
    snprintf(event, sizeof event, req->event_xml, ts);
  er_xml_escape(req->label, escaped, sizeof escaped);
  int n = snprintf(line, sizeof line, "%s<event kind=\"sample\" tstamp=\"%s\" id=\"%d\" label=\"%s\"/>\n",
                   event, ts, col_exp.next_sample_id, escaped);
  if (n < 0 || (size_t)n >= sizeof line || !er_recordfile_room(&col_exp.overview, sizeof rec, req->final) ||
      !er_recordfile_room(&col_exp.log, strlen(line), req->final)) {
    col_exp.samples_dropped++;
    return;
  }
  if (er_overview_append(&col_exp.overview, &rec, req->final) != 0) {
    col_exp.samples_dropped++;
    return;
  }
  if (er_recordfile_append(&col_exp.log, line, strlen(line), req->final) != 0) {
    col_exp.samples_dropped++; /* one overview record too many: the end warning says so */
    return;
  }
  __atomic_store_n(&col_exp.next_sample_id, col_exp.next_sample_id + 1, __ATOMIC_RELAXED);
}

static void request_sample(const char *label, const char *event_xml, int64_t when, int final)
{
  struct sample_request req = {label, event_xml, when, final};
  col_on_runtime_thread(write_sample, &req);
}

void col_log_sample(const char *label)
{
  request_sample(label, NULL, col_hrtime(), 0);
}

void col_log_sample_at(const char *label, int64_t tstamp)
{
  request_sample(label, NULL, tstamp, 0);
}

void col_log_final_sample(const char *label)
{
  request_sample(label, NULL, col_hrtime(), 1);
}

void col_log_sample_with_event_at(const char *label, const char *event_xml, int64_t tstamp)
{
  request_sample(label, event_xml, tstamp, 0);
}

struct line_request {
  const char *line;
  int final;
};

static void write_line(void *p)
{
  const struct line_request *req = p;
  er_recordfile_append(&col_exp.log, req->line, strlen(req->line), req->final);
}

static void log_message(const char *kind, int id, int final, const char *fmt, va_list ap)
{
  char text[2048], escaped[4096], line[4200];
  vsnprintf(text, sizeof text, fmt, ap);
  er_xml_escape(text, escaped, sizeof escaped);
  snprintf(line, sizeof line, "<event kind=\"%s\" id=\"%d\">%s</event>\n", kind, id, escaped);
  struct line_request req = {line, final};
  col_on_runtime_thread(write_line, &req);
}

void col_log_comment(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_message("comment", 400, 0, fmt, ap); /* COMMENT_NONE: free text */
  va_end(ap);
}

void col_log_warning(int id, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_message("cwarn", id, 0, fmt, ap);
  va_end(ap);
}

void col_log_final_warning(int id, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_message("cwarn", id, 1, fmt, ap);
  va_end(ap);
}

void col_log_exit(const char *ended_early)
{
  char ts[32], why[400], line[600];
  er_format_tstamp(ts, sizeof ts, col_hrtime() - col_exp.run_tstamp);
  /* how="killed": the end came without the program's exit; how="collector"
   * why="...": the collection ended while the program ran on (gprofng
   * reads either as an end all the same; our reader says how it ended). */
  if (col_end_without_exit)
    snprintf(line, sizeof line, "<event kind=\"exit\" tstamp=\"%s\" how=\"killed\"/>\n", ts);
  else if (ended_early != NULL) {
    er_xml_escape(ended_early, why, sizeof why);
    snprintf(line, sizeof line, "<event kind=\"exit\" tstamp=\"%s\" how=\"collector\" why=\"%s\"/>\n", ts, why);
  }
  else
    snprintf(line, sizeof line, "<event kind=\"exit\" tstamp=\"%s\"/>\n", ts);
  struct line_request req = {line, 1};
  col_on_runtime_thread(write_line, &req);
}

/* An experiment that could not even be started leaves nothing behind:
 * only the names this runtime created, then the directory it made. */
void col_log_discard(void)
{
  static const char *const created[] = {"log.xml", "overview", "data.frameinfo", "profile", "map.xml"};
  int dirfd = col_exp.dirfd;
  col_exp.dirfd = -1;
  col_log_close();
  if (dirfd < 0)
    return;
  for (size_t i = 0; i < sizeof created / sizeof created[0]; i++)
    unlinkat(dirfd, created[i], 0);
  close(dirfd);
  rmdir(col_exp.path);
}

void col_log_close(void)
{
  er_recordfile_close(&col_exp.log);
  er_recordfile_close(&col_exp.overview);
  if (col_exp.dirfd >= 0)
    close(col_exp.dirfd);
  col_exp.dirfd = -1;
  er_datafile_close(&col_exp.frameinfo);
  for (int k = 0; k < ER_N_KINDS; k++)
    er_datafile_close(&col_exp.data[k]);
}

struct status_request {
  const struct col_config *cfg;
  const char *state, *detail;
};

/* Who samples the clock: the sampler process outside the program, or
 * inside it a perf task-clock per thread or, where the kernel refuses perf
 * events (perf_errno says why), CPU-time timers and a signal.  GDB tells
 * the user what the fallback costs and how to get more. */
static const char *clock_source(void)
{
  if (col_target_pid != 0)
    return "sampler-process";
  if (col_clock_stats.timer_threads > 0)
    return "timer";
  return col_clock_stats.perf_threads > 0 ? "perf-in-process" : "";
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
                   control, (unsigned long long)col_descendants_seen,
                   (unsigned long long)(col_descendant_samples * (uint64_t)req->cfg->clock_interval_us / 1000),
                   (unsigned long long)col_descendant_experiments, col_exec_followed,
                   (unsigned long long)(col_ticks_appended * (uint64_t)(req->cfg->clock_interval_us > 0
                                                                          ? req->cfg->clock_interval_us : 0) / 1000),
                   (unsigned long long)col_threads_seen, (unsigned long long)col_records_lost,
                   (unsigned long long)(col_unwind_stats.by_rules + col_unwind_stats.by_libunwind +
                                        col_unwind_stats.stopped),
                   (unsigned long long)col_unwind_stats.truncated, clock_source(), col_clock_stats.last_perf_errno,
                   detail_text);
  if (n > 0 && n < (int)sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, "status_answer=%llu\ntruncated_depth=%llu\nmax_frames=%ld\n",
                  (unsigned long long)col_status_answer, (unsigned long long)col_unwind_stats.truncated_depth,
                  req->cfg->max_frames);
  if (n > 0 && n < (int)sizeof text && col_status_note[0] != '\0') {
    static char note[sizeof col_status_note * 2 + 8];
    er_value_encode(col_status_note, note, sizeof note);
    n += snprintf(text + n, sizeof text - (size_t)n, "note=%s\n", note);
  }
  if (n > 0 && n < (int)sizeof text && col_blocking_threads > 0)
    n += snprintf(text + n, sizeof text - (size_t)n, "unsampled_ms=%llu\nblocking_threads=%u\n",
                  (unsigned long long)(col_unsampled_ns / 1000000), col_blocking_threads);
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
char col_status_note[512];

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
uint64_t col_unsampled_ns; /* runtime/blocked_signal.c's, said in the status */
unsigned col_blocking_threads;

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
