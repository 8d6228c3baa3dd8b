/* CPU work under ever-different call stacks: each round descends 48 levels
 * through go_left/go_right chosen by random bits, so nearly every clock
 * sample has a stack never seen before and data.frameinfo grows fast (what
 * the data-limit test needs).  Calls all_done() at the end, for a
 * breakpoint.
 *
 *   stack_churn CPU_SECONDS
 *
 * It runs for CPU time, not wall time, so the data it makes a profile write
 * is the same on a loaded machine. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_now.h"

static volatile uint64_t sink;

__attribute__((noinline)) static void leaf(void)
{
  for (int i = 0; i < 2000; i++)
    sink += (uint64_t)i;
}

__attribute__((noinline)) static void go_left(uint64_t bits, int depth);
__attribute__((noinline)) static void go_right(uint64_t bits, int depth);

__attribute__((noinline)) static void descend(uint64_t bits, int depth)
{
  if (depth == 0)
    leaf();
  else if (bits & 1)
    go_left(bits >> 1, depth - 1);
  else
    go_right(bits >> 1, depth - 1);
  sink++; /* no tail calls: every level keeps its frame */
}

__attribute__((noinline)) static void go_left(uint64_t bits, int depth)
{
  descend(bits, depth);
  sink++;
}

__attribute__((noinline)) static void go_right(uint64_t bits, int depth)
{
  descend(bits, depth);
  sink += 2;
}

__attribute__((noinline)) void all_done(void)
{
  sink++;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 3.0;
  uint64_t state = 88172645463325252ULL;
  double end = cpu_now() + seconds;
  while (cpu_now() < end)
    for (int i = 0; i < 64; i++) {
      state ^= state << 13; /* xorshift64 */
      state ^= state >> 7;
      state ^= state << 17;
      descend(state, 48);
    }
  all_done();
  printf("done\n");
  return 0;
}
