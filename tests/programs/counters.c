/* Known counts for counter profiling:
 *   counters pages N SECONDS   touch_pages: N fresh pages, one write each
 *                              (N page faults); compute: SECONDS of CPU
 *                              time of arithmetic that faults nothing
 *   counters sleeps K          nap: K sleeps of 200 us (each at least one
 *                              context switch)
 *   counters pages N SECONDS ready   the same, after saying "ready" and
 *                              waiting 2 s (for an attach)
 *   counters threads T N       T threads one after the other, each
 *                              touching N fresh pages in short_lived
 *                              (fewer than one interval each: the tails)
 * Prints what it did. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* CPU time, not wall time: the same work on a loaded machine. */
static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void touch_pages(long n)
{
  long page = sysconf(_SC_PAGESIZE);
  volatile char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  for (long i = 0; i < n; i++)
    p[i * page] = 1;
}

__attribute__((noinline)) static double compute(double seconds)
{
  volatile double x = 1.0;
  double end = now() + seconds;
  while (now() < end)
    for (int i = 0; i < 10000; i++)
      x = x * 1.0000001 + 0.0000001;
  return x;
}

__attribute__((noinline)) static void nap(long k)
{
  for (long i = 0; i < k; i++) {
    struct timespec t = {0, 200000};
    nanosleep(&t, NULL);
  }
}

static long pages_per_thread;

__attribute__((noinline)) static void *short_lived(void *unused)
{
  (void)unused;
  long page = sysconf(_SC_PAGESIZE);
  size_t bytes = (size_t)(pages_per_thread * page);
  volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  for (long i = 0; i < pages_per_thread; i++)
    p[i * page] = 1;
  munmap((void *)p, bytes);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc == 4 && strcmp(argv[1], "threads") == 0) {
    long threads = atol(argv[2]);
    pages_per_thread = atol(argv[3]);
    for (long i = 0; i < threads; i++) {
      pthread_t t;
      if (pthread_create(&t, NULL, short_lived, NULL) != 0 || pthread_join(t, NULL) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        return 1;
      }
    }
    printf("threads=%ld pages=%ld\n", threads, threads * pages_per_thread);
    return 0;
  }
  if ((argc == 4 || (argc == 5 && strcmp(argv[4], "ready") == 0)) && strcmp(argv[1], "pages") == 0) {
    long n = atol(argv[2]);
    if (argc == 5) {
      printf("ready\n");
      fflush(stdout);
      sleep(2);
    }
    touch_pages(n);
    compute(atof(argv[3]));
    printf("pages=%ld\n", n);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "sleeps") == 0) {
    long k = atol(argv[2]);
    nap(k);
    printf("sleeps=%ld\n", k);
    return 0;
  }
  fprintf(stderr, "usage: counters pages N SECONDS | counters sleeps K | counters threads T N\n");
  return 2;
}
