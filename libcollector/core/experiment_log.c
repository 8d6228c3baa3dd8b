/* log.xml (§3) and overview (§7).
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
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/job_rank.h"
#include "core/runtime_calls.h"
#include "core/target.h"
#include "control_page.h"
#include "er/er_fileutil.h"
#include "er/er_group.h"
#include "er/er_naming.h"
#include "er/er_overview.h"
#include "er/er_recordfile.h"
#include "er/er_text.h"

/* Room kept for the closing records: log.xml's end comments, warnings,
 * last sample and exit event (about 2 KB); the last overview records. */
#define LOG_CLOSING_RESERVE (8 * 1024)
#define OVERVIEW_CLOSING_RESERVE (4 * sizeof(struct er_overview_record))

struct col_experiment col_exp = {.dirfd = -1, .log = {.fd = -1}, .overview = {.fd = -1},
                                  .frameinfo = {.fd = -1}, .omptrace = {.fd = -1},
                                  .data = {[0 ... ER_N_KINDS - 1] = {.fd = -1}}};
static int64_t overview_create;

#define MAX_CPUS_LOGGED 4096

/* Each CPU's clock in MHz from /proc/cpuinfo ("cpu MHz" under its
 * "processor"), 0 where not given, in MHZ[0..N); returns the first one
 * found (0: none).  gprofng's header shows it ("clock speed 0 MHz" before)
 * and converts cycle counts to time with it.  A machine whose list does
 * not fit the buffer has the first clock for the rest. */
static int cpu_clocks_mhz(int *mhz, int n)
{
  static char text[64 * 1024];
  memset(mhz, 0, (size_t)n * sizeof *mhz);
  if (er_read_text("/proc/cpuinfo", text, sizeof text) <= 0)
    return 0;
  int cpu = -1, first = 0;
  for (const char *line = text; line != NULL && *line != '\0';) {
    double value;
    int id;
    if (sscanf(line, "processor : %d", &id) == 1)
      cpu = id;
    else if (sscanf(line, "cpu MHz : %lf", &value) == 1 && value > 0) {
      if (cpu >= 0 && cpu < n)
        mhz[cpu] = (int)(value + 0.5);
      if (first == 0)
        first = (int)(value + 0.5);
    }
    line = strchr(line, '\n');
    line = line != NULL ? line + 1 : NULL;
  }
  return first;
}

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
  static int mhz[MAX_CPUS_LOGGED];
  int any = cpu_clocks_mhz(mhz, ncpu < MAX_CPUS_LOGGED ? (int)ncpu : MAX_CPUS_LOGGED);
  for (long i = 0; i < ncpu && i < MAX_CPUS_LOGGED; i++) {
    int clk = mhz[i] > 0 ? mhz[i] : any;
    if (clk > 0)
      er_recordfile_printf(&col_exp.log, 0, "  <cpu id=\"%ld\" clk=\"%d\"/>\n", i, clk);
    else
      er_recordfile_printf(&col_exp.log, 0, "  <cpu id=\"%ld\"/>\n", i);
  }
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

/* The experiment just made joins the group file of the MPI job in JOB (a
 * descendant rank's: FIRST, its founder, heads a new group; one GDB per
 * rank: NULL); a group that cannot be written leaves the ranks to be named
 * by hand. */
static void join_ranks_group(const char *job, const char *first)
{
  char group[PATH_MAX + 16], why[256];
  if (snprintf(group, sizeof group, "%s/%s", job, ER_RANKS_GROUP) < (int)sizeof group)
    er_group_join_after(group, first, col_exp.path, why, sizeof why);
}

/* A descendant that is an MPI rank: its experiment is M_r<rank>.er (the
 * seeds' naming), listed with the job's in the job's group file, as
 * gprofng loads only the _*.er ones by itself.  Another process of the
 * same rank (a rank's own child) keeps its lineage's name. */
