/* gdbcol-launch: GDB's exec-wrapper in launch mode.
 *
 * GDB starts programs as `/bin/sh -c "exec WRAPPER PROGRAM ARGS"`.  A
 * preload set in GDB's inferior environment would reach the shell too; set
 * here, in the last process before the program, it reaches the program
 * only.  The user's LD_PRELOAD is saved so the runtime can put it back
 * before main (the program and its children see what the user set).
 *
 * Clock profiling comes from outside the program (GDBCOL_CLOCK_SOURCE unset
 * or "process"): the sampler process (GDBCOL_SAMPLER) is started first,
 * opens its perf events on this process to begin at the exec, and says
 * when it is ready.  The runtime is still preloaded, with no thread and no
 * descriptor: it passes the Collector API's and GDB's requests to the
 * sampler process.  Where the sampler process cannot start (the kernel
 * refuses perf events), the runtime samples from inside (per-thread perf
 * events or CPU-time timers), as it does for GDBCOL_CLOCK_SOURCE=perf or
 * timer.
 *
 *   gdbcol-launch PROGRAM [ARGS...]     (environment: GDBCOL_PRELOAD=LIB) */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "er/er_data_kinds.h"
#include "er/er_text.h"
#include "runtime_objects.h"

extern char **environ;

static void preload_runtime(const char *runtime)
{
  const char *user = getenv("LD_PRELOAD");
  char *combined;
  if (user != NULL) {
    setenv("GDBCOL_SAVED_LD_PRELOAD", user, 1);
    if (asprintf(&combined, "%s:%s", runtime, user) < 0)
      combined = NULL;
  } else {
    setenv("GDBCOL_LD_PRELOAD_UNSET", "1", 1);
    combined = strdup(runtime);
  }
  if (combined != NULL)
    setenv("LD_PRELOAD", combined, 1);
  unsetenv("GDBCOL_PRELOAD");
}

/* Under Yama's ptrace scope 1 only a process's ancestors, or the one it
 * names, may read its threads' registers and memory; the sampler process
 * is none of our ancestors, and reads threads that wait for off-CPU
 * stacks (libcollector/sampler/blocked_stack.c).  Named now, before the
 * exec (the name holds across it, and is the kernel's to drop when the
 * sampler process ends): the program has set nothing yet that this could
 * replace.  Scopes 2 and 3 allow no such exception; the sampler says so. */
static void let_sampler_read_us(pid_t sampler_pid)
{
  char scope = 0;
  int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &scope, 1) != 1)
      scope = 0;
    close(fd);
  }
  const char *offcpu = getenv("GDBCOL_OFFCPU");
  int wanted = offcpu != NULL && strcmp(offcpu, "on") == 0; /* as the runtime reads it (core/config.c) */
  if (scope == '1' && sampler_pid > 0 && wanted)
    prctl(PR_SET_PTRACER, (unsigned long)sampler_pid, 0, 0, 0);
}

/* The sampler process as a grandchild, so that it is never a child the
 * program could wait for; 0 once it is ready, -1 when it could not start
 * (it wrote the reason in the status file). */
static int start_sampler_process(const char *sampler, char **argv)
{
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0)
    return -1;
  pid_t self = getpid(), child = fork();
  if (child < 0)
    return -1;
  if (child == 0) {
    if (fork() != 0)
      _exit(0);
    close(ready[0]);
    int argc = 0;
    while (argv[argc] != NULL)
      argc++;
    char pid_text[16], fd_text[16];
    snprintf(pid_text, sizeof pid_text, "%d", (int)self);
    snprintf(fd_text, sizeof fd_text, "%d", ready[1]);
    fcntl(ready[1], F_SETFD, 0); /* kept across its exec */
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (args == NULL)
      _exit(1);
    args[0] = (char *)sampler;
    args[1] = pid_text;
    args[2] = fd_text;
    for (int i = 0; i < argc; i++)
      args[3 + i] = argv[i];
    execv(sampler, args);
    _exit(127);
  }
  close(ready[1]);
  waitpid(child, NULL, 0);
  /* "R" and the sampler process's pid, or "E" (it wrote why). */
  char answer[32];
  size_t got = 0;
  ssize_t n;
  while (got < sizeof answer - 1 && ((n = read(ready[0], answer + got, sizeof answer - 1 - got)) > 0 ||
                                     (n < 0 && errno == EINTR)))
    got += n > 0 ? (size_t)n : 0;
  close(ready[0]);
  answer[got] = '\0';
  if (got == 0 || answer[0] != 'R')
    return -1;
  let_sampler_read_us((pid_t)atoi(answer + 1));
  return 0;
}

/* Some data kind is on (clock profiling, counters, any tracing): the
 * sampler process records them all, so a trace-only experiment needs it as
 * much as a profile does. */
static int any_data_kind_on(void)
{
  for (int k = 0; k < ER_N_KINDS; k++) {
    const char *value = getenv(er_kinds[k].setting);
    if (value != NULL && *value != '\0' && strcmp(value, "0") != 0 && strcmp(value, "off") != 0)
      return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: gdbcol-launch PROGRAM [ARGS...]\n");
    return 127;
  }
  /* GDB's values come encoded where they are not plain text (er_text.h). */
  static char runtime_buf[PATH_MAX], sampler_buf[PATH_MAX];
  const char *runtime = er_value_decode(getenv("GDBCOL_PRELOAD"), runtime_buf, sizeof runtime_buf);
  const char *source = getenv("GDBCOL_CLOCK_SOURCE");
  const char *sampler = er_value_decode(getenv("GDBCOL_SAMPLER"), sampler_buf, sizeof sampler_buf);
  /* The program GDB runs, by its bytes as GDB gave them here: the runtime
   * compares itself with it (a wrapper script's runtime stays inert). */
  static char target[PATH_MAX * 2 + 8];
  er_value_encode(argv[1], target, sizeof target);
  setenv("GDBCOL_TARGET", target, 1);
  int outside = source == NULL || *source == '\0' || strcmp(source, "process") == 0;
  int wanted = any_data_kind_on();
  /* The runtime's own libraries, for the experiment to leave out of its
   * load objects (the sampler process and the runtime read it). */
  char *own = runtime != NULL && *runtime != '\0' ? runtime_own_objects(argv[1], runtime) : NULL;
  if (own != NULL)
    setenv("GDBCOL_RUNTIME_OBJECTS", own, 1);
  free(own);
  if (outside && sampler != NULL && *sampler != '\0' && wanted) {
    if (start_sampler_process(sampler, argv + 1) == 0)
      setenv("GDBCOL_CLOCK_SOURCE", "process", 1); /* the runtime only posts */
    else
      setenv("GDBCOL_CLOCK_SOURCE", "inside", 1); /* the runtime samples itself */
  }
  if (runtime != NULL && *runtime != '\0') {
    preload_runtime(runtime);
  }
  execv(argv[1], argv + 1);
  /* execv only returns on failure: say so the way a shell would. */
  fprintf(stderr, "gdbcol-launch: cannot execute %s: %s\n", argv[1], strerror(errno));
  return errno == ENOENT ? 127 : 126;
}
