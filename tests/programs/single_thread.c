/* A single-threaded program that reports what profiling must not change:
 * how many threads it has (/proc/self/task) and glibc's
 * __libc_single_threaded (cleared for good once a second thread exists),
 * after CPU work in spin().
 *     single_thread CPU_SECONDS [ready]   ready: say so first (a process to
 *                                          attach to while it spins) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/single_threaded.h>
#include <time.h>

#include "cpu_now.h"

static volatile double sink;

__attribute__((noinline)) void spin(double seconds)
{
  double start = cpu_now();
  while (cpu_now() - start < seconds)
    for (int i = 0; i < 10000; i++)
      sink += i * 0.5;
}

static int count_threads(void)
{
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
    n += e->d_name[0] != '.';
  if (d != NULL)
    closedir(d);
  return n;
}

int main(int argc, char **argv)
{
  if (argc > 2) {
    printf("ready\n");
    fflush(stdout);
  }
  spin(argc > 1 ? atof(argv[1]) : 0.5);
  printf("threads=%d single_threaded=%d cpu_seconds=%.3f\n", count_threads(), (int)__libc_single_threaded,
         cpu_now());
  return 0;
}
