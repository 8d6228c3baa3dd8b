/* Arming every thread of the process, however it was made.
 *
 * The pthread_create wrapper arms a new thread before it runs user code,
 * but only for threads created through a call we interpose (LD_PRELOAD at
 * launch, patched GOT slots after an attach).  Threads that already ran when
 * the runtime was injected, threads libc creates internally, and threads
 * made with a raw clone() are found here instead, by listing
 * /proc/self/task: a perf event or a CPU-time timer can be attached to any
 * thread of the process from any other.  The same scan notices threads that
 * ended without passing through our exit hook, so their slots are drained
 * and freed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/thread_slot.h"
#include "inprocess/clock_sources.h"
#include "runtime/collection_state.h"
#include "inprocess/threads.h"

#define MAX_TASKS COL_MAX_THREADS

static pid_t tasks[MAX_TASKS];

static int compare_tids(const void *a, const void *b)
{
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return x < y ? -1 : x > y;
}

/* The thread ids of this process, sorted; raw getdents64, no allocation.
 * Runtime thread only (its descriptor table). */
static size_t list_tasks(void)
{
  int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t n = 0;
  char buf[8192];
  long got;
  while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < got;) {
      struct dirent64 *d = (struct dirent64 *)(buf + off);
      pid_t tid = (pid_t)atoi(d->d_name);
      if (tid > 0 && n < MAX_TASKS)
        tasks[n++] = tid;
      off += d->d_reclen;
    }
  }
  close(fd);
  qsort(tasks, n, sizeof tasks[0], compare_tids);
  return n;
}

static int task_alive(pid_t tid, size_t n)
{
  return bsearch(&tid, tasks, n, sizeof tasks[0], compare_tids) != NULL;
}

unsigned col_scan_threads(pid_t skip_tid)
{
  if (!col_collecting())
    return 0; /* not yet, or closing: arm nothing */
  size_t n = list_tasks();
  if (n == 0)
    return 0;
  unsigned armed = 0;
  for (size_t i = 0; i < n; i++)
    if (tasks[i] != skip_tid && !col_thread_known(tasks[i]) && col_clock_start_thread(tasks[i]) == 0)
      armed++;
  /* Slots of threads that are gone: stop, then let the runtime thread drain them. */
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == 1 && !__atomic_load_n(&t->retired, __ATOMIC_ACQUIRE) &&
        !task_alive(t->tid, n))
      col_clock_stop_thread(t);
  }
  return armed;
}
