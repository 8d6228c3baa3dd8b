/* Traced calls where tracing could deadlock or recurse:
 *   - a recursive mutex two threads contend for, each taking it twice;
 *   - a SIGALRM handler (every 2 ms) that locks a mutex of its own and posts
 *     a semaphore the main thread waits on 200 times, so handlers run while
 *     the main thread is inside a traced wait (or recording one).
 * Prints "hostile done recursive=40 waits=200". */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static pthread_mutex_t recursive;
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t ticks;
static volatile int taken;

static void pause_ms(long ms)
{
  struct timespec ts = {0, ms * 1000000L};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

static void take_twice(void)
{
  pthread_mutex_lock(&recursive);
  pthread_mutex_lock(&recursive);
  taken++;
  pause_ms(5);
  pthread_mutex_unlock(&recursive);
  pthread_mutex_unlock(&recursive);
}

static void *contender(void *unused)
{
  for (int i = 0; i < 20; i++)
    take_twice();
  return NULL;
}

static void on_alarm(int sig)
{
  pthread_mutex_lock(&handler_lock);
  pthread_mutex_unlock(&handler_lock);
  sem_post(&ticks);
}

int main(void)
{
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&recursive, &attr);
  pthread_t t;
  pthread_create(&t, NULL, contender, NULL);
  for (int i = 0; i < 20; i++)
    take_twice();
  pthread_join(t, NULL);

  sem_init(&ticks, 0, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval every = {{0, 2000}, {0, 2000}};
  setitimer(ITIMER_REAL, &every, NULL);
  int waits = 0;
  for (; waits < 200; waits++)
    while (sem_wait(&ticks) != 0)
      ;
  struct itimerval stop = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &stop, NULL);
  printf("hostile done recursive=%d waits=%d\n", taken, waits);
  return 0;
}
