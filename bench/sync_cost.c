/* The cost of synchronization-wait tracing, measured by the program itself.
 *   sync_cost uncontended N   N lock/unlock pairs no one waits in:
 *                             prints ns_per_pair=
 *   sync_cost nested N        the same while the thread holds another
 *                             mutex (a lock order each time: what deadlock
 *                             detection checks): prints ns_per_pair=
 *   sync_cost handoff N       two threads hand a turn back and forth N
 *                             times through a mutex and a condition (each
 *                             handoff: one wait per thread): prints
 *                             us_per_handoff= and waits=2N */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static long rounds;
static int turn;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void play(int me)
{
  for (long i = 0; i < rounds; i++) {
    pthread_mutex_lock(&m);
    while (turn != me)
      pthread_cond_wait(&turn_changed, &m);
    turn = !me;
    pthread_cond_signal(&turn_changed);
    pthread_mutex_unlock(&m);
  }
}

static void *other(void *unused)
{
  play(1);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc != 3)
    return 2;
  long n = atol(argv[2]);
  if (strcmp(argv[1], "uncontended") == 0 || strcmp(argv[1], "nested") == 0) {
    int nested = strcmp(argv[1], "nested") == 0;
    if (nested)
      pthread_mutex_lock(&outer);
    double t0 = now();
    for (long i = 0; i < n; i++) {
      pthread_mutex_lock(&m);
      pthread_mutex_unlock(&m);
    }
    printf("ns_per_pair=%.2f\n", (now() - t0) * 1e9 / n);
    if (nested)
      pthread_mutex_unlock(&outer);
    return 0;
  }
  rounds = n;
  pthread_t t;
  double t0 = now();
  pthread_create(&t, NULL, other, NULL);
  play(0);
  pthread_join(t, NULL);
  printf("us_per_handoff=%.3f waits=%ld\n", (now() - t0) * 1e6 / n, 2 * n);
  return 0;
}
