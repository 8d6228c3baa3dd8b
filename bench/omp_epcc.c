/* EPCC-style OpenMP overheads (issue 28's bench): the cost of an empty
 * parallel region, of a barrier, of an uncontended critical section, with
 * the threads OMP_NUM_THREADS gives.  One line of microseconds per
 * construct, each measured over N repetitions after a warm-up.
 *
 *     omp_epcc [N]                      (built with -fopenmp) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int sink;

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static double parallel_regions(int n)
{
  double start = now();
  for (int i = 0; i < n; i++) {
#pragma omp parallel
    sink++;
  }
  return (now() - start) / n * 1e6;
}

static double barriers(int n)
{
  double start = now();
#pragma omp parallel
  for (int i = 0; i < n; i++) {
#pragma omp barrier
  }
  return (now() - start) / n * 1e6;
}

static double criticals(int n)
{
  double start = now();
#pragma omp parallel
  for (int i = 0; i < n / omp_get_num_threads(); i++) {
#pragma omp critical
    sink++;
  }
  return (now() - start) / n * 1e6;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 200000;
  parallel_regions(n / 10); /* warm-up: the team exists, the pages are touched */
  printf("threads %d\n", omp_get_max_threads());
  printf("parallel_us %.4f\n", parallel_regions(n));
  printf("barrier_us %.4f\n", barriers(n));
  printf("critical_us %.4f\n", criticals(n));
  return 0;
}
