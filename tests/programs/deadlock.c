/* A real deadlock (issue 29): thread 1 takes lock_a, thread 2 takes
 * lock_b; after both have (a barrier), each takes the other's lock and
 * waits forever.  Prints "deadlocking" first.
 *
 *     deadlock [wait FILE]   (says "ready", then waits until FILE exists:
 *                             a process to attach to) */
#include <pthread.h>
#include <stdio.h>

#include "wait_for_go.h"

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;

__attribute__((noinline)) static void *first(void *arg)
{
  pthread_mutex_lock(&lock_a);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&lock_b); /* never */
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  return arg;
}

__attribute__((noinline)) static void *second(void *arg)
{
  pthread_mutex_lock(&lock_b);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&lock_a); /* never */
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&lock_b);
  return arg;
}

int main(int argc, char **argv)
{
  wait_for_go(argc, argv);
  pthread_barrier_init(&both_hold_one, NULL, 2);
  printf("deadlocking\n");
  fflush(stdout);
  pthread_t t1, t2;
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("not deadlocked\n");
  return 0;
}
