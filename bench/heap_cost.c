/* The cost of heap tracing, measured by the program itself.
 *   heap_cost PAIRS LEAKS   PAIRS malloc/free pairs from four call sites
 *                           (sizes 16, 64, 256 and 1000 bytes) at a stack
 *                           depth of about 10, then LEAKS blocks of 48
 *                           bytes never freed (the truth a leak checker
 *                           must find); prints ns_per_pair= (the pairs'
 *                           wall time), thread_cpu_ns_per_pair= (the
 *                           thread's own CPU time in them: what a tracer
 *                           costs it, apart from waiting), pairs= and
 *                           leaked= */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *volatile sink;

static double seconds(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void pair(size_t size)
{
  void *p = malloc(size);
  *(volatile char *)p = 1;
  sink = p;
  free(p);
}

__attribute__((noinline)) static void site_a(long n) { for (long i = 0; i < n; i++) pair(16); }
__attribute__((noinline)) static void site_b(long n) { for (long i = 0; i < n; i++) pair(64); }
__attribute__((noinline)) static void site_c(long n) { for (long i = 0; i < n; i++) pair(256); }
__attribute__((noinline)) static void site_d(long n) { for (long i = 0; i < n; i++) pair(1000); }

/* Depth: main -> level(8) -> ... -> level(0) -> site -> pair -> malloc. */
__attribute__((noinline)) static void level(int depth, long n)
{
  if (depth > 0) {
    level(depth - 1, n);
    __asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays */
    return;
  }
  site_a(n / 4);
  site_b(n / 4);
  site_c(n / 4);
  site_d(n - 3 * (n / 4));
}

__attribute__((noinline)) static void leak(long n)
{
  for (long i = 0; i < n; i++)
    sink = malloc(48);
}

int main(int argc, char **argv)
{
  if (argc != 3)
    return 2;
  long pairs = atol(argv[1]), leaks = atol(argv[2]);
  double t0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_THREAD_CPUTIME_ID);
  level(8, pairs);
  double spent = seconds(CLOCK_MONOTONIC) - t0, cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  leak(leaks);
  printf("ns_per_pair=%.1f thread_cpu_ns_per_pair=%.1f pairs=%ld leaked=%ld\n", spent * 1e9 / pairs,
         cpu * 1e9 / pairs, pairs, leaks);
  return 0;
}
