/* The runtime thread's wake-ups (runtime_thread_wakeup.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/thread_slot.h"
#include "inprocess/runtime_thread_wakeup.h"
#include "interpose/signal_guard.h"

static int epoll_fd = -1, wake_fd = -1;
static int poke_pending;
static pid_t woken_tid;

int col_wakeup_open(void)
{
  poke_pending = 0;
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  sigset_t wake;
  sigemptyset(&wake);
  sigaddset(&wake, COL_TIMER_SIGNAL);
  wake_fd = col_real_signalfd(-1, &wake, SFD_CLOEXEC | SFD_NONBLOCK); /* (not narrowed: ours) */
  if (epoll_fd < 0 || wake_fd < 0) {
    int err = errno;
    col_wakeup_close();
    return -err;
  }
  col_runtime_thread_watch_fd(wake_fd);
  __atomic_store_n(&woken_tid, (pid_t)gettid(), __ATOMIC_RELEASE);
  return 0;
}

static void consume_pokes(void)
{
  struct signalfd_siginfo info[16];
  while (read(wake_fd, info, sizeof info) > 0)
    ;
  __atomic_store_n(&poke_pending, 0, __ATOMIC_RELEASE);
}

void col_wakeup_wait(int ms)
{
  struct epoll_event events[64];
  int n = epoll_wait(epoll_fd, events, 64, ms);
  for (int i = 0; i < n; i++)
    if (events[i].data.fd == wake_fd)
      consume_pokes();
}

void col_wakeup_close(void)
{
  __atomic_store_n(&woken_tid, 0, __ATOMIC_RELEASE);
  if (epoll_fd >= 0)
    close(epoll_fd);
  if (wake_fd >= 0)
    close(wake_fd);
  epoll_fd = wake_fd = -1;
}

pid_t col_runtime_thread_tid(void)
{
  return __atomic_load_n(&woken_tid, __ATOMIC_ACQUIRE);
}

void col_runtime_thread_watch_fd(int fd)
{
  struct epoll_event ev;
  memset(&ev, 0, sizeof ev);
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/* At most one wake-up is pending at a time, so the user's queue of
 * pending signals is never filled by us. */
void col_runtime_thread_poke(void)
{
  pid_t tid = col_runtime_thread_tid();
  if (tid != 0 && gettid() != tid && !__atomic_exchange_n(&poke_pending, 1, __ATOMIC_ACQ_REL)) {
    int saved = errno;
    syscall(SYS_tgkill, getpid(), tid, COL_TIMER_SIGNAL);
    errno = saved;
  }
}
