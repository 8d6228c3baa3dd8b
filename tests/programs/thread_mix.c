/* Short-lived threads beside long-lived ones, for checking that every
 * thread's CPU time is recorded whatever its lifetime.
 *
 *     thread_mix SHORT_THREADS ALIVE SHORT_MS LONG_THREADS LONG_SECONDS [ready]
 *
 * LONG_THREADS threads run long_work for LONG_SECONDS of CPU each while the
 * main thread creates SHORT_THREADS threads, ALIVE at a time (created, then
 * all joined), each running short_work for SHORT_MS of its own CPU time.
 * Each thread measures its CPU with its thread CPU clock; the totals per
 * group are the truth the profile is checked against:
 *     short_cpu=S long_cpu=L short_threads=N cpu_seconds=C
 * (C: the whole process's CPU time, creating threads included).  With
 * "ready", says so first and waits 2 s (a process to attach to). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double short_ms, long_seconds;
static double short_total, long_total;
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile double sink;

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void burn_until(double cpu_seconds)
{
  while (thread_cpu() < cpu_seconds)
    for (int i = 0; i < 2000; i++)
      sink += i * 0.25;
}

__attribute__((noinline)) static void short_work(void)
{
  burn_until(thread_cpu() + short_ms / 1000.0);
}

__attribute__((noinline)) static void long_work(void)
{
  burn_until(thread_cpu() + long_seconds);
}

static void add(double *total, double value)
{
  pthread_mutex_lock(&totals_lock);
  *total += value;
  pthread_mutex_unlock(&totals_lock);
}

static void *short_thread(void *arg)
{
  short_work();
  add(&short_total, thread_cpu());
  return arg;
}

static void *long_thread(void *arg)
{
  long_work();
  add(&long_total, thread_cpu());
  return arg;
}

int main(int argc, char **argv)
{
  if (argc < 6) {
    fprintf(stderr, "usage: thread_mix SHORT_THREADS ALIVE SHORT_MS LONG_THREADS LONG_SECONDS [ready]\n");
    return 2;
  }
  int shorts = atoi(argv[1]), alive = atoi(argv[2]), longs = atoi(argv[4]);
  short_ms = atof(argv[3]);
  long_seconds = atof(argv[5]);
  if (argc > 6 && strcmp(argv[6], "ready") == 0) {
    printf("ready\n");
    fflush(stdout);
    sleep(2);
  }
  pthread_t *long_ids = calloc((size_t)longs + 1, sizeof *long_ids);
  pthread_t *batch = calloc((size_t)alive + 1, sizeof *batch);
  for (int i = 0; i < longs; i++)
    pthread_create(&long_ids[i], NULL, long_thread, NULL);
  for (int made = 0; made < shorts;) {
    int n = 0;
    for (; n < alive && made < shorts; n++, made++)
      if (pthread_create(&batch[n], NULL, short_thread, NULL) != 0) {
        perror("pthread_create");
        return 1;
      }
    for (int i = 0; i < n; i++)
      pthread_join(batch[i], NULL);
  }
  for (int i = 0; i < longs; i++)
    pthread_join(long_ids[i], NULL);
  struct timespec all;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &all);
  printf("short_cpu=%.4f long_cpu=%.4f short_threads=%d cpu_seconds=%.3f\n", short_total, long_total, shorts,
         all.tv_sec + all.tv_nsec / 1e9);
  return 0;
}
