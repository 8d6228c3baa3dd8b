/* Threads held in the states a stack walk of a stopped process meets, for
 * comparing the plugin's own walk with GDB's (tests/e2e/test_thread_walk.py):
 *   main      sleeps in nanosleep (the C library, a harmless system call)
 *   spinner   computes in the program's own code
 *   clock     reads the clock in a loop (the vDSO)
 *   handler   computes inside a signal handler (the kernel's signal frame)
 *   deep      sleeps 300 calls deep (more frames than the walk takes)
 *   waiter    waits on a condition variable (a lock-taking library call)
 *   sorter    computes in qsort's comparison (a library frame in between)
 * Prints "ready" once every thread is in place; runs until killed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define THREADS 6
static volatile double sink;
static volatile int in_place;

static void take_place(void)
{
  __atomic_add_fetch(&in_place, 1, __ATOMIC_SEQ_CST);
}

static void *spinner(void *arg)
{
  take_place();
  for (;;)
    for (int i = 0; i < 1000; i++)
      sink += i * 0.5;
  return arg;
}

static void *clock_reader(void *arg)
{
  take_place();
  struct timespec ts;
  for (;;)
    clock_gettime(CLOCK_MONOTONIC, &ts);
  return arg;
}

static void on_usr2(int sig)
{
  (void)sig;
  take_place();
  for (;;)
    sink += 1.0;
}

static void *handler_runner(void *arg)
{
  struct sigaction sa = {.sa_handler = on_usr2};
  sigaction(SIGUSR2, &sa, NULL);
  pthread_kill(pthread_self(), SIGUSR2);
  return arg;
}

static __attribute__((noinline)) int deep(int level)
{
  if (level == 0) {
    take_place();
    for (;;)
      pause();
  }
  return deep(level - 1) + (int)sink;
}

static void *deep_runner(void *arg)
{
  return (void *)(long)deep(300);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *waiter(void *arg)
{
  pthread_mutex_lock(&lock);
  take_place();
  for (;;)
    pthread_cond_wait(&never, &lock);
  return arg;
}

static int compare_slowly(const void *a, const void *b)
{
  static int placed;
  if (!placed) {
    placed = 1;
    take_place();
  }
  for (;;) /* (never returns: the thread stays in qsort) */
    sink += *(const int *)a - *(const int *)b;
}

static void *sorter(void *arg)
{
  int values[64];
  for (int i = 0; i < 64; i++)
    values[i] = 64 - i;
  qsort(values, 64, sizeof values[0], compare_slowly);
  return arg;
}

int main(void)
{
  void *(*starts[THREADS])(void *) = {spinner, clock_reader, handler_runner, deep_runner, waiter, sorter};
  static const char *names[THREADS] = {"spinner", "clock", "handler", "deep", "waiter", "sorter"};
  for (int i = 0; i < THREADS; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, starts[i], NULL) != 0)
      return 1;
    pthread_setname_np(t, names[i]);
  }
  while (__atomic_load_n(&in_place, __ATOMIC_SEQ_CST) < THREADS)
    usleep(1000);
  printf("ready\n");
  fflush(stdout);
  for (;;)
    usleep(100000);
}
