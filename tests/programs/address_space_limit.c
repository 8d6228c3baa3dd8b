/* A process that lives under an address-space limit (ulimit -v), as some
 * servers set for themselves, and measures what it can still allocate.
 *
 *   address_space_limit LIMIT_MB SPARE_MB
 *
 * Sets RLIMIT_AS to LIMIT_MB; with SPARE_MB > 0 it then takes 1 MB blocks
 * until the limit refuses one, and gives back SPARE_MB of them, so that
 * only about that much address space is left.  Prints "ready", then runs
 * until it has used 0.6 s of CPU time (a debugger's stops do not count):
 * it computes, allocates and frees small blocks (heap events) and sleeps
 * a little, over and over.  At the end it prints
 *   "room_mb=N" (the 1 MB blocks it could still take) and exits 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (1 << 20)
#define MAX_BLOCKS 65536

static volatile double sink;
static void *volatile last_block; /* kept: the compiler may not pair malloc and free away */
static void *blocks[MAX_BLOCKS];

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Blocks of 1 MB (malloc maps each on its own) from FIRST on until the
 * limit refuses one: how many. */
static int take_all(int first)
{
  int n = first;
  while (n < MAX_BLOCKS && (blocks[n] = malloc(BLOCK)) != NULL)
    n++;
  return n - first;
}

static __attribute__((noinline)) void compute(void)
{
  for (int i = 0; i < 200000; i++)
    sink += (double)i * 0.5;
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: address_space_limit LIMIT_MB SPARE_MB\n");
    return 2;
  }
  long limit_mb = atol(argv[1]), spare_mb = atol(argv[2]);
  struct rlimit lim = {(rlim_t)limit_mb << 20, (rlim_t)limit_mb << 20};
  if (setrlimit(RLIMIT_AS, &lim) != 0) {
    perror("setrlimit");
    return 2;
  }
  int held = 0;
  if (spare_mb > 0) {
    held = take_all(0);
    for (int i = 0; i < spare_mb && held > 0; i++)
      free(blocks[--held]);
  }
  printf("ready\n");
  fflush(stdout);
  double until = cpu_seconds() + 0.6;
  while (cpu_seconds() < until) {
    for (int i = 0; i < 4; i++) {
      last_block = malloc(1000 + i * 100);
      memset(last_block, i, 1000);
      free(last_block);
    }
    compute();
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
  int room = take_all(held);
  printf("room_mb=%d\n", room);
  return 0;
}
