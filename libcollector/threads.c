/* The per-thread state table.  Slots live in static memory so that signal
 * handlers and the sampler thread can reach them without allocation or
 * locks; a slot is claimed with one compare-and-swap. */
#define _GNU_SOURCE
#include <string.h>

#include "collector_internal.h"

struct col_thread col_threads[COL_MAX_THREADS];

/* initial-exec TLS: reading it never calls into the loader, so it is safe
 * in a signal handler. */
static __thread struct col_thread *self_slot __attribute__((tls_model("initial-exec")));

struct col_thread *col_thread_claim(pid_t tid)
{
  for (int i = 0; i < COL_MAX_THREADS; i++) {
    int expected = 0;
    struct col_thread *t = &col_threads[i];
    if (__atomic_load_n(&t->in_use, __ATOMIC_RELAXED) == 0 &&
        __atomic_compare_exchange_n(&t->in_use, &expected, -1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      memset((char *)t + sizeof t->in_use, 0, sizeof *t - sizeof t->in_use);
      t->tid = tid;
      t->perf_fd = -1;
      return t; /* in_use stays -1 ("being set up") until published */
    }
  }
  return NULL;
}

void col_thread_release(struct col_thread *t)
{
  __atomic_store_n(&t->in_use, 0, __ATOMIC_RELEASE);
}

struct col_thread *col_thread_self(void)
{
  return self_slot;
}

void col_thread_set_self(struct col_thread *t)
{
  self_slot = t;
}
