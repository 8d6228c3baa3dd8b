/* A program that uses signals the way real programs do, against the
 * in-process clock's timer signal (61), checking what it observes itself:
 *   - the main thread blocks every signal before it creates its threads
 *     (they inherit that mask, as xz's workers do); a worker reads its
 *     mask back: every signal blocked, 61 included;
 *   - the main thread installs its own handler for 61 and reads it back,
 *     unblocks 61, and sends the process 61 three times: its handler must
 *     run three times, in the main thread (the only one that lets it in);
 *   - a waiter thread, all blocked, burns CPU between sigtimedwait calls
 *     on a full set: it must get the SIGUSR1 the main thread sends it, and
 *     never a 61 (the collector's samples are not its signals).
 * Prints what it saw, then its own CPU time (getrusage) as the truth.
 *
 *   signal_user [SECONDS_PER_THREAD] */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define OURS 61

static volatile double sink;
static double seconds = 1.0;
static pid_t main_tid;
static volatile int handler_calls, handler_calls_in_main, waiter_done;
static int mask_readback = -1, waiter_got = -1, waiter_stray;

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void burn(double s)
{
  double end = thread_cpu() + s;
  while (thread_cpu() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
}

static void on_ours(int sig, siginfo_t *info, void *ctx)
{
  (void)info;
  (void)ctx;
  if (sig == OURS) {
    handler_calls++;
    if (gettid() == main_tid)
      handler_calls_in_main++;
  }
}

static void *worker(void *unused)
{
  (void)unused;
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  mask_readback = sigismember(&now, OURS) == 1 && sigismember(&now, SIGINT) == 1 && sigismember(&now, SIGUSR1) == 1;
  burn(seconds);
  return NULL;
}

__attribute__((noinline)) static void waiter_burn(void)
{
  burn(0.01);
}

static void *waiter(void *unused)
{
  (void)unused;
  sigset_t all;
  sigfillset(&all);
  struct timespec none = {0, 0};
  double end = thread_cpu() + seconds;
  while (!waiter_done || waiter_got < 0) {
    if (thread_cpu() < end)
      waiter_burn();
    else
      usleep(1000);
    siginfo_t info;
    int sig = sigtimedwait(&all, &info, &none);
    if (sig == OURS)
      waiter_stray++;
    else if (sig > 0 && waiter_got < 0)
      waiter_got = sig;
  }
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    seconds = atof(argv[1]);
  main_tid = gettid();
  sigset_t all, ours;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);
  pthread_t w, v;
  pthread_create(&w, NULL, worker, NULL);
  pthread_create(&v, NULL, waiter, NULL);

  struct sigaction act, back;
  act.sa_sigaction = on_ours;
  act.sa_flags = SA_SIGINFO;
  sigemptyset(&act.sa_mask);
  sigaction(OURS, &act, NULL);
  sigaction(OURS, NULL, &back);
  int handler_readback = back.sa_sigaction == on_ours && (back.sa_flags & SA_SIGINFO);
  sigemptyset(&ours);
  sigaddset(&ours, OURS);
  pthread_sigmask(SIG_UNBLOCK, &ours, NULL);
  for (int i = 0; i < 3; i++) {
    kill(getpid(), OURS);
    for (int spin = 0; spin < 1000 && handler_calls <= i; spin++)
      usleep(1000);
  }
  burn(seconds);
  pthread_join(w, NULL);
  pthread_kill(v, SIGUSR1);
  waiter_done = 1;
  pthread_join(v, NULL);
  printf("mask_readback=%s\nhandler_readback=%s\nhandler_calls=%d in_main=%d\nwaiter_got=%d stray=%d\n",
         mask_readback == 1 ? "ok" : "bad", handler_readback ? "ok" : "bad", handler_calls, handler_calls_in_main,
         waiter_got, waiter_stray);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("cpu_seconds=%.3f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
  return 0;
}
