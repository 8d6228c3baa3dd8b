/* A rank on another node: the launcher's daemon there started it with the
 * runtime in LD_PRELOAD and the job's settings in GDBCOL_JOB (forwarded by
 * the launcher: runtime/job_forwarding.c), and no sampler process follows
 * it, since the job's runs on GDB's node and follows only the processes
 * that node's launcher forks.  So the rank starts a sampler process of its
 * own, on itself, as `collector enable` after `gdb -p` does (the process is
 * single-threaded here, before main: no thread can appear unseen), with a
 * session directory of its own in this node's memory, and its experiment
 * is M_r<rank>.er in the job's experiment on the shared store, joined to
 * the job's group file (core/experiment_log.c).  Where the sampler process
 * cannot start (perf events refused on that node), the rank samples itself
 * from inside, as a launch does. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/job_rank.h"
#include "core/job_settings.h"
#include "interpose/descendant_carrier.h"
#include "runtime/outside_rank.h"
#include "runtime/sampler_start.h"
#include "control_page.h"
#include "er/er_naming.h"
#include "er/er_text.h"

#define MAX_SETTINGS (sizeof((struct col_control_page *)0)->job_settings + 2 * PATH_MAX)
#define MAX_LINES 128

static char settings[MAX_SETTINGS];
static char session_dir[PATH_MAX], status_path[PATH_MAX + 16], token[PATH_MAX + 32];

void col_outside_rank_forget(void)
{
  unsetenv(COL_JOB_VARIABLE);
}

/* The session's small shared files go in memory, as GDB's do. */
static int make_session_dir(void)
{
  const char *parents[] = {getenv("XDG_RUNTIME_DIR"), "/dev/shm", "/tmp"};
  for (size_t i = 0; i < sizeof parents / sizeof parents[0]; i++) {
    if (parents[i] == NULL || parents[i][0] != '/' ||
        snprintf(session_dir, sizeof session_dir, "%s/gdbcol-rank-XXXXXX", parents[i]) >= (int)sizeof session_dir)
      continue;
    if (mkdtemp(session_dir) != NULL) {
      snprintf(status_path, sizeof status_path, "%s/status", session_dir);
      /* A member's token (sampler/session_dir.c): the directory stays
       * while this process lives, whoever leaves it first. */
      snprintf(token, sizeof token, "%s/rank-%d", session_dir, (int)getpid());
      int fd = open(token, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd >= 0)
        close(fd);
      return 0;
    }
  }
  return -1;
}

static void remove_session_dir(void)
{
  unlink(token);
  unlink(status_path);
  rmdir(session_dir);
}

/* The reason the sampler process wrote in the status file ("detail="). */
static void read_failure(char *why, size_t why_len)
{
  char text[4096], buf[1024];
  int fd = open(status_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
  if (fd >= 0)
    close(fd);
  text[n > 0 ? n : 0] = '\0';
  const char *detail = strstr(text, "\ndetail=");
  char *end = detail != NULL ? strchr(detail + 8, '\n') : NULL;
  if (end != NULL)
    *end = '\0';
  const char *decoded = detail != NULL ? er_value_decode(detail + 8, buf, sizeof buf) : NULL;
  snprintf(why, why_len, "its sampler process could not start%s%s", decoded != NULL && decoded[0] ? ": " : "",
           decoded != NULL ? decoded : "");
}

/* SETTINGS' lines as the sampler process's environment (in a copy). */
static void settings_environment(char **env, size_t max)
{
  static char lines[MAX_SETTINGS];
  snprintf(lines, sizeof lines, "%s", settings);
  size_t n = 0;
  for (char *line = lines; *line != '\0' && n + 1 < max;) {
    char *end = strchr(line, '\n');
    env[n++] = line;
    if (end == NULL)
      break;
    *end = '\0';
    line = end + 1;
  }
  env[n] = NULL;
}

enum col_rank_start col_outside_rank_start(struct col_config *cfg, char *why, size_t why_len)
{
  const char *carried = getenv(COL_JOB_VARIABLE);
  const char *job = carried != NULL ? er_value_decode(carried, settings, sizeof settings - 2 * PATH_MAX) : NULL;
  if (job != NULL && job != settings) /* plain text: copied before the variable goes */
    snprintf(settings, sizeof settings - 2 * PATH_MAX, "%s", job);
  unsetenv(COL_JOB_VARIABLE); /* the program sees the environment its user gave */
  if (carried != NULL)
    col_carrier_unpreload();
  int rank = job != NULL ? col_job_rank(getpid()) : -1;
  const char *runtime = col_carrier_runtime_path();
  if (rank < 0 || runtime == NULL)
    return COL_RANK_NONE; /* not a rank: a process of the launcher's own on that node */
  char sampler[PATH_MAX];
  snprintf(sampler, sizeof sampler, "%.*s/gdbcol-sampler", (int)(strrchr(runtime, '/') - runtime), runtime);
  int have_dir = make_session_dir() == 0;
  char encoded[PATH_MAX * 2 + 8];
  er_value_encode(status_path, encoded, sizeof encoded);
  size_t at = strlen(settings);
  snprintf(settings + at, sizeof settings - at, "GDBCOL_EXPERIMENT_NAME=" ER_RANK_PREFIX "%d.er\n%s%s%s", rank,
           have_dir ? "GDBCOL_STATUS_FILE=" : "", have_dir ? encoded : "", have_dir ? "\n" : "");
  char *env[MAX_LINES + 2];
  settings_environment(env, MAX_LINES);
  int started = have_dir && col_sampler_start_on_self(sampler, "--rank", env, NULL) == 0;
  if (!started) {
    if (have_dir)
      read_failure(why, why_len);
    else
      snprintf(why, why_len, "no directory for its sampler process's shared files could be made");
    if (have_dir)
      remove_session_dir();
    col_config_parse(cfg, settings);
    cfg->status_path[0] = '\0'; /* nobody reads it here */
    return COL_RANK_SAMPLED_INSIDE;
  }
  col_config_parse(cfg, settings);
  cfg->sampled_outside = 1;
  return COL_RANK_SAMPLED_OUTSIDE;
}
