/* Context switches at full speed, for bench/offcpu_cost.py: two threads
 * hand a byte back and forth over two pipes ROUNDS times; each hand-off
 * blocks one thread in read() until the other writes (two switches out
 * per round trip at least).  Prints the time per round trip.
 *     pingpong ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int to_pong[2], to_ping[2];
static long rounds;

static void *pong(void *arg)
{
  char byte;
  for (long i = 0; i < rounds; i++)
    if (read(to_pong[0], &byte, 1) != 1 || write(to_ping[1], &byte, 1) != 1)
      break;
  return arg;
}

int main(int argc, char **argv)
{
  rounds = argc > 1 ? atol(argv[1]) : 100000;
  if (pipe(to_pong) != 0 || pipe(to_ping) != 0)
    return 1;
  pthread_t thread;
  pthread_create(&thread, NULL, pong, NULL);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  char byte = 'x';
  for (long i = 0; i < rounds; i++)
    if (write(to_pong[1], &byte, 1) != 1 || read(to_ping[0], &byte, 1) != 1)
      return 1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  pthread_join(thread, NULL);
  printf("us_per_round_trip=%.3f rounds=%ld\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / rounds,
         rounds);
  return 0;
}
