/* Threads that block every signal: the main thread blocks them all before
 * it creates two workers (which inherit the mask), each burning SECONDS of
 * CPU.  Prints the total CPU time as the truth.  With "wait FILE" the
 * workers exist, blocking every signal, before it says "ready" and waits
 * for FILE (an attach then finds them so); they start burning after.
 *   blocked_signals [SECONDS [wait FILE]] */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "wait_for_go.h"

static volatile double sink;
static volatile int go = 1;
static double seconds = 1.0;

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *unused)
{
  (void)unused;
  while (!go)
    usleep(1000);
  double end = thread_cpu() + seconds;
  while (thread_cpu() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    seconds = atof(argv[1]);
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  go = argc < 3;
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  wait_for_go(argc - 1, argv + 1);
  go = 1;
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("cpu_seconds=%.3f\n",
         ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
  return 0;
}
