/* Whose child the sampler process is (sampler_parent.h). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/sampler_parent.h"

static pid_t gdb_pid(void)
{
  const char *text = getenv("GDBCOL_GDB_PID");
  char *end;
  long pid = text != NULL ? strtol(text, &end, 10) : 0;
  return text != NULL && *end == '\0' && pid > 1 ? (pid_t)pid : 0;
}

int col_sampler_parent_is_gdb(void)
{
  pid_t gdb = gdb_pid();
  return gdb != 0 && getppid() == gdb;
}

pid_t col_sampler_fork(int *beside_gdb)
{
  *beside_gdb = 0;
  if (col_sampler_parent_is_gdb()) {
    /* The raw call (glibc has no wrapper for CLONE_PARENT without a new
     * stack): the child only execs, or forks and execs, so glibc's fork
     * handlers are not needed.  A namespace's init is refused (EINVAL). */
    pid_t child = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, 0);
    if (child >= 0) {
      *beside_gdb = 1;
      return child;
    }
  }
  return fork();
}

