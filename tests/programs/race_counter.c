/* Data races with a known answer, for `collector tha race` (issue 29);
 * built with -fsanitize=thread.  Two threads add to counter_racy with no
 * lock (a race) and to counter_locked under a mutex (none): exactly one
 * race location, counter_racy. */
#include <pthread.h>
#include <stdio.h>

long counter_racy;
long counter_locked;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void add_both(void)
{
  for (int i = 0; i < 10000; i++) {
    counter_racy++;
    pthread_mutex_lock(&lock);
    counter_locked++;
    pthread_mutex_unlock(&lock);
  }
}

static void *worker(void *arg)
{
  add_both();
  return arg;
}

int main(void)
{
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, NULL);
  pthread_create(&t2, NULL, worker, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("locked %ld\n", counter_locked);
  return 0;
}
