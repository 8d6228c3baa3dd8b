/* Known synchronization waits, each in a function of its own, measured by
 * the program itself around the call (printed as NAME=SECONDS):
 *   wait_for_mutex      a worker locks a mutex the main thread holds ~400 ms
 *   wait_for_condition  the worker waits on a condition variable ~250 ms
 *   wait_for_semaphore  the worker waits on a semaphore ~150 ms
 *   wait_for_join       the main thread joins the worker, which sleeps ~300 ms
 * plus UNCONTENDED lock/unlock pairs no one waits in.  One call of each
 * blocks: 4 waits.
 *   sync_waits [UNCONTENDED] [ready]   (ready: says so, waits 2 s first)
 *   sync_waits UNCONTENDED fork        the same in a forked child, then in a
 *                                      program system() runs (this one again) */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER, guard = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quiet = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t signal_cond = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static int flag;
static double measured_mutex, measured_condition, measured_semaphore;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pause_ms(long ms)
{
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

__attribute__((noipa)) static double wait_for_mutex(void)
{
  double t0 = now();
  pthread_mutex_lock(&held);
  double t = now() - t0;
  pthread_mutex_unlock(&held);
  return t;
}

__attribute__((noipa)) static double wait_for_condition(void)
{
  pthread_mutex_lock(&guard);
  double t0 = now();
  while (!flag)
    pthread_cond_wait(&signal_cond, &guard);
  double t = now() - t0;
  pthread_mutex_unlock(&guard);
  return t;
}

__attribute__((noipa)) static double wait_for_semaphore(void)
{
  double t0 = now();
  sem_wait(&sem);
  return now() - t0;
}

__attribute__((noipa)) static double wait_for_join(pthread_t worker)
{
  double t0 = now();
  pthread_join(worker, NULL);
  return now() - t0;
}

static void *worker(void *unused)
{
  measured_mutex = wait_for_mutex();
  measured_condition = wait_for_condition();
  measured_semaphore = wait_for_semaphore();
  pause_ms(300);
  return NULL;
}

static int run_waits(long uncontended);

int main(int argc, char **argv)
{
  long uncontended = argc > 1 ? atol(argv[1]) : 100000;
  if (argc > 2 && strcmp(argv[2], "ready") == 0) {
    printf("ready\n");
    fflush(stdout);
    sleep(2);
  }
  if (argc > 2 && strcmp(argv[2], "fork") == 0) {
    pid_t child = fork();
    if (child == 0) {
      run_waits(uncontended);
      fflush(stdout);
      _exit(0);
    }
    waitpid(child, NULL, 0);
    char self[4096], command[4200];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len < 0)
      return 1;
    self[len] = '\0';
    snprintf(command, sizeof command, "%s %ld", self, uncontended);
    fflush(stdout);
    return system(command) == 0 ? 0 : 1;
  }
  return run_waits(uncontended);
}

static int run_waits(long uncontended)
{
  sem_init(&sem, 0, 0);
  for (long i = 0; i < uncontended; i++) {
    pthread_mutex_lock(&quiet);
    pthread_mutex_unlock(&quiet);
  }
  pthread_mutex_lock(&held);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pause_ms(400);
  pthread_mutex_unlock(&held);
  pause_ms(250);
  pthread_mutex_lock(&guard);
  flag = 1;
  pthread_cond_signal(&signal_cond);
  pthread_mutex_unlock(&guard);
  pause_ms(150);
  sem_post(&sem);
  double joined = wait_for_join(t);
  printf("wait_for_mutex=%.4f\nwait_for_condition=%.4f\nwait_for_semaphore=%.4f\nwait_for_join=%.4f\n",
         measured_mutex, measured_condition, measured_semaphore, joined);
  return 0;
}
