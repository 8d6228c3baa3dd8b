/* Two libraries from this one source (BURN_NAME burn_a or burn_b): the
 * same size, so the loader puts the second where the first was unloaded.
 * Each spins for SECONDS of CPU time in its one function. */
#include <time.h>

static volatile double sink;

__attribute__((noinline)) void BURN_NAME(double seconds)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  double end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds;
  for (;;) {
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
      break;
  }
}
