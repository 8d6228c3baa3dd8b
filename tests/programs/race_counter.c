/* Data races with a known answer, for `collector tha race` (issue 29);
 * built with -fsanitize=thread.  Two threads add to counter_racy with no
 * lock (a race) and to counter_locked under a mutex (none): exactly one
 * race location, counter_racy.
 *     race_counter [heap]
 * heap: the unlocked counter is the second field of a 16-byte block that
 * make_totals() allocates, so the one race location is that block, at
 * offset 8, allocated in make_totals. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct totals {
  long before;
  long racy;
};

long counter_racy;
long counter_locked;
static long *unlocked = &counter_racy;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void add_both(void)
{
  for (int i = 0; i < 10000; i++) {
    (*unlocked)++;
    pthread_mutex_lock(&lock);
    counter_locked++;
    pthread_mutex_unlock(&lock);
  }
}

__attribute__((noinline)) static struct totals *make_totals(void)
{
  return calloc(1, sizeof(struct totals));
}

/* Both workers in add_both at once: ThreadSanitizer sees a race only
 * between accesses that overlap (each iteration's lock orders the ones
 * before it), and on a loaded machine the first worker could finish before
 * the second began (a run under the whole test suite reported none).
 * Relaxed atomics order nothing for it. */
static int started;

static void *worker(void *arg)
{
  __atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
  while (__atomic_load_n(&started, __ATOMIC_RELAXED) < 2)
    ;
  add_both();
  return arg;
}

int main(int argc, char **argv)
{
  struct totals *totals = NULL;
  if (argc > 1 && strcmp(argv[1], "heap") == 0) {
    totals = make_totals();
    unlocked = &totals->racy;
  }
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, NULL);
  pthread_create(&t2, NULL, worker, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("locked %ld\n", counter_locked);
  free(totals);
  return 0;
}
