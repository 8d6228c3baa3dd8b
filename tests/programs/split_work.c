/* Fixed CPU work split 50/30/20 between three functions, in the main
 * thread and optionally in N extra threads.  Prints its own CPU time
 * (getrusage) on stderr, so tests can compare what the profile recorded.
 *
 *   split_work [SECONDS_PER_THREAD] [EXTRA_THREADS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static volatile double sink;

static double thread_cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spins for SECONDS of this thread's CPU time.  The callers below keep a
 * frame of their own (no tail call), so each shows in the call stack. */
__attribute__((noinline)) static void spin(double seconds)
{
  double end = thread_cpu_seconds() + seconds;
  while (thread_cpu_seconds() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
}

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")
__attribute__((noinline)) void work_fifty(double s) { spin(s * 0.5); KEEP_FRAME(); }
__attribute__((noinline)) void work_thirty(double s) { spin(s * 0.3); KEEP_FRAME(); }
__attribute__((noinline)) void work_twenty(double s) { spin(s * 0.2); KEEP_FRAME(); }

static double seconds = 1.0;

static void do_split(void)
{
  /* Interleave in slices so every phase of the run sees all three. */
  for (int slice = 0; slice < 10; slice++) {
    work_fifty(seconds / 10);
    work_thirty(seconds / 10);
    work_twenty(seconds / 10);
  }
}

static void *worker(void *arg)
{
  do_split();
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    seconds = atof(argv[1]);
  int extra = argc > 2 ? atoi(argv[2]) : 0;
  pthread_t threads[64];
  for (int i = 0; i < extra && i < 64; i++)
    pthread_create(&threads[i], NULL, worker, NULL);
  do_split();
  for (int i = 0; i < extra && i < 64; i++)
    pthread_join(threads[i], NULL);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  fprintf(stderr, "cpu_seconds=%.3f\n",
          ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
  return 0;
}
