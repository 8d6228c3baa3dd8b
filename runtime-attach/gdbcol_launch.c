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
#include <sys/wait.h>
#include <unistd.h>

#include "er/er_data_kinds.h"
#include "er/er_text.h"
#include "runtime_objects.h"
#include "core/sampler_parent.h"
#include "runtime/sampler_start.h"

extern char **environ;

/* Appends ENTRY to the ':'-separated LIST of LEN bytes (once). */
static void add_entry(char *list, size_t len, const char *entry, size_t entry_len)
{
  size_t at = strlen(list);
  if (entry_len == 0 || at + entry_len + 2 > len)
    return;
  for (const char *p = list; *p != '\0'; p += strcspn(p, ":"), p += *p == ':')
    if (strncmp(p, entry, entry_len) == 0 && (p[entry_len] == ':' || p[entry_len] == '\0'))
      return;
  if (at > 0)
    list[at++] = ':';
  memcpy(list + at, entry, entry_len);
  list[at + entry_len] = '\0';
}

/* Each entry of the ':' or ' '-separated LIST that is (or is not, by
 * SANITIZERS) a sanitizer's runtime, appended to OUT. */
static void add_entries(char *out, size_t len, const char *list, int sanitizers)
{
  char entry[PATH_MAX];
  for (const char *p = list; p != NULL && *p != '\0';) {
    size_t n = strcspn(p, ": ");
    if (n > 0 && n < sizeof entry) {
      memcpy(entry, p, n);
      entry[n] = '\0';
      if (runtime_is_sanitizer(entry) == sanitizers)
        add_entry(out, len, entry, n);
    }
    p += n;
    p += strspn(p, ": ");
  }
}

/* LD_PRELOAD for the program (malloc'd): a sanitizer's runtime first (the
 * program's, or one the user preloads: AddressSanitizer refuses to start
 * unless it comes first among the loaded objects; it forwards the calls
 * it intercepts to the runtime's definitions, next in line), then the
 * runtime, then what the user preloads (USER, may be NULL). */
static char *preload_value(const char *runtime, const char *sanitizers, const char *user)
{
  size_t len = strlen(runtime) + (user != NULL ? strlen(user) : 0) + (sanitizers != NULL ? strlen(sanitizers) : 0) + 4;
  char *combined = calloc(1, len);
  if (combined != NULL) {
    add_entries(combined, len, user, 1);
    add_entries(combined, len, sanitizers, 1);
    add_entry(combined, len, runtime, strlen(runtime));
    add_entries(combined, len, user, 0);
  }
  return combined;
}

static void preload_runtime(const char *runtime, const char *sanitizers)
{
  const char *user = getenv("LD_PRELOAD");
  char *combined = preload_value(runtime, sanitizers, user);
  if (user != NULL)
    setenv("GDBCOL_SAVED_LD_PRELOAD", user, 1);
  else
    setenv("GDBCOL_LD_PRELOAD_UNSET", "1", 1);
  if (combined != NULL)
    setenv("LD_PRELOAD", combined, 1);
  free(combined);
  unsetenv("GDBCOL_PRELOAD");
}

/* `gdbcol-launch --preload-value PROGRAM`: prints the LD_PRELOAD PROGRAM
 * gets (the runtime in GDBCOL_PRELOAD, the user's preloads in
 * GDBCOL_USER_LD_PRELOAD: not in LD_PRELOAD, which would load them here),
 * for GDB to set itself where no launcher runs (startup-with-shell off,
 * the user's own exec-wrapper). */
static int print_preload_value(const char *program)
{
  static char runtime_buf[PATH_MAX];
  const char *runtime = er_value_decode(getenv("GDBCOL_PRELOAD"), runtime_buf, sizeof runtime_buf);
  if (runtime == NULL || *runtime == '\0')
    return 2;
  char *sanitizers = NULL;
  free(runtime_own_objects(program, runtime, &sanitizers));
  char *value = preload_value(runtime, sanitizers, getenv("GDBCOL_USER_LD_PRELOAD"));
  free(sanitizers);
  if (value == NULL)
    return 1;
  printf("%s\n", value);
  free(value);
  return 0;
}

/* The sampler process reads threads that wait, for off-CPU stacks: under
 * Yama's scope 1 this process names it (runtime/sampler_start.h), now,
 * before the exec (the name holds across it, and is the kernel's to drop
 * when the sampler process ends): the program has set nothing yet that
 * this could replace. */
static void let_sampler_read_us(pid_t sampler_pid)
{
  const char *offcpu = getenv("GDBCOL_OFFCPU");
  col_sampler_may_read(offcpu != NULL && strcmp(offcpu, "on") == 0, sampler_pid); /* as core/config.c reads it */
}

/* The sampler process as GDB's child, where GDB is this process's parent
 * (GDB reaps it), else as a grandchild: never a child the program could
 * wait for; 0 once it is ready, -1 when it could not start (it wrote the
 * reason in the status file). */
static int start_sampler_process(const char *sampler, char **argv)
{
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0)
    return -1;
  int beside_gdb;
  pid_t self = getpid(), child = col_sampler_fork(&beside_gdb);
  if (child < 0)
    return -1;
  if (child == 0) {
    if (!beside_gdb && fork() != 0)
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
  if (!beside_gdb)
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
    fprintf(stderr, "usage: gdbcol-launch PROGRAM [ARGS...]\n       gdbcol-launch --preload-value PROGRAM\n");
    return 127;
  }
  if (argc == 3 && strcmp(argv[1], "--preload-value") == 0)
    return print_preload_value(argv[2]);
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
  char *sanitizers = NULL;
  char *own = runtime != NULL && *runtime != '\0' ? runtime_own_objects(argv[1], runtime, &sanitizers) : NULL;
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
    preload_runtime(runtime, sanitizers);
  }
  free(sanitizers);
  execv(argv[1], argv + 1);
  /* execv only returns on failure: say so the way a shell would. */
  fprintf(stderr, "gdbcol-launch: cannot execute %s: %s\n", argv[1], strerror(errno));
  return errno == ENOENT ? 127 : 126;
}
