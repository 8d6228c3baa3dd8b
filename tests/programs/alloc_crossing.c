/* A program on whatever allocator it was linked with or given: blocks
 * allocated before GDB attaches are freed after it, new blocks are made
 * and some are left leaked (LEAKS blocks of LEAK_SIZE bytes), and the
 * allocator's own threads (if any) keep running.  Its output and exit
 * status must be the same with the collector as without: any free() that
 * reached another allocator than the block's own would abort it.
 *     alloc_crossing [wait FILE]      exit status 7 on success */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wait_for_go.h"

#define EARLY 4096
#define LEAKS 100
#define LEAK_SIZE 777

static void *early[EARLY];

static void *make_leaks(void *unused)
{
  for (int i = 0; i < LEAKS; i++) {
    volatile char *p = malloc(LEAK_SIZE);
    p[0] = 2;
  }
  return NULL;
}

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* Allocation churn for the profile: about SECONDS of CPU. */
__attribute__((noinline)) static unsigned long churn(double seconds)
{
  unsigned long sum = 0;
  double until = cpu_seconds() + seconds;
  while (cpu_seconds() < until) {
    for (int i = 0; i < 1000; i++) {
      char *p = malloc(16 + (size_t)(i % 512));
      p[0] = (char)i;
      sum += (unsigned char)p[0];
      p = realloc(p, 1024);
      sum += (unsigned char)p[0];
      free(p);
    }
  }
  return sum;
}

int main(int argc, char **argv)
{
  for (int i = 0; i < EARLY; i++) {
    early[i] = malloc(32 + (size_t)(i % 1000));
    memset(early[i], 1, 32);
  }
  char *dup = strdup("made before the attach");
  wait_for_go(argc, argv);
  /* Blocks from before the attach, freed (and grown) after it. */
  dup = realloc(dup, 4096);
  free(dup);
  for (int i = 0; i < EARLY; i += 2)
    free(early[i]);
  for (int i = 1; i < EARLY; i += 2)
    early[i] = realloc(early[i], 2048);
  for (int i = 1; i < EARLY; i += 2)
    free(early[i]);
  unsigned long sum = churn(0.5);
  /* Made on a thread that ends: no stale copy of their addresses stays
   * on a live stack or in a live thread's cache, so a leak checker finds
   * every one. */
  pthread_t leaker;
  pthread_create(&leaker, NULL, make_leaks, NULL);
  pthread_join(leaker, NULL);
  printf("alloc_crossing: done %lu\n", sum > 0 ? 1UL : 0UL);
  return 7;
}
