/* Lock orders with a known answer, for deadlock detection (issue 29):
 * one thread takes lock_a then lock_b; after it has finished, another
 * takes lock_b then lock_a: the two orders make a cycle, a potential
 * deadlock that cannot happen in this run (the threads never overlap).
 * lock_c is always taken alone; lock_d is taken before lock_a, always in
 * that order (an order, no cycle).  Exactly one potential deadlock, of
 * lock_a and lock_b, in take_a_then_b and take_b_then_a.
 *
 *     lock_orders [wait FILE]   (says "ready", then waits until FILE exists:
 *                                a process to attach to)
 *     lock_orders heap          lock_b is a mutex in a 64-byte heap block
 *                                make_lock_b() allocates (at offset 8) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait_for_go.h"

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *lock_b_in_use = &lock_b; /* or the heap's (heap) */
pthread_mutex_t lock_c = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_d = PTHREAD_MUTEX_INITIALIZER;
static volatile long counter;

__attribute__((noinline)) static void *take_a_then_b(void *arg)
{
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&lock_a);
    pthread_mutex_lock(lock_b_in_use);
    counter++;
    pthread_mutex_unlock(lock_b_in_use);
    pthread_mutex_unlock(&lock_a);
  }
  return arg;
}

__attribute__((noinline)) static void *take_b_then_a(void *arg)
{
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(lock_b_in_use);
    pthread_mutex_lock(&lock_a);
    counter++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(lock_b_in_use);
  }
  return arg;
}

__attribute__((noinline)) static void *take_c_alone_and_d_then_a(void *arg)
{
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&lock_c);
    counter++;
    pthread_mutex_unlock(&lock_c);
    pthread_mutex_lock(&lock_d);
    pthread_mutex_lock(&lock_a);
    counter++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&lock_d);
  }
  return arg;
}

static void run(void *(*fn)(void *))
{
  pthread_t t;
  pthread_create(&t, NULL, fn, NULL);
  pthread_join(t, NULL);
}

__attribute__((noinline)) static pthread_mutex_t *make_lock_b(void)
{
  char *block = malloc(64);
  pthread_mutex_t *lock = (pthread_mutex_t *)(block + 8);
  pthread_mutex_init(lock, NULL);
  return lock;
}

int main(int argc, char **argv)
{
  wait_for_go(argc, argv);
  if (argc > 1 && strcmp(argv[1], "heap") == 0)
    lock_b_in_use = make_lock_b();
  run(take_c_alone_and_d_then_a);
  run(take_a_then_b);
  run(take_b_then_a);
  printf("counter %ld\n", counter);
  return counter == 4000 ? 0 : 1;
}
