/* Three phases of CPU work with a marker function between them, for
 * breakpoints: phase_one (0.3 s), marker_one(), phase_two (0.5 s),
 * marker_two(), phase_three (0.2 s).  Prints each phase's own CPU time
 * (its thread's clock) at the end:
 *     phases -> phase_one=S phase_two=S phase_three=S */
#include <stdio.h>

#include "cpu_now.h"

static volatile double sink;

#define PHASE(name)                                     \
  __attribute__((noipa)) static double name(double s)  \
  {                                                     \
    double start = cpu_now(), until = start + s;        \
    while (cpu_now() < until)                           \
      for (int i = 0; i < 1000; i++)                    \
        sink += i * 0.5;                                \
    return cpu_now() - start;                           \
  }
PHASE(phase_one)
PHASE(phase_two)
PHASE(phase_three)

__attribute__((noipa)) void marker_one(void)
{
  sink += 1;
}

__attribute__((noipa)) void marker_two(void)
{
  sink += 2;
}

int main(void)
{
  double one = phase_one(0.3);
  marker_one();
  double two = phase_two(0.5);
  marker_two();
  double three = phase_three(0.2);
  printf("phase_one=%.3f phase_two=%.3f phase_three=%.3f\n", one, two, three);
  return 0;
}
