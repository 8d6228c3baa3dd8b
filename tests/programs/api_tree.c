/* The Collector API used in descendants, each region a known CPU time.
 *     api_tree tree MS [ready]  (ready: says so, then waits 2 s first, to be
 *                           attached) parent_work; a fork whose child labels a sample
 *                           ("forked_child"), does child_work, ends its
 *                           experiment (collector_terminate_expt) and does
 *                           after_end_work; then system() runs "api_tree
 *                           leaf MS" through the shell
 *     api_tree clearenv MS  empties its environment, then execs "api_tree
 *                           leaf MS"
 *     api_tree leaf MS      a sample ("leaf_start"), paused_work inside
 *                           collector_pause/collector_resume, leaf_work;
 *                           prints env_clean=1 when no variable of the
 *                           collector is in its environment
 * Prints "children=N" (tree) and its own output only. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectorAPI.h"
#include "cpu_now.h"

extern char **environ;
static volatile double sink;

#define REGION(name, factor)                                        \
  __attribute__((noipa)) static void name(double ms)                \
  {                                                                 \
    double end = cpu_now() + ms / 1000.0;                           \
    while (cpu_now() < end)                                         \
      for (int i = 0; i < 5000; i++)                                \
        sink += i * factor;                                         \
  }
REGION(parent_work, 0.5)
REGION(child_work, 0.25)
REGION(after_end_work, 0.125)
REGION(paused_work, 0.75)
REGION(leaf_work, 1.5)

static int environment_clean(void)
{
  for (char **e = environ; *e != NULL; e++)
    if (strncmp(*e, "GDBCOL_", 7) == 0 || strncmp(*e, "LD_PRELOAD=", 11) == 0)
      return 0;
  return 1;
}

static int leaf(double ms)
{
  collector_sample("leaf_start");
  collector_pause();
  paused_work(ms);
  collector_resume();
  leaf_work(ms);
  printf("env_clean=%d\n", environment_clean());
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: api_tree tree MS | clearenv MS | leaf MS\n");
    return 2;
  }
  double ms = atof(argv[2]);
  char self[4096], command[4200];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len < 0)
    return 1;
  self[len] = '\0';
  if (strcmp(argv[1], "leaf") == 0)
    return leaf(ms);
  if (strcmp(argv[1], "clearenv") == 0) {
    clearenv();
    execl(self, self, "leaf", argv[2], (char *)NULL);
    return 127;
  }
  if (argc > 3 && strcmp(argv[3], "ready") == 0) {
    printf("ready\n");
    fflush(stdout);
    sleep(2);
  }
  parent_work(ms);
  int children = 0;
  pid_t child = fork();
  if (child == 0) {
    collector_sample("forked_child");
    child_work(ms);
    collector_terminate_expt();
    after_end_work(ms);
    _exit(0);
  }
  if (child > 0 && waitpid(child, NULL, 0) == child)
    children++;
  snprintf(command, sizeof command, "%s leaf %s", self, argv[2]);
  if (system(command) == 0)
    children++;
  printf("children=%d\n", children);
  return 0;
}
