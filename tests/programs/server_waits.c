/* A server-like program whose threads mostly wait (issue 30): WORKERS
 * threads wait on a condition variable for jobs (each job 5 ms of CPU),
 * one listener thread waits in read() on a pipe for the whole run, and the
 * main thread hands out a job every 100 ms for SECONDS, then wakes the
 * listener and stops the workers.  Each thread measures its own time from
 * the start (or from "go") to its end, and its own CPU time:
 *     thread=worker0 wall=2.003 cpu=0.101
 *     server_waits [SECONDS] [wait FILE]   (SECONDS default 2; wait: says
 *                                          "ready" with the threads made
 *                                          and waiting, then waits until
 *                                          FILE exists) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static int jobs, stopping;
static int wire[2];
static double started; /* CLOCK_MONOTONIC: the start, or "go" */
static volatile double sink;

static double now(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(const char *name)
{
  printf("thread=%s wall=%.3f cpu=%.3f\n", name, now(CLOCK_MONOTONIC) - started, now(CLOCK_THREAD_CPUTIME_ID));
}

__attribute__((noinline)) static void do_job(void)
{
  double start = now(CLOCK_THREAD_CPUTIME_ID);
  while (now(CLOCK_THREAD_CPUTIME_ID) - start < 0.005)
    for (int i = 0; i < 1000; i++)
      sink += i * 0.5;
}

__attribute__((noinline)) static void *worker(void *arg)
{
  char name[16];
  snprintf(name, sizeof name, "worker%ld", (long)(intptr_t)arg);
  pthread_mutex_lock(&lock);
  for (;;) {
    while (jobs == 0 && !stopping)
      pthread_cond_wait(&work, &lock);
    if (jobs == 0)
      break;
    jobs--;
    pthread_mutex_unlock(&lock);
    do_job();
    pthread_mutex_lock(&lock);
  }
  pthread_mutex_unlock(&lock);
  flockfile(stdout);
  report(name);
  funlockfile(stdout);
  return NULL;
}

__attribute__((noinline)) static void *listener(void *arg)
{
  char byte;
  while (read(wire[0], &byte, 1) != 1)
    ;
  flockfile(stdout);
  report("listener");
  funlockfile(stdout);
  return arg;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 && strcmp(argv[1], "wait") != 0 ? atof(argv[1]) : 2.0;
  if (pipe(wire) != 0)
    return 1;
  started = now(CLOCK_MONOTONIC);
  pthread_t threads[WORKERS + 1];
  for (long i = 0; i < WORKERS; i++)
    pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i);
  pthread_create(&threads[WORKERS], NULL, listener, NULL);
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "wait") == 0) {
      usleep(100000); /* the threads are waiting by now */
      printf("ready\n");
      fflush(stdout);
      while (access(argv[i + 1], F_OK) != 0)
        usleep(10000);
      started = now(CLOCK_MONOTONIC);
    }
  for (double end = started + seconds; now(CLOCK_MONOTONIC) < end;) {
    pthread_mutex_lock(&lock);
    jobs++;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
    usleep(100000);
  }
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_cond_broadcast(&work);
  pthread_mutex_unlock(&lock);
  if (write(wire[1], "x", 1) != 1)
    return 1;
  for (int i = 0; i <= WORKERS; i++)
    pthread_join(threads[i], NULL);
  flockfile(stdout);
  report("main");
  funlockfile(stdout);
  return 0;
}
