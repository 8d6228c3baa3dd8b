/* log.xml (§3), overview (§7) and the status file the plugin reads.
 * Every write is one complete line (or record) in one write(2), so the
 * experiment can be read at any moment, also after the process is killed. */
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

#include "collector_internal.h"
#include "er/er_fileutil.h"
#include "er/er_naming.h"
#include "er/er_overview.h"
#include "er/er_text.h"

struct col_experiment col_exp = {.dirfd = -1, .log_fd = -1, .overview_fd = -1};
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
  er_text_printf(col_exp.log_fd, "<system hostname=\"%s\" arch=\"x86_64\" os=\"%s\" pagesz=\"%ld\" npages=\"%ld\">\n",
                 host, os_escaped, sysconf(_SC_PAGESIZE), sysconf(_SC_PHYS_PAGES));
  long ncpu = sysconf(_SC_NPROCESSORS_CONF);
  for (long i = 0; i < ncpu && i < 4096; i++)
    er_text_printf(col_exp.log_fd, "  <cpu id=\"%ld\"/>\n", i);
  er_text_printf(col_exp.log_fd, "</system>\n");
}

static void log_process(void)
{
  char cwd[PATH_MAX], escaped[PATH_MAX * 6];
  int fd = col_exp.log_fd;
  er_text_printf(fd, "<process pid=\"%d\"></process>\n", getpid());
  er_text_printf(fd, "<process ppid=\"%d\"></process>\n", getppid());
  er_text_printf(fd, "<process pgrp=\"%d\"></process>\n", getpgrp());
  er_text_printf(fd, "<process sid=\"%d\"></process>\n", getsid(0));
  if (getcwd(cwd, sizeof cwd) != NULL) {
    er_xml_escape(cwd, escaped, sizeof escaped);
    er_text_printf(fd, "<process cwd=\"%s\"></process>\n", escaped);
  }
  er_text_printf(fd, "<process wsize=\"64\"></process>\n");
  /* The command line: argv[0]'s basename names the target for gprofng. */
  char cmdline[4096];
  int cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ssize_t n = cfd >= 0 ? read(cfd, cmdline, sizeof cmdline - 1) : -1;
  if (cfd >= 0)
    close(cfd);
  if (n > 0) {
    for (ssize_t i = 0; i < n - 1; i++)
      if (cmdline[i] == '\0')
        cmdline[i] = ' ';
    cmdline[n] = '\0';
    er_xml_escape(cmdline, escaped, sizeof escaped);
    er_text_printf(fd, "<process>%s</process>\n", escaped);
  }
}

int col_log_open(const struct col_config *cfg, char *err, size_t err_len)
{
  int dirfd = er_create_experiment_dir(cfg->store_dir, cfg->experiment_name[0] ? cfg->experiment_name : NULL,
                                       col_exp.path, sizeof col_exp.path);
  if (dirfd < 0) {
    snprintf(err, err_len, "cannot create the experiment in %s: %s", cfg->store_dir,
             dirfd == -EEXIST ? "an experiment of that name exists" : strerror(-dirfd));
    return dirfd;
  }
  col_exp.dirfd = dirfd;
  col_exp.next_sample_id = 0; /* id 0 carries the start label (§3.3) */
  col_exp.log_fd = er_create_exclusive(dirfd, "log.xml", O_WRONLY | O_APPEND);
  col_exp.overview_fd = er_create_exclusive(dirfd, "overview", O_WRONLY | O_APPEND);
  int rc = col_exp.log_fd < 0 ? col_exp.log_fd : col_exp.overview_fd;
  if (rc >= 0)
    rc = er_datafile_create(&col_exp.frameinfo, dirfd, "data.frameinfo");
  if (rc >= 0 && cfg->clock_interval_us > 0)
    rc = er_datafile_create(&col_exp.profile, dirfd, "profile");
  if (rc < 0) {
    snprintf(err, err_len, "cannot create the files of %s: %s", col_exp.path, strerror(-rc));
    return rc;
  }
  int fd = col_exp.log_fd;
  er_text_printf(fd, "<experiment version=\"12.4\">\n<collector>gdb-collector %s</collector>\n</experiment>\n",
                 GDBCOL_VERSION);
  log_system();
  log_process();
  col_exp.run_tstamp = col_hrtime();
  char ts[32];
  er_format_tstamp(ts, sizeof ts, col_exp.run_tstamp);
  er_text_printf(fd, "<event kind=\"run\" tstamp=\"%s\" time=\"%lld\" tm_zone=\"0\"/>\n", ts, (long long)time(NULL));
  overview_create = col_exp.run_tstamp;
  return 0;
}

void col_log_settings(const struct col_config *cfg)
{
  /* gprofng's header shows it under "Data collection parameters"; whole
   * seconds, 0 for manual sampling. */
  long seconds = cfg->sample_period_ms > 0 ? (cfg->sample_period_ms + 999) / 1000 : 0;
  er_text_printf(col_exp.log_fd, "<setting sample_period=\"%ld\"/>\n", seconds);
  if (cfg->limit_mb > 0)
    er_text_printf(col_exp.log_fd, "<setting limit=\"%ld\"/>\n", cfg->limit_mb);
}

