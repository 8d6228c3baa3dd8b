/* A thread that shares its CPU with a busy thread of its own (both pinned
 * to one CPU), alternating two kinds of code for ROUNDS rounds:
 * calls_kernel, PHASE seconds of its CPU clock read every 50 us (a system
 * call each time, as code that does I/O or takes locks makes them), and
 * plain_loop, a loop of arithmetic sized to about PHASE seconds (no
 * system call).  The kernel switches the first out at a system call after
 * its slice, mostly between its ticks, and the second at a tick: CPU-time
 * timers, checked at the tick for the thread then running, find the
 * second far more often than its share.  Prints its own CPU clock's
 * figures (the truth):
 *   truth calls_kernel=S plain_loop=S preempted=N
 * N: its involuntary context switches in the rounds.
 *
 *     preempted_phases [ROUNDS] [PHASE_SECONDS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double thread_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static volatile double sink;
static volatile int done;

__attribute__((noinline)) static void calls_kernel(double seconds)
{
  double end = thread_cpu() + seconds, x = 0;
  while (thread_cpu() < end)
    for (int i = 0; i < 50000; i++)
      x += i * 0.5;
  sink = x;
}

__attribute__((noinline)) static void plain_loop(long steps)
{
  double x = 0;
  for (long i = 0; i < steps; i++)
    x += i * 0.5;
  sink = x;
}

__attribute__((noinline)) static void *compete(void *arg)
{
  (void)arg;
  double x = 0;
  while (!done)
    for (int i = 0; i < 1000000; i++)
      x += i * 0.5;
  sink = x;
  return NULL;
}

static long preemptions(void)
{
  struct rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nivcsw;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  double phase = argc > 2 ? atof(argv[2]) : 0.05;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one); /* (the competing thread inherits it) */
  double t0 = thread_cpu();
  plain_loop(20000000); /* how many steps make a phase, alone on the CPU */
  long steps = (long)(phase * 20000000 / (thread_cpu() - t0));
  pthread_t other;
  pthread_create(&other, NULL, compete, NULL);
  double kernel = 0, loop = 0;
  long before = preemptions();
  for (int r = 0; r < rounds; r++) {
    double t = thread_cpu();
    calls_kernel(phase);
    double between = thread_cpu();
    plain_loop(steps);
    kernel += between - t;
    loop += thread_cpu() - between;
  }
  long preempted = preemptions() - before;
  done = 1;
  pthread_join(other, NULL);
  printf("truth calls_kernel=%.4f plain_loop=%.4f preempted=%ld\n", kernel, loop, preempted);
  return 0;
}