static int create_rank_dir(const struct col_config *cfg)
{
  /* Only a new image (a lineage that ends in an exec, _xN): a fork's child
   * before its exec is the launcher's, whatever /proc says by the time
   * its writer looks (it may have exec'd the rank already). */
  const char *last = strrchr(cfg->lineage, '_');
  if (last == NULL || last[1] != 'x')
    return -ENOENT;
  int rank = cfg->job_rank_known ? cfg->job_rank : col_job_rank(col_target_pid != 0 ? col_target_pid : getpid());
  char name[32];
  if (rank < 0)
    return -ENOENT;
  snprintf(name, sizeof name, ER_RANK_PREFIX "%d", rank);
  int dirfd = er_create_descendant_dir(cfg->store_dir, name, col_exp.path, sizeof col_exp.path);
  if (dirfd >= 0)
    join_ranks_group(cfg->store_dir, cfg->store_dir);
  return dirfd;
}

int col_log_name_as_rank(const struct col_config *cfg, int rank)
{
  const char *last = strrchr(cfg->lineage, '_'), *base = strrchr(col_exp.path, '/');
  if (last == NULL || last[1] != 'x' || base == NULL || base[1] != '_')
    return 0; /* not a new image, or named as a rank already */
  char renamed[PATH_MAX];
  if (snprintf(renamed, sizeof renamed, "%s/" ER_RANK_PREFIX "%d.er", cfg->store_dir, rank) >= (int)sizeof renamed)
    return -ENAMETOOLONG;
  /* Never over another experiment; the open files follow the directory. */
  if (renameat2(AT_FDCWD, col_exp.path, AT_FDCWD, renamed, RENAME_NOREPLACE) != 0)
    return -errno;
  snprintf(col_exp.path, sizeof col_exp.path, "%s", renamed);
  join_ranks_group(cfg->store_dir, cfg->store_dir);
  col_log_comment("An MPI rank (%d): named M_r%d.er when its runtime said so; its exec was recorded before the "
                  "rank could be read", rank, rank);
  return 1;
}

int col_log_open(const struct col_config *cfg, char *err, size_t err_len)
{
  int dirfd = cfg->lineage[0] != '\0' ? create_rank_dir(cfg) : -ENOENT;
  if (dirfd < 0)
    dirfd = cfg->lineage[0] != '\0'
                ? er_create_descendant_dir(cfg->store_dir, cfg->lineage, col_exp.path, sizeof col_exp.path)
                : er_create_experiment_dir(cfg->store_dir, cfg->experiment_name[0] ? cfg->experiment_name : NULL,
                                           col_exp.path, sizeof col_exp.path);
  /* One GDB per rank (the plugin named the experiment M_r<rank>.er in the
   * job's directory), or a rank on another node (in the job's experiment,
   * which then heads the group, as for the ranks followed on its node):
   * the rank joins the job's group file. */
  if (dirfd >= 0 && cfg->lineage[0] == '\0' &&
      strncmp(cfg->experiment_name, ER_RANK_PREFIX, strlen(ER_RANK_PREFIX)) == 0) {
    size_t n = strlen(cfg->store_dir);
    join_ranks_group(cfg->store_dir, n > 3 && strcmp(cfg->store_dir + n - 3, ".er") == 0 ? cfg->store_dir : NULL);
  }
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
  /* One file per kind, or the file of the kind it is written as (MPI
   * calls go in iotrace: er_data_kinds.h), made once. */
  unsigned made = 0; /* (a descendant's writer holds its founder's descriptors until now) */
  for (int k = 0; k < ER_N_KINDS && rc >= 0; k++) {
    enum er_kind file = er_kind_file_owner((enum er_kind)k);
    if (col_kind_on(cfg, (enum er_kind)k) && !(made >> file & 1u)) {
      rc = er_datafile_create(&col_exp.data[file], dirfd, er_kinds[file].name);
      made |= 1u << file;
    }
  }
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

void col_log_exit(int killed, const char *ended_early)
{
  char ts[32], why[400], line[600];
  er_format_tstamp(ts, sizeof ts, col_hrtime() - col_exp.run_tstamp);
  /* how="killed": the end came without the program's exit; how="collector"
   * why="...": the collection ended while the program ran on (gprofng
   * reads either as an end all the same; our reader says how it ended). */
  if (killed)
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
  static const char *const created[] = {"log.xml", "overview", "data.frameinfo", "profile", "map.xml", "omptrace"};
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
  er_datafile_close(&col_exp.omptrace);
  for (int k = 0; k < ER_N_KINDS; k++)
    er_datafile_close(&col_exp.data[k]);
}