void col_log_profile_block(long interval_us)
{
  er_text_printf(col_exp.log_fd,
                 "<profile name=\"profile\" ptimer=\"%ld\" numstates=\"1\">\n"
                 "  <profdata fname=\"profile\"/>\n"
                 "  <profpckt kind=\"8\" uname=\"Clock profiling data\">\n"
                 "    <field name=\"LWPID\" uname=\"Lightweight process id\" offset=\"8\" type=\"INT64\"/>\n"
                 "    <field name=\"THRID\" uname=\"Thread number\" offset=\"16\" type=\"INT64\"/>\n"
                 "    <field name=\"CPUID\" uname=\"CPU id\" offset=\"24\" type=\"INT32\"/>\n"
                 "    <field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"28\" type=\"INT64\"/>\n"
                 "    <field name=\"FRINFO\" offset=\"36\" type=\"INT64\"/>\n"
                 "    <field name=\"MSTATE\" uname=\"Thread state\" offset=\"44\" type=\"INT32\"/>\n"
                 "    <field name=\"NTICK\" uname=\"Duration\" offset=\"48\" type=\"INT32\"/>\n"
                 "  </profpckt>\n"
                 "</profile>\n",
                 interval_us);
}

/* A sample event and its overview record always go together: the reader
 * pairs them by position (§7).  Samples come from several threads (the
 * program through the API, GDB's calls, the sampler): the pair is written
 * under a lock.  Never called from a signal handler. */
static pthread_mutex_t sample_lock = PTHREAD_MUTEX_INITIALIZER;
static void log_sample_locked(const char *label, const char *event_xml);

void col_log_sample(const char *label)
{
  pthread_mutex_lock(&sample_lock);
  log_sample_locked(label, NULL);
  pthread_mutex_unlock(&sample_lock);
}

void col_log_sample_with_event(const char *label, const char *event_xml)
{
  pthread_mutex_lock(&sample_lock);
  log_sample_locked(label, event_xml);
  pthread_mutex_unlock(&sample_lock);
}

/* EVENT_XML, if any, is a "<event kind=... tstamp=\"%s\" .../>" format
 * written just before the sample, with the same timestamp. */
static void log_sample_locked(const char *label, const char *event_xml)
{
  int64_t now = col_hrtime();
  char ts[32], escaped[256];
  struct er_overview_record rec;
  er_overview_fill(&rec, overview_create, now);
  if (er_overview_append(col_exp.overview_fd, &rec) != 0)
    return;
  er_format_tstamp(ts, sizeof ts, now - col_exp.run_tstamp);
  if (event_xml != NULL)
    er_text_printf(col_exp.log_fd, event_xml, ts);
  er_xml_escape(label, escaped, sizeof escaped);
  er_text_printf(col_exp.log_fd, "<event kind=\"sample\" tstamp=\"%s\" id=\"%d\" label=\"%s\"/>\n", ts,
                 col_exp.next_sample_id++, escaped);
}

static void log_message(const char *kind, int id, const char *fmt, va_list ap)
{
  char text[2048], escaped[4096];
  vsnprintf(text, sizeof text, fmt, ap);
  er_xml_escape(text, escaped, sizeof escaped);
  er_text_printf(col_exp.log_fd, "<event kind=\"%s\" id=\"%d\">%s</event>\n", kind, id, escaped);
}

void col_log_comment(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_message("comment", 400, fmt, ap); /* COMMENT_NONE: free text */
  va_end(ap);
}

void col_log_warning(int id, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_message("cwarn", id, fmt, ap);
  va_end(ap);
}

void col_log_exit(void)
{
  char ts[32];
  er_format_tstamp(ts, sizeof ts, col_hrtime() - col_exp.run_tstamp);
  er_text_printf(col_exp.log_fd, "<event kind=\"exit\" tstamp=\"%s\"/>\n", ts);
}

void col_log_close(void)
{
  int *fds[] = {&col_exp.log_fd, &col_exp.overview_fd, &col_exp.dirfd};
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
    if (*fds[i] >= 0) {
      close(*fds[i]);
      *fds[i] = -1;
    }
  er_datafile_close(&col_exp.profile);
  er_datafile_close(&col_exp.frameinfo);
}

/* Several threads write it (the sampler every second, GDB's calls, the
 * API); one temporary name per thread keeps each rename whole.  An active
 * experiment with no other detail reports whether it is paused, whoever
 * writes. */
void col_status_write(const struct col_config *cfg, const char *state, const char *detail)
{
  if (cfg->status_path[0] == '\0')
    return;
  if (detail == NULL && strcmp(state, "active") == 0 && col_is_paused())
    detail = "paused";
  char tmp[PATH_MAX + 32], text[PATH_MAX + 512];
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", cfg->status_path, (int)gettid());
  col_progress_refresh();
  const struct col_progress *p = &gdbcol_progress;
  int n = snprintf(text, sizeof text,
                   "state=%s\npid=%d\nexperiment=%s\nsamples=%llu\nsample_points=%llu\ndata_bytes=%llu\n"
                   "limit_mb=%ld\nlimit_reached=%llu\ndetail=%s\n",
                   state, getpid(), col_exp.path, (unsigned long long)p->profile_packets,
                   (unsigned long long)p->sample_points, (unsigned long long)p->data_bytes,
                   cfg->limit_mb, (unsigned long long)p->limit_reached, detail ? detail : "");
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  int ok = er_write_all(fd, text, (size_t)(n < (int)sizeof text ? n : (int)sizeof text - 1)) == 0;
  close(fd);
  if (!ok || rename(tmp, cfg->status_path) != 0)
    unlink(tmp);
}
