/* The cost of I/O tracing, measured by the program itself.
 *   io_cost write N   N writes of 64 bytes to /dev/null (a call that costs
 *                     the kernel almost nothing): prints us_per_call=
 *                     and calls=N */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  if (argc != 3 || strcmp(argv[1], "write") != 0)
    return 2;
  long n = atol(argv[2]);
  static char buf[64];
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0)
    return 1;
  double t0 = now();
  for (long i = 0; i < n; i++)
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
      return 1;
  printf("us_per_call=%.3f calls=%ld\n", (now() - t0) * 1e6 / n, n);
  close(fd);
  return 0;
}
