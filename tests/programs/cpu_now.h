/* The process's CPU time in seconds: the truth the test programs measure
 * their work against (a debugger's stops and the machine's load do not
 * count in it). */
#ifndef GDBCOL_TEST_CPU_NOW_H
#define GDBCOL_TEST_CPU_NOW_H

#include <time.h>

static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
