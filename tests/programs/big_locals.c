/* Outer frames with large locals, as gprofng's synprog's main has (about
 * 5 KB): main holds 6000 bytes, middle() 4000, and burn() spins under
 * them, so every sample's stack is about 10 KB deep, more than the default
 * 8 KiB stack copy, with the outer frames standing all the run.
 *     big_locals CPU_SECONDS
 * Prints cpu_seconds=S (its own CPU time) at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_now.h"

static volatile double sink;

__attribute__((noinline)) void burn(double until)
{
  while (cpu_now() < until)
    for (int i = 0; i < 1000; i++)
      sink += i * 0.5;
}

__attribute__((noinline)) void middle(double until)
{
  volatile char locals[4000];
  memset((char *)locals, 1, sizeof locals);
  burn(until);
  sink += locals[10];
}

int main(int argc, char **argv)
{
  volatile char locals[6000];
  memset((char *)locals, 2, sizeof locals);
  double start = cpu_now();
  middle(start + (argc > 1 ? atof(argv[1]) : 1.0));
  printf("cpu_seconds=%.3f\n", cpu_now() - start);
  return locals[5] == 2 ? 0 : 1;
}
