/* Works, then replaces itself with another program.
 *     exec_after_work HOW [wait]
 * HOW: execl, execv, execvp, execle (exec /bin/true after 0.5 s of CPU),
 * fail (an exec of a missing program, then 0.3 s more CPU and exit 0).
 * "wait": print "ready" and sleep a second first (for an attach). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu_now.h"

static volatile double sink;

__attribute__((noinline)) static void work_before_exec(double seconds)
{
  double start = cpu_now();
  while (cpu_now() - start < seconds)
    for (int i = 0; i < 10000; i++)
      sink += i * 0.5;
}

int main(int argc, char **argv)
{
  const char *how = argc > 1 ? argv[1] : "execl";
  if (argc > 2 && strcmp(argv[2], "wait") == 0) {
    printf("ready\n");
    fflush(stdout);
    sleep(1);
  }
  work_before_exec(0.5);
  fflush(stdout);
  char *args[] = {"true", NULL};
  char *env[] = {"X=1", NULL};
  if (strcmp(how, "execl") == 0)
    execl("/bin/true", "true", (char *)NULL);
  else if (strcmp(how, "execv") == 0)
    execv("/bin/true", args);
  else if (strcmp(how, "execvp") == 0)
    execvp("true", args);
  else if (strcmp(how, "execle") == 0)
    execle("/bin/true", "true", (char *)NULL, env);
  else if (strcmp(how, "fail") == 0) {
    int rc = execl("/nonexistent/program", "program", (char *)NULL);
    printf("exec failed: rc=%d errno=%s\n", rc, errno == ENOENT ? "ENOENT" : "other");
    work_before_exec(0.3);
    return 0;
  }
  return 4;
}
