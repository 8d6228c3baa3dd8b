/* A program that profiles itself the gprof way: its own SIGPROF handler
 * and ITIMER_PROF.  It prints how many SIGPROFs it got, the errno it set
 * before the run, and exits 3: a profiler must change none of that. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t ticks;
static volatile double sink;

static void on_sigprof(int sig)
{
  ticks++;
}

int main(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigprof;
  sigaction(SIGPROF, &sa, NULL);
  struct itimerval it = {{0, 10000}, {0, 10000}};
  setitimer(ITIMER_PROF, &it, NULL);
  errno = 1234;
  struct timespec ts;
  double end;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  end = ts.tv_sec + ts.tv_nsec / 1e9 + 0.5;
  do {
    for (int i = 0; i < 20000; i++)
      sink += i;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  } while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
  int saved = errno;
  struct sigaction now;
  sigaction(SIGPROF, NULL, &now);
  printf("sigprof_ticks=%d errno=%d handler_kept=%d\n", (int)ticks, saved, now.sa_handler == on_sigprof);
  return 3;
}
