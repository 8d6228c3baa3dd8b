/* The library dlopen_main loads at run time. */
#include <time.h>

static volatile double sink;

__attribute__((noinline)) void hot_loop(double seconds)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  double end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds;
  for (;;) {
    for (int i = 0; i < 20000; i++)
      sink += i * 0.25;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
      break;
  }
}
