/* gdbcol-launch: GDB's exec-wrapper in launch mode.
 *
 * GDB starts programs as `/bin/sh -c "exec WRAPPER PROGRAM ARGS"`.  A
 * preload set in GDB's inferior environment would reach the shell too; set
 * here, in the last process before the program, it reaches the program
 * only.  The user's LD_PRELOAD is saved so the runtime can put it back
 * before main (the program and its children see what the user set).
 *
 *   gdbcol-launch PROGRAM [ARGS...]     (environment: GDBCOL_PRELOAD=LIB) */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: gdbcol-launch PROGRAM [ARGS...]\n");
    return 127;
  }
  const char *runtime = getenv("GDBCOL_PRELOAD");
  if (runtime != NULL && *runtime != '\0') {
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
  execv(argv[1], argv + 1);
  /* execv only returns on failure: say so the way a shell would. */
  fprintf(stderr, "gdbcol-launch: cannot execute %s: %s\n", argv[1], strerror(errno));
  return errno == ENOENT ? 127 : 126;
}
