/* The smallest process to attach to: prints "ready", sleeps SECONDS in
 * short naps, prints "sleeper done" and exits 0.  Built three ways by the
 * tests (dynamic glibc, static, musl) for attach's refusal paths.
 *
 *   sleeper [SECONDS] */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  int tenths = (int)((argc > 1 ? atof(argv[1]) : 5) * 10);
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < tenths; i++)
    usleep(100000);
  printf("sleeper done\n");
  return 0;
}
