/* The watchdog for inferior calls, running inside GDB's own process.
 *
 * GDB 13 has no timeout for an inferior call, and while a call runs GDB
 * holds Python's global lock, so a Python timer thread never gets to run.
 * This is a plain POSIX thread: when a call outlives its deadline it sends
 * a signal to the very thread that runs the call (tgkill); GDB, told to
 * stop on that signal and not pass it, then abandons the call and (with
 * unwindonsignal) restores the thread.  One watch at a time: calls are
 * sequential. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "call_watchdog.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static pthread_t watcher;
static int armed, fired, running;
static int target_pid, target_tid, target_signal;
static struct timespec deadline;

static void *watch(void *unused)
{
  pthread_mutex_lock(&lock);
  while (armed) {
    if (pthread_cond_timedwait(&changed, &lock, &deadline) == ETIMEDOUT && armed) {
      syscall(SYS_tgkill, target_pid, target_tid, target_signal);
      fired = 1;
      break;
    }
  }
  running = 0;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int gdbcol_watchdog_start(int pid, int tid, int signal_number, int timeout_ms)
{
  gdbcol_watchdog_stop();
  pthread_mutex_lock(&lock);
  target_pid = pid;
  target_tid = tid;
  target_signal = signal_number;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeout_ms / 1000;
  deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }
  armed = 1;
  fired = 0;
  running = 1;
  /* GDB's own signals stay with GDB's main thread. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&watcher, NULL, watch, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0)
    armed = running = 0;
  pthread_mutex_unlock(&lock);
  return rc == 0 ? 0 : -1;
}

int gdbcol_watchdog_stop(void)
{
  pthread_mutex_lock(&lock);
  int had_watcher = running || armed;
  armed = 0;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  if (had_watcher)
    pthread_join(watcher, NULL);
  pthread_mutex_lock(&lock);
  int result = fired;
  pthread_mutex_unlock(&lock);
  return result;
}
