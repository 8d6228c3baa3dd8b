/* The process an experiment describes: this one, or (in the sampler
 * process) the program it samples. */
#ifndef COL_CORE_TARGET_H
#define COL_CORE_TARGET_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

/* 0 while it is this process; the sampler process sets the program's pid. */
extern pid_t col_target_pid;
/* The program's command line when known better than /proc says (the
 * sampler process is told it before the exec). */
extern char col_target_command[4096];
pid_t col_target(void);
/* When the run began, if not when the experiment is opened (0). */
extern int64_t col_run_started_at;
/* "/proc/self/LEAF" or "/proc/PID/LEAF". */
void col_target_path(char *out, size_t len, const char *leaf);
struct col_target_ids {
  pid_t pid, ppid, pgrp, sid;
};
void col_target_ids(struct col_target_ids *ids);
int col_target_cwd(char *out, size_t len);
/* The command line, words separated by spaces; its length (0: unknown). */
size_t col_target_cmdline(char *out, size_t len);

#endif
