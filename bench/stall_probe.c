/* The attach benchmark's target: two threads compute while a probe thread
 * reads the monotonic clock in a tight loop and keeps the longest gap it
 * saw: the time the whole process was stopped (by ptrace, by an injected
 * call).  SIGUSR1 ends the run; it prints max_gap_ms=... and exits.
 *
 *   stall_probe [SECONDS] */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile sig_atomic_t stop;
static volatile double sink;

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *compute(void *arg)
{
  while (!stop)
    for (int i = 0; i < 100000; i++)
      sink += i * 0.5;
  return NULL;
}

static void on_sigusr1(int sig)
{
  stop = 1;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 30;
  signal(SIGUSR1, on_sigusr1);
  pthread_t workers[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&workers[i], NULL, compute, NULL);
  printf("ready\n");
  fflush(stdout);
  double start = now_ms(), last = start, max_gap = 0;
  while (!stop && last - start < seconds * 1e3) {
    double t = now_ms();
    if (t - last > max_gap)
      max_gap = t - last;
    last = t;
  }
  stop = 1;
  for (int i = 0; i < 2; i++)
    pthread_join(workers[i], NULL);
  printf("max_gap_ms=%.1f\n", max_gap);
  return 0;
}
