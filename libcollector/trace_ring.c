/* The trace ring: see trace_ring.h.  Created like the control page (a file
 * beside the status file, O_EXCL, no symlink followed), sparse: only the
 * slots used take memory. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "collector_internal.h"
#include "shared_file.h"
#include "slot_ring.h"
#include "trace_ring.h"

#define TRACE_MAGIC 0x6764627472633031ULL /* "gdbtrc01" */

struct col_trace_ring *col_trace;

void col_trace_path(char *out, size_t len, const char *status_path)
{
  snprintf(out, len, "%s.trace", status_path);
}

int col_trace_create(const char *status_path, int64_t sync_threshold_ns, int io_on)
{
  char path[PATH_MAX + 16];
  col_trace_path(path, sizeof path, status_path);
  void *p;
  int rc = col_shared_file_create(path, sizeof *col_trace, &p);
  if (rc != 0)
    return rc;
  struct col_trace_ring *ring = p;
  ring->sync_threshold_ns = sync_threshold_ns;
  ring->io_on = io_on;
  ring->sampler_pid = getpid();
  ring->wake_armed = 1;
  col_trace = ring;
  __atomic_store_n(&ring->magic, TRACE_MAGIC, __ATOMIC_RELEASE);
  return 0;
}

int col_trace_attach(const char *status_path)
{
  char path[PATH_MAX + 16];
  col_trace_path(path, sizeof path, status_path);
  void *p;
  int rc = col_shared_file_attach(path, sizeof *col_trace, TRACE_MAGIC, &p);
  if (rc == 0)
    col_trace = p;
  return rc;
}

static struct ring_view view(struct col_trace_ring *t)
{
  return (struct ring_view){&t->write_index, &t->read_index, &t->dropped, (unsigned char *)t->slots,
                            sizeof t->slots[0], COL_TRACE_SLOTS};
}

struct col_trace_event *col_trace_reserve(void)
{
  struct col_trace_ring *t = col_trace;
  if (t == NULL)
    return NULL;
  struct ring_view v = view(t);
  return col_ring_reserve(&v);
}

void col_trace_commit(struct col_trace_event *e)
{
  struct col_trace_ring *t = col_trace;
  col_ring_mark_ready(e);
  /* A burst of events faster than the sampler's cycle: one signal, not
   * one per event, and only once an eighth of the ring is used. */
  uint64_t used = __atomic_load_n(&t->write_index, __ATOMIC_RELAXED) - __atomic_load_n(&t->read_index, __ATOMIC_RELAXED);
  if (used >= COL_TRACE_SLOTS / 8 && __atomic_exchange_n(&t->wake_armed, 0, __ATOMIC_ACQ_REL) == 1 &&
      t->sampler_pid > 0)
    kill(t->sampler_pid, COL_TRACE_WAKE_SIGNAL);
}

void col_trace_rearm(void)
{
  if (col_trace != NULL)
    __atomic_store_n(&col_trace->wake_armed, 1, __ATOMIC_RELEASE);
}

struct trace_taker {
  int64_t newest;
  void (*fn)(const struct col_trace_event *e, void *arg);
  void *arg;
};

static int take_event(const void *slot, void *p)
{
  const struct trace_taker *t = p;
  const struct col_trace_event *e = slot;
  if (e->end > t->newest)
    return 0; /* its stack may lie in a library whose mapping record is not read yet */
  t->fn(e, t->arg);
  return 1;
}

size_t col_trace_take(int64_t newest, void (*fn)(const struct col_trace_event *e, void *arg), void *arg)
{
  if (col_trace == NULL)
    return 0;
  struct ring_view v = view(col_trace);
  struct trace_taker t = {newest, fn, arg};
  return col_ring_take_while(&v, take_event, &t);
}
