/* What a program sees of how it was started: the variables X and Y, its
 * LD_PRELOAD, its working directory and a line of its standard input,
 * echoed to standard output after about 0.3 s of CPU in burn().  Exit
 * status 5.  The runs under GDB's exec-wrapper, startup-with-shell off,
 * set environment, set cwd and run's redirections compare it with a run
 * without GDB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *shown(const char *value)
{
  return value != NULL ? value : "(unset)";
}

__attribute__((noinline)) double burn(double seconds)
{
  struct timespec t;
  double sum = 0, until;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  until = t.tv_sec + t.tv_nsec / 1e9 + seconds;
  do {
    for (int i = 1; i < 100000; i++)
      sum += 1.0 / i;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  } while (t.tv_sec + t.tv_nsec / 1e9 < until);
  return sum;
}

int main(int argc, char **argv)
{
  char cwd[4096], line[256] = "";
  if (getcwd(cwd, sizeof cwd) == NULL)
    strcpy(cwd, "?");
  if (fgets(line, sizeof line, stdin) == NULL)
    strcpy(line, "(no input)\n");
  double sum = burn(argc > 1 ? atof(argv[1]) : 0.3);
  printf("X=%s Y=%s LD_PRELOAD=%s cwd=%s stdin=%s", shown(getenv("X")), shown(getenv("Y")),
         shown(getenv("LD_PRELOAD")), cwd, line);
  printf("burned %s\n", sum > 0 ? "yes" : "no");
  return 5;
}
