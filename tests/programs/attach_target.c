/* A long-running multithreaded process to attach to: one thread computes,
 * two churn malloc/free (varied sizes, in batches, so allocator locks are
 * taken all the time), and a new short-lived thread is created every 300
 * ms, so threads born after an attach are seen.  The main thread sleeps in
 * nanosleep between creations, unless "busy" is given: then it churns malloc
 * too, and no thread sits in a harmless system call.  With "paced" the
 * two churning threads sleep 1 ms after each batch of 64 (at most 128 000
 * allocations a second: a test that waits for enough of them, then ends
 * the run, reads an experiment of a bounded size).
 *
 *   attach_target SECONDS [busy] [paced]
 *
 * Prints "ready" when running, then before its fixed last line the truth an attached
 * experiment is checked against: each group's thread CPU time since the
 * runtime was first seen mapped (the main thread looks every 20 ms), and
 * exits 3.  SIGUSR1 ends the run early
 * (the same last line and status). */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime_mapped.h"

static volatile sig_atomic_t stop, stop_early;
static int paced;

static void on_sigusr1(int sig)
{
  stop_early = 1;
}
static volatile double sink;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void compute_loop(void)
{
  for (int i = 0; i < 200000; i++)
    sink += i * 0.5;
}

/* Each worker's CPU clock when the runtime appeared, and at its end. */
static double cpu_at_runtime[3], cpu_at_end[3];

static double thread_cpu(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *compute_worker(void *arg)
{
  while (!stop)
    compute_loop();
  cpu_at_end[0] = thread_cpu(CLOCK_THREAD_CPUTIME_ID);
  return NULL;
}

__attribute__((noinline)) static void churn_malloc(unsigned *seed)
{
  void *blocks[64];
  for (int i = 0; i < 64; i++) {
    blocks[i] = malloc(16 + rand_r(seed) % 4096);
    memset(blocks[i], i, 16);
  }
  for (int i = 0; i < 64; i++)
    free(blocks[i]);
}

static void *malloc_worker(void *arg)
{
  unsigned slot = (unsigned)(uintptr_t)arg, seed = slot;
  while (!stop) {
    churn_malloc(&seed);
    if (paced)
      usleep(1000);
  }
  cpu_at_end[slot] = thread_cpu(CLOCK_THREAD_CPUTIME_ID);
  return NULL;
}

__attribute__((noinline, noclone)) static void late_compute(double seconds)
{
  double end = now() + seconds;
  while (now() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.25;
}

static void *late_worker(void *arg)
{
  late_compute(0.1);
  return NULL;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  int busy = 0;
  for (int i = 2; i < argc; i++) {
    busy |= strcmp(argv[i], "busy") == 0;
    paced |= strcmp(argv[i], "paced") == 0;
  }
  pthread_t workers[3];
  pthread_create(&workers[0], NULL, compute_worker, NULL);
  pthread_create(&workers[1], NULL, malloc_worker, (void *)1);
  pthread_create(&workers[2], NULL, malloc_worker, (void *)2);
  int n_workers = 3;
  printf("ready\n");
  fflush(stdout);
  double end = now() + seconds, next_late = now(), next_look = now();
  unsigned seed = 3;
  int late_threads = 0, runtime_seen = 0;
  double main_at_runtime = 0;
  signal(SIGUSR1, on_sigusr1);
  while (now() < end && !stop_early) {
    if (now() >= next_late) {
      pthread_t late;
      if (pthread_create(&late, NULL, late_worker, NULL) == 0) {
        pthread_detach(late);
        late_threads++;
      }
      next_late += 0.3;
    }
    if (!runtime_seen && now() >= next_look) {
      next_look = now() + 0.02;
      if (runtime_mapped()) {
        runtime_seen = 1;
        main_at_runtime = thread_cpu(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < 3; i++) {
          clockid_t clock;
          if (pthread_getcpuclockid(workers[i], &clock) == 0)
            cpu_at_runtime[i] = thread_cpu(clock);
        }
      }
    }
    if (busy)
      churn_malloc(&seed);
    else
      usleep(20000);
  }
  stop = 1;
  for (int i = 0; i < n_workers; i++)
    pthread_join(workers[i], NULL);
  if (runtime_seen)
    printf("cpu_since_runtime compute=%.3f churn=%.3f main=%.3f\n", cpu_at_end[0] - cpu_at_runtime[0],
           cpu_at_end[1] - cpu_at_runtime[1] + cpu_at_end[2] - cpu_at_runtime[2],
           thread_cpu(CLOCK_THREAD_CPUTIME_ID) - main_at_runtime);
  printf("attach_target: finished, %d workers, late threads started: %s\n", n_workers, late_threads > 0 ? "yes" : "no");
  return 3;
}
