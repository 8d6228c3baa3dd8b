/* Which process the experiment describes: this one (the runtime inside the
 * program), or another (the sampler process, which profiles the program
 * from outside).  Facts about it come from getpid() and friends for this
 * process, from /proc/PID for another. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/target.h"
#include "er/er_fileutil.h"

pid_t col_target_pid; /* 0: this process */
int64_t col_run_started_at;
char col_target_command[4096];

pid_t col_target(void)
{
  return col_target_pid != 0 ? col_target_pid : getpid();
}

void col_target_path(char *out, size_t len, const char *leaf)
{
  if (col_target_pid != 0)
    snprintf(out, len, "/proc/%d/%s", (int)col_target_pid, leaf);
  else
    snprintf(out, len, "/proc/self/%s", leaf);
}

/* Field N (1-based, after the command) of /proc/PID/stat. */
static long stat_field(int n)
{
  char path[64], text[1024];
  col_target_path(path, sizeof path, "stat");
  if (er_read_text(path, text, sizeof text) <= 0)
    return 0;
  const char *p = strrchr(text, ')'); /* the command may hold spaces */
  long value = 0;
  for (int field = 3; p != NULL && field <= n; field++) { /* (the first space after it precedes field 3) */
    p = strchr(p + 1, ' ');
    if (p != NULL && field == n)
      sscanf(p + 1, "%ld", &value);
  }
  return value;
}

void col_target_ids(struct col_target_ids *ids)
{
  if (col_target_pid == 0) {
    ids->pid = getpid(), ids->ppid = getppid(), ids->pgrp = getpgrp(), ids->sid = getsid(0);
    return;
  }
  ids->pid = col_target_pid;
  ids->ppid = (pid_t)stat_field(4);
  ids->pgrp = (pid_t)stat_field(5);
  ids->sid = (pid_t)stat_field(6);
}

int col_target_cwd(char *out, size_t len)
{
  if (col_target_pid == 0)
    return getcwd(out, len) != NULL ? 0 : -1;
  char path[64];
  col_target_path(path, sizeof path, "cwd");
  ssize_t n = readlink(path, out, len - 1);
  if (n < 0)
    return -1;
  out[n] = '\0';
  return 0;
}

/* NUL-separated words, as /proc/PID/cmdline. */
size_t col_target_cmdline(char *out, size_t len)
{
  if (col_target_command[0] != '\0') {
    snprintf(out, len, "%s", col_target_command);
    return strlen(out);
  }
  char path[64];
  col_target_path(path, sizeof path, "cmdline");
  long n = er_read_text(path, out, len);
  if (n <= 0)
    return 0;
  for (long i = 0; i < n - 1; i++) /* words are NUL-separated */
    if (out[i] == '\0')
      out[i] = ' ';
  return (size_t)n;
}
