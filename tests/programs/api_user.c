/* A program that uses the Collector API (collectorAPI.h): a labelled
 * sample, a paused region, another sample, then it ends the experiment and
 * works on unrecorded.  Each region spins in its own function for a known
 * CPU time:
 *   recorded_before (0.3 s)  paused_region (0.3 s)  recorded_after (0.3 s)
 *   after_terminate (0.3 s)
 *
 *   api_user [WAIT_SECONDS]   sleeps first (to be attached), printing "ready" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "collectorAPI.h"

static volatile double sink;

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define REGION(name)                                                 \
  __attribute__((noipa)) static void name(double s)                 \
  {                                                                  \
    double end = thread_cpu() + s;                                   \
    while (thread_cpu() < end)                                       \
      for (int i = 0; i < 20000; i++)                                \
        sink += i * 0.5;                                             \
  }
REGION(recorded_before)
REGION(paused_region)
REGION(recorded_after)
REGION(after_terminate)

int main(int argc, char **argv)
{
  double wait = argc > 1 ? atof(argv[1]) : 0;
  printf("ready\n");
  fflush(stdout);
  if (wait > 0)
    usleep((useconds_t)(wait * 1e6));
  collector_sample("api_start");
  recorded_before(0.3);
  collector_pause();
  paused_region(0.3);
  collector_resume();
  recorded_after(0.3);
  collector_sample("api_end");
  collector_terminate_expt();
  after_terminate(0.3);
  printf("api_user done\n");
  return 0;
}
