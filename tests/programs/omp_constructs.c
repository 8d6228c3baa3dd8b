/* An OpenMP program that goes through every construct whose entry point
 * the runtime interposes (omp_interpose.c): parallel regions (plain, a
 * dynamically and a statically scheduled loop, sections), explicit
 * barriers, critical sections (named and not), atomics, an ordered loop,
 * locks (plain and nested), tasks with taskwait and a taskgroup, and a
 * reduction.  It prints a checksum that depends on every construct having
 * run right, so a run under the collector can be compared with a run
 * without it.  With ROUNDS > 1 it says "ready" and sleeps between rounds
 * (a process to attach to).
 *
 *     omp_constructs [ROUNDS]          (OMP_NUM_THREADS threads) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long fib(int n)
{
  if (n < 2)
    return n;
  long a, b;
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

static long round_checksum(void)
{
  long sum = 0, critical_sum = 0, named_sum = 0, atomic_sum = 0, locked_sum = 0, nested_sum = 0, ordered_last = -1;
  int ordered_in_order = 1;
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
#pragma omp parallel reduction(+ : sum)
  {
    for (int i = 0; i < 1000; i++) {
#pragma omp critical
      critical_sum += i;
#pragma omp critical(named)
      named_sum += 2 * i;
#pragma omp atomic
      atomic_sum += 3;
      omp_set_lock(&lock);
      locked_sum += 1;
      omp_unset_lock(&lock);
      omp_set_nest_lock(&nest);
      omp_set_nest_lock(&nest);
      nested_sum += 1;
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 7)
    for (int i = 0; i < 10000; i++)
      sum += i % 13;
#pragma omp for ordered schedule(static, 1)
    for (int i = 0; i < 200; i++) {
#pragma omp ordered
      {
        ordered_in_order &= ordered_last == i - 1;
        ordered_last = i;
      }
    }
#pragma omp sections
    {
#pragma omp section
      sum += 100;
#pragma omp section
      sum += 200;
    }
#pragma omp single
    {
      long f;
#pragma omp taskgroup
      f = fib(15);
      sum += f;
    }
  }
  long loop_sum = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : loop_sum)
  for (int i = 0; i < 5000; i++)
    loop_sum += i & 7;
#pragma omp parallel for schedule(static) reduction(+ : loop_sum)
  for (int i = 0; i < 5000; i++)
    loop_sum += i & 3;
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  int threads = omp_get_max_threads();
  /* Every term is the same whatever the thread count, or divided by it. */
  return sum + loop_sum + critical_sum / threads + named_sum / threads + atomic_sum / threads +
         locked_sum / threads + nested_sum / threads + ordered_in_order;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  if (rounds > 1) {
    printf("ready\n");
    fflush(stdout);
  }
  long total = 0;
  for (int r = 0; r < rounds; r++) {
    total += round_checksum();
    if (rounds > 1)
      usleep(200000);
  }
  printf("checksum %ld\n", total);
  return 0;
}
