/* The main thread calls pthread_exit; two workers burn SECONDS of CPU each
 * and return, and the process must end with them (exit status 0).  Each
 * worker prints its CPU time; the total is the truth.
 *   main_thread_exit [SECONDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;
static double seconds = 0.5;

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void burn_in_worker(void)
{
  double end = thread_cpu() + seconds;
  while (thread_cpu() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
}

static void *worker(void *unused)
{
  (void)unused;
  burn_in_worker();
  printf("worker_cpu=%.3f\n", thread_cpu());
  fflush(stdout);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    seconds = atof(argv[1]);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  pthread_exit(NULL);
}
