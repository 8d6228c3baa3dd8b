/* The experiment's clock. */
#ifndef COL_CORE_HRTIME_H
#define COL_CORE_HRTIME_H

#include <time.h>
#include <stdint.h>

/* The experiment clock (§2.2): CLOCK_MONOTONIC_RAW nanoseconds. */
static inline int64_t col_hrtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
