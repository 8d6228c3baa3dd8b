/* Where the wall-clock time goes, with a known answer (issue 30): the
 * main thread computes for S seconds (compute_phase), sleeps for S
 * (sleep_phase: nanosleep), waits S on a pipe (pipe_phase: read, until a
 * helper thread writes) and S on a mutex (lock_phase: the helper holds it).
 * It measures each phase's wall time, and its own CPU time in the first,
 * and prints them, with the time since its exec (the kernel's start time
 * of the process: under GDB its start before main takes a while):
 *     compute=1.000 cpu=0.998 sleep=1.000 pipe=1.001 lock=1.000 wall=4.003 since_exec=4.210
 *     offcpu_mix [SECONDS] [wait FILE] [undumpable]
 * SECONDS default 1; wait: says "ready", waits until FILE exists;
 * undumpable: the process makes itself not dumpable first (no other
 * process of its user may read it then). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double phase_seconds = 1.0;
static int pipe_fds[2];
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static volatile int helper_holds_lock;
static volatile double sink;

static double now(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_for(double seconds)
{
  struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

__attribute__((noinline)) static double compute_phase(void)
{
  double start = now(CLOCK_THREAD_CPUTIME_ID);
  while (now(CLOCK_THREAD_CPUTIME_ID) - start < phase_seconds)
    for (int i = 0; i < 100000; i++)
      sink += i * 0.5;
  return now(CLOCK_THREAD_CPUTIME_ID) - start;
}

__attribute__((noinline)) static void sleep_phase(void)
{
  sleep_for(phase_seconds);
}

__attribute__((noinline)) static void pipe_phase(void)
{
  char byte;
  while (read(pipe_fds[0], &byte, 1) != 1)
    ;
}

__attribute__((noinline)) static void lock_phase(void)
{
  pthread_mutex_lock(&held);
  pthread_mutex_unlock(&held);
}

/* Writes to the pipe after a phase, then holds the lock for one. */
static void *helper(void *arg)
{
  pthread_setname_np(pthread_self(), "pipe-writer"); /* (its name in the reports and exports) */
  sleep_for(phase_seconds);
  if (write(pipe_fds[1], "x", 1) != 1)
    return arg;
  /* The main thread is in lock_phase only after pipe_phase: take the
   * lock now, before it gets there. */
  pthread_mutex_lock(&held);
  helper_holds_lock = 1;
  sleep_for(phase_seconds);
  pthread_mutex_unlock(&held);
  return arg;
}

/* Seconds since the process began (/proc/self/stat's start time, in clock
 * ticks since boot, against CLOCK_BOOTTIME); 0 if unknown. */
static double since_exec(void)
{
  char text[1024];
  FILE *f = fopen("/proc/self/stat", "r");
  size_t n = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f != NULL)
    fclose(f);
  text[n] = '\0';
  const char *p = strrchr(text, ')');
  unsigned long long start = 0;
  /* after the command: state, then fields 4..21, then the start time (22) */
  if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                          &start) != 1)
    return 0;
  return now(CLOCK_BOOTTIME) - (double)start / (double)sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "wait") != 0)
    phase_seconds = atof(argv[1]);
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "undumpable") == 0)
      prctl(PR_SET_DUMPABLE, 0);
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "wait") == 0) {
      printf("ready\n");
      fflush(stdout);
      while (access(argv[i + 1], F_OK) != 0)
        sleep_for(0.01);
    }
  if (pipe(pipe_fds) != 0)
    return 1;
  double start = now(CLOCK_MONOTONIC), t = start;
  double cpu = compute_phase();
  double compute = now(CLOCK_MONOTONIC) - t;
  t = now(CLOCK_MONOTONIC);
  sleep_phase();
  double slept = now(CLOCK_MONOTONIC) - t;
  pthread_t thread;
  pthread_create(&thread, NULL, helper, NULL);
  t = now(CLOCK_MONOTONIC);
  pipe_phase();
  double piped = now(CLOCK_MONOTONIC) - t;
  while (!helper_holds_lock)
    sched_yield();
  t = now(CLOCK_MONOTONIC);
  lock_phase();
  double locked = now(CLOCK_MONOTONIC) - t;
  pthread_join(thread, NULL);
  printf("compute=%.3f cpu=%.3f sleep=%.3f pipe=%.3f lock=%.3f wall=%.3f since_exec=%.3f\n", compute, cpu, slept,
         piped, locked, now(CLOCK_MONOTONIC) - start, since_exec());
  return 0;
}
