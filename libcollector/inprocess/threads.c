/* The per-thread state table.  Slots live in static memory so that signal
 * handlers and the runtime thread can reach them without allocation.
 *
 * A thread can be armed from two places at once: by itself, as it starts
 * (the pthread_create wrapper), and by the runtime thread's scan of
 * /proc/self/task (threads made by other means, and every thread that
 * already ran when the runtime was injected).  Claiming is therefore
 * serialised by a mutex so that a thread never gets two slots.  Neither
 * path runs in a signal handler; the handler only looks slots up, without
 * locks, by thread id. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "core/thread_slot.h"
#include "inprocess/threads.h"

struct col_thread col_threads[COL_MAX_THREADS];
static int high_water; /* slots at or above it were never used */
static pthread_mutex_t claim_lock = PTHREAD_MUTEX_INITIALIZER;

static struct col_thread *find_locked(pid_t tid)
{
  for (int i = 0; i < high_water; i++)
    if (col_threads[i].in_use != 0 && col_threads[i].tid == tid)
      return &col_threads[i];
  return NULL;
}

struct col_thread *col_thread_claim(pid_t tid)
{
  struct col_thread *claimed = NULL;
  pthread_mutex_lock(&claim_lock);
  if (find_locked(tid) == NULL) {
    for (int i = 0; i < COL_MAX_THREADS; i++) {
      struct col_thread *t = &col_threads[i];
      if (t->in_use != 0)
        continue;
      struct col_sample_ring *ring = t->ring; /* kept for reuse (sample_ring.c) */
      memset((char *)t + sizeof t->in_use, 0, sizeof *t - sizeof t->in_use);
      t->ring = ring;
      t->tid = tid;
      t->perf_fd = -1;
      __atomic_store_n(&t->in_use, -1, __ATOMIC_RELEASE); /* "being set up" until published */
      if (i >= high_water)
        __atomic_store_n(&high_water, i + 1, __ATOMIC_RELEASE);
      claimed = t;
      break;
    }
  }
  pthread_mutex_unlock(&claim_lock);
  return claimed;
}

void col_thread_release(struct col_thread *t)
{
  pthread_mutex_lock(&claim_lock);
  __atomic_store_n(&t->in_use, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&claim_lock);
}

void col_threads_forked(void)
{
  pthread_mutex_init(&claim_lock, NULL); /* another thread may have held it at the fork */
  for (int i = 0; i < COL_MAX_THREADS; i++)
    __atomic_store_n(&col_threads[i].in_use, 0, __ATOMIC_RELEASE);
}

struct col_thread *col_thread_find(pid_t tid)
{
  int n = __atomic_load_n(&high_water, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++) {
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) == 1 && t->tid == tid)
      return t;
  }
  return NULL;
}

int col_thread_known(pid_t tid)
{
  pthread_mutex_lock(&claim_lock);
  int known = find_locked(tid) != NULL;
  pthread_mutex_unlock(&claim_lock);
  return known;
}
