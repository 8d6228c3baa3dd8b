/* The program of bench/signal_cost.py: N rounds of a signal-mask change
 * and its undo (pthread_sigmask SIG_BLOCK of a set, then SIG_SETMASK of
 * the old mask: what libraries do around a critical section), timed
 * with CLOCK_MONOTONIC; prints the ns per call.
 *
 *   signal_cost N */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  sigset_t set, old;
  sigfillset(&set);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < n; i++) {
    pthread_sigmask(SIG_BLOCK, &set, &old);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
  printf("ns_per_call=%.2f\n", ns / (2.0 * n));
  return 0;
}
