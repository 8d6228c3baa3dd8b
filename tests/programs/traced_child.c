/* A process that already has a tracer: the child asks to be traced by its
 * parent (PTRACE_TRACEME), so the kernel refuses any other attach, root's
 * included.  Prints the child's pid; both exit after SECONDS.
 *
 *   traced_child [SECONDS] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  int tenths = (int)((argc > 1 ? atof(argv[1]) : 5) * 10);
  pid_t child = fork();
  if (child == 0) {
    ptrace(PTRACE_TRACEME, 0, NULL, NULL);
    for (int i = 0; i < tenths; i++)
      usleep(100000);
    return 0;
  }
  printf("%d\n", (int)child);
  fflush(stdout);
  for (int i = 0; i < tenths; i++)
    usleep(100000);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return 0;
}
