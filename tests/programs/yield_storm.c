/* A context-switch storm: two threads on one CPU yield to each other until
 * each has used SECONDS of its own CPU clock (the truth), about 150 000
 * switches a second of CPU here.  Prints "cpu thread=NAME seconds=S
 * switches=N" per thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds_wanted = 0.6;

static double thread_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static long yield_until_done(void)
{
  long yields = 0;
  while (thread_cpu() < seconds_wanted) {
    sched_yield();
    yields++;
  }
  return yields;
}

static void *partner(void *arg)
{
  (void)arg;
  long yields = yield_until_done();
  printf("cpu thread=partner seconds=%.4f yields=%ld\n", thread_cpu(), yields);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    seconds_wanted = atof(argv[1]);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_setaffinity(0, sizeof one, &one); /* (the partner inherits it) */
  pthread_t t;
  pthread_create(&t, NULL, partner, NULL);
  long yields = yield_until_done();
  printf("cpu thread=main seconds=%.4f yields=%ld\n", thread_cpu(), yields);
  fflush(stdout);
  pthread_join(t, NULL);
  return 0;
}
