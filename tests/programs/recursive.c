/* CPU time under recursion: recurse() calls itself 20 levels deep and
 * spins at the bottom, so it appears many times in every stack; its
 * inclusive time must still be the time spent under it (counted once per
 * stack, as gprofng counts), not a multiple of it.  spin_flat() takes the
 * rest of the time without recursion.
 *     recursive CPU_SECONDS [DEPTH]   about 60% in recurse, 40% in spin_flat
 * DEPTH (default 20) is how deep recurse() goes: 400 makes stacks of about
 * 13 KB and 400 frames.
 *     recursive CPU_SECONDS DEPTH FRAME_BYTES
 * gives each frame FRAME_BYTES of locals more (120 frames of 1000 bytes:
 * stacks of about 120 KB, beyond what the sampler reads). */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_now.h"

static volatile double sink;

__attribute__((noinline)) static void spin(int n)
{
  for (int i = 0; i < n; i++)
    sink += i * 0.5;
}

__attribute__((noinline)) void recurse(int depth)
{
  if (depth == 0) {
    spin(30000);
    return;
  }
  recurse(depth - 1);
  sink += depth; /* not a tail call */
}

/* recurse() with BYTES of locals in each frame. */
__attribute__((noinline)) void recurse_wide(int depth, int bytes)
{
  char *locals = alloca((size_t)bytes);
  memset(locals, depth, (size_t)bytes);
  if (depth == 0)
    spin(30000);
  else
    recurse_wide(depth - 1, bytes);
  sink += locals[bytes / 2]; /* not a tail call, and the locals kept */
}

__attribute__((noinline)) void spin_flat(void)
{
  spin(30000);
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 1.0, start = cpu_now();
  int depth = argc > 2 ? atoi(argv[2]) : 20, frame_bytes = argc > 3 ? atoi(argv[3]) : 0;
  while (cpu_now() - start < seconds) {
    for (int i = 0; i < 3; i++) {
      if (frame_bytes > 0)
        recurse_wide(depth, frame_bytes);
      else
        recurse(depth);
    }
    for (int i = 0; i < 2; i++)
      spin_flat();
  }
  printf("cpu_seconds=%.3f\n", cpu_now() - start);
  return 0;
}
