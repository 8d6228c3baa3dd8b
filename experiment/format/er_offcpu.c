/* Off-CPU reasons from function names (er/er_offcpu.h).  The names are
 * glibc's entry points for calls that block; a stack is read from its
 * leaf up, so the call nearest the kernel decides (read() under fgets()
 * is I/O; pthread_cond_wait() under a queue's pop is a lock wait). */
#include "er/er_offcpu.h"

#include <string.h>
#include <sys/syscall.h>

static const char *const lock_calls[] = {
    "pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_mutex_clocklock", "pthread_rwlock_rdlock",
    "pthread_rwlock_wrlock", "pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock", "pthread_rwlock_clockrdlock",
    "pthread_rwlock_clockwrlock", "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait",
    "sem_wait", "sem_timedwait", "sem_clockwait", "pthread_join", "pthread_timedjoin_np", "pthread_clockjoin_np",
    "pthread_barrier_wait", "lll_lock_wait", "lll_lock_wait_private", "flock", "lockf",
    /* glibc's internal names under them (a sem_clockwait is
     * __new_sem_wait_slow64 then __futex_abstimed_wait_common: Python's
     * threading.Lock read as "blocked") */
    "new_sem_wait", "new_sem_wait_slow", "new_sem_wait_slow64", "new_sem_clockwait", "futex_abstimed_wait_common",
    "futex_abstimed_wait_common64", "futex_lock_pi64",
    /* Language runtimes' lock entry points, exported where glibc's
     * internal names are not (a stripped libc: the sampler process names
     * from .symtab and .dynsym only): CPython's threading.Lock (3.11-3.12,
     * and 3.13's PyMutex and parking semaphore) */
    "PyThread_acquire_lock_timed", "PyThread_acquire_lock", "PyMutex_LockTimed", "PyMutex_Lock", "PySemaphore_Wait",
    NULL};
static const char *const sleep_calls[] = {
    "nanosleep", "clock_nanosleep", "usleep", "sleep", "pause", "sigsuspend", "sigwait", "sigwaitinfo",
    "sigtimedwait", "wait", "waitpid", "wait3", "wait4", "waitid", NULL};
static const char *const io_calls[] = {
    "read", "write", "pread", "pread64", "pwrite", "pwrite64", "readv", "writev", "preadv", "preadv2",
    "pwritev", "pwritev2", "recv", "recvfrom", "recvmsg", "recvmmsg", "send", "sendto", "sendmsg", "sendmmsg",
    "accept", "accept4", "connect", "poll", "ppoll", "select", "pselect", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "open", "open64", "openat", "openat64", "close", "fsync", "fdatasync", "sync", "syncfs",
    "msync", "splice", "tee", "sendfile", "sendfile64", "copy_file_range", "fallocate", "ftruncate",
    "getdents", "getdents64", "readdir", "readdir64", NULL}; /* a directory read waits on the disk as a read does */

static int listed(const char *const *list, const char *name, size_t len)
{
  for (; *list != NULL; list++)
    if (strlen(*list) == len && memcmp(*list, name, len) == 0)
      return 1;
  return 0;
}

enum er_offcpu_reason er_offcpu_reason_of_function(const char *name)
{
  if (name == NULL)
    return ER_OFFCPU_NONE;
  /* glibc's names for one entry point: __GI___read, __libc_read, __read. */
  if (strncmp(name, "__GI_", 5) == 0)
    name += 5;
  while (*name == '_')
    name++;
  if (strncmp(name, "libc_", 5) == 0)
    name += 5;
  size_t len = strcspn(name, "@."); /* read@GLIBC_2.2.5, a compiler's clone: f.constprop.0, f.isra.0 */
  if (listed(lock_calls, name, len))
    return ER_OFFCPU_LOCK;
  if (listed(io_calls, name, len))
    return ER_OFFCPU_IO;
  if (listed(sleep_calls, name, len))
    return ER_OFFCPU_SLEEP;
  return ER_OFFCPU_NONE;
}

enum er_offcpu_reason er_offcpu_reason_of_syscall(long nr)
{
  /* The system calls the entry points above make (this machine's
   * numbers: the sampler reads its own machine's threads). */
  static const long io[] = {SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_readv, SYS_writev, SYS_preadv,
                            SYS_pwritev, SYS_preadv2, SYS_pwritev2, SYS_recvfrom, SYS_recvmsg, SYS_recvmmsg,
                            SYS_sendto, SYS_sendmsg, SYS_sendmmsg, SYS_accept, SYS_accept4, SYS_connect,
                            SYS_ppoll, SYS_pselect6, SYS_epoll_pwait, SYS_openat, SYS_close, SYS_fsync,
                            SYS_fdatasync, SYS_msync, SYS_splice, SYS_tee, SYS_sendfile, SYS_copy_file_range,
                            SYS_fallocate, SYS_ftruncate, SYS_getdents64, SYS_io_getevents,
#ifdef SYS_poll
                            SYS_poll, SYS_select, SYS_epoll_wait, SYS_open, SYS_getdents,
#endif
#ifdef SYS_epoll_pwait2
                            SYS_epoll_pwait2,
#endif
#ifdef SYS_io_uring_enter
                            SYS_io_uring_enter,
#endif
  };
  /* No lock: a futex wait that no lock entry point on the stack names is
   * a runtime's own (libgomp's barriers, a language runtime's parking),
   * blocked as the kernel's stacks of it say; flock is named by glibc. */
  static const long sleep[] = {SYS_nanosleep, SYS_clock_nanosleep, SYS_rt_sigsuspend, SYS_rt_sigtimedwait, SYS_wait4,
                               SYS_waitid,
#ifdef SYS_pause
                               SYS_pause,
#endif
  };
  for (size_t i = 0; i < sizeof io / sizeof io[0]; i++)
    if (io[i] == nr)
      return ER_OFFCPU_IO;
  for (size_t i = 0; i < sizeof sleep / sizeof sleep[0]; i++)
    if (sleep[i] == nr)
      return ER_OFFCPU_SLEEP;
  return ER_OFFCPU_NONE;
}

int32_t er_offcpu_mstate(enum er_offcpu_reason reason)
{
  switch (reason) {
  case ER_OFFCPU_RUNNABLE:
    return ER_MSTATE_WAIT_CPU;
  case ER_OFFCPU_LOCK:
    return ER_MSTATE_USER_LOCK;
  case ER_OFFCPU_STOPPED:
    return ER_MSTATE_STOPPED;
  case ER_OFFCPU_TEXT_FAULT:
    return ER_MSTATE_TEXT_FAULT;
  case ER_OFFCPU_DATA_FAULT:
    return ER_MSTATE_DATA_FAULT;
  default:
    return ER_MSTATE_SLEEP;
  }
}

const char *er_offcpu_reason_title(enum er_offcpu_reason reason)
{
  static const char *const titles[ER_OFFCPU_REASONS] = {"on a CPU", "waiting for a CPU", "sleeping", "in I/O",
                                                        "waiting on a lock", "blocked (other)",
                                                        "stopped (by GDB or a signal)", "in a page fault (code)",
                                                        "in a page fault (data)"};
  return (unsigned)reason < ER_OFFCPU_REASONS ? titles[reason] : "?";
}

int er_mstate_on_cpu(int32_t mstate)
{
  return mstate == 0 || mstate == 1 || mstate == 2 || mstate == 10;
}
