/* The trace ring: see trace_ring.h.  Created like the control page (a file
 * beside the status file, O_EXCL, no symlink followed), resident: its
 * blocks allocated and every mapping populated (shared_file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler_wake.h"
#include "shared_file.h"
#include "slot_ring.h"
#include "trace_ring.h"

#define TRACE_MAGIC 0x6764627472633032ULL /* "gdbtrc02": the layout of trace_ring.h */

struct col_trace_ring *col_trace;

void col_trace_path(char *out, size_t len, const char *status_path)
{
  snprintf(out, len, "%s.trace", status_path);
}

int col_trace_create(const char *status_path, uint32_t traced_kinds, int64_t sync_threshold_ns)
{
  char path[PATH_MAX + 16];
  col_trace_path(path, sizeof path, status_path);
  void *p;
  int rc = col_shared_file_create(path, sizeof *col_trace, COL_SHARED_RESIDENT, &p);
  if (rc != 0)
    return rc;
  struct col_trace_ring *ring = p;
  ring->sync_threshold_ns = sync_threshold_ns;
  ring->traced_kinds = traced_kinds;
  ring->sampler_pid = getpid();
  ring->wake_armed = 1;
  ring->slots_usable = COL_TRACE_SLOTS;
  col_trace = ring;
  __atomic_store_n(&ring->magic, TRACE_MAGIC, __ATOMIC_RELEASE);
  return 0;
}

static uint32_t slots_usable(const struct col_trace_ring *t)
{
  uint32_t n = __atomic_load_n(&t->slots_usable, __ATOMIC_ACQUIRE);
  return n >= COL_TRACE_SLOTS_LEAST && n <= COL_TRACE_SLOTS ? n : COL_TRACE_SLOTS;
}

size_t col_trace_bytes(uint32_t slots)
{
  return offsetof(struct col_trace_ring, slots) + slots * sizeof col_trace->slots[0];
}

size_t col_trace_mapped_bytes(const struct col_trace_ring *t)
{
  return col_trace_bytes(slots_usable(t));
}

/* The first SLOTS slots of a ring mapped at P: usable by every process of
 * the program if the ring is still unused (a program under ulimit -v with
 * 4 MB left recorded nothing at all, clock included where perf events are
 * refused, for want of the whole 10 MB); 0, or -ENOMEM when it is too
 * late to make it smaller. */
static int use_first_slots(struct col_trace_ring *t, uint32_t slots)
{
  uint32_t now = slots_usable(t);
  while (now > slots) {
    if (__atomic_load_n(&t->write_index, __ATOMIC_ACQUIRE) != 0)
      return -ENOMEM; /* events in flight over all the slots */
    if (__atomic_compare_exchange_n(&t->slots_usable, &now, slots, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return 0;
  }
  return 0;
}

int col_trace_attach(const char *status_path)
{
  char path[PATH_MAX + 16];
  col_trace_path(path, sizeof path, status_path);
  void *p;
  int rc = col_shared_file_attach(path, sizeof *col_trace, TRACE_MAGIC, COL_SHARED_RESIDENT, &p);
  for (uint32_t slots = COL_TRACE_SLOTS / 2; rc == -ENOMEM && slots >= COL_TRACE_SLOTS_LEAST; slots /= 2) {
    size_t bytes = col_trace_bytes(slots);
    rc = col_shared_file_attach(path, bytes, TRACE_MAGIC, COL_SHARED_RESIDENT, &p);
    if (rc == 0 && (rc = use_first_slots(p, slots)) != 0)
      munmap(p, bytes);
  }
  if (rc == 0)
    col_trace = p;
  return rc;
}

static struct ring_view view(struct col_trace_ring *t)
{
  return (struct ring_view){&t->write_index, &t->read_index, &t->dropped, (unsigned char *)t->slots,
                            sizeof t->slots[0], slots_usable(t)};
}

#define TRACE_FULL_WAIT_MS 1000 /* a live sampler, woken by the waiter, frees slots within a drain */
#define TRACE_WAIT_STEP_MS 10

static void futex_wait(uint32_t *word, uint32_t expected, long ms)
{
  struct timespec step = {0, ms * 1000000L};
  syscall(SYS_futex, word, FUTEX_WAIT, expected, &step, NULL, 0); /* shared mapping: not FUTEX_PRIVATE */
}

struct col_trace_event *col_trace_reserve(int may_wait)
{
  struct col_trace_ring *t = col_trace;
  if (t == NULL)
    return NULL;
  struct ring_view v = view(t);
  /* A thread's own event leaves one slot for a signal handler's that may
   * interrupt it before it commits (that one cannot wait: the sampler
   * takes slots in order, and would stop at this thread's). */
  size_t spare = may_wait ? 1 : 0;
  struct col_trace_event *e;
  for (long waited = 0;; waited += TRACE_WAIT_STEP_MS) {
    /* The sequence before the try: slots freed after it end the wait at once. */
    uint32_t seq = __atomic_load_n(&t->space_seq, __ATOMIC_ACQUIRE);
    e = col_ring_try_reserve(&v, spare);
    if (e != NULL || !may_wait || waited >= TRACE_FULL_WAIT_MS || __atomic_load_n(&t->stalled, __ATOMIC_ACQUIRE))
      break;
    __atomic_fetch_add(&t->space_waiters, 1, __ATOMIC_ACQ_REL);
    if (t->sampler_pid > 0)
      kill(t->sampler_pid, COL_SAMPLER_WAKE_SIGNAL);
    futex_wait(&t->space_seq, seq, TRACE_WAIT_STEP_MS);
    __atomic_fetch_sub(&t->space_waiters, 1, __ATOMIC_ACQ_REL);
  }
  if (e == NULL) {
    if (may_wait && !__atomic_load_n(&t->stalled, __ATOMIC_ACQUIRE))
      __atomic_store_n(&t->stalled, 1, __ATOMIC_RELEASE); /* the sampler is gone or stuck: do not wait again */
    __atomic_fetch_add(&t->dropped, 1, __ATOMIC_RELAXED);
  }
  return e;
}

void col_trace_commit(struct col_trace_event *e)
{
  struct col_trace_ring *t = col_trace;
  col_ring_mark_ready(e);
  /* A burst of events faster than the sampler's cycle: one signal, not
   * one per event, and only once an eighth of the ring is used (the flag
   * first: the indices' lines are the busiest). */
  if (!__atomic_load_n(&t->wake_armed, __ATOMIC_RELAXED))
    return;
  uint64_t used = __atomic_load_n(&t->write_index, __ATOMIC_RELAXED) - __atomic_load_n(&t->read_index, __ATOMIC_RELAXED);
  if (used >= slots_usable(t) / 8 && __atomic_exchange_n(&t->wake_armed, 0, __ATOMIC_ACQ_REL) == 1 &&
      t->sampler_pid > 0)
    kill(t->sampler_pid, COL_SAMPLER_WAKE_SIGNAL);
}

void col_trace_rearm(void)
{
  struct col_trace_ring *t = col_trace;
  if (t == NULL)
    return;
  __atomic_store_n(&t->wake_armed, 1, __ATOMIC_RELEASE);
}

/* After a take that freed slots: waiting threads go on. */
static void slots_freed(struct col_trace_ring *t)
{
  __atomic_fetch_add(&t->space_seq, 1, __ATOMIC_ACQ_REL);
  __atomic_store_n(&t->stalled, 0, __ATOMIC_RELEASE);
  if (__atomic_load_n(&t->space_waiters, __ATOMIC_ACQUIRE) > 0)
    syscall(SYS_futex, &t->space_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

struct trace_taker {
  int64_t newest;
  pid_t walked_pid;
  void (*fn)(const struct col_trace_event *e, void *arg);
  void *arg;
};

static int take_event(const void *slot, void *p)
{
  const struct trace_taker *t = p;
  const struct col_trace_event *e = slot;
  int walked = e->n_pcs > 0 || e->kind == COL_TRACE_BATCH;
  if (e->end > t->newest && !(walked && e->pid == t->walked_pid))
    return 0; /* its stack may lie in a library whose mapping record is not read yet */
  t->fn(e, t->arg);
  return 1;
}

size_t col_trace_take(int64_t newest, pid_t walked_pid, void (*fn)(const struct col_trace_event *e, void *arg),
                      void *arg)
{
  if (col_trace == NULL)
    return 0;
  struct ring_view v = view(col_trace);
  struct trace_taker t = {newest, walked_pid, fn, arg};
  size_t n = col_ring_take_while(&v, take_event, &t);
  if (n > 0)
    slots_freed(col_trace);
  return n;
}

size_t col_trace_unpack(const unsigned char *data, size_t len, pid_t pid, uint32_t space, struct col_trace_event *e,
                        void (*fn)(const struct col_trace_event *e, void *arg), void *arg)
{
  size_t n = 0;
  for (size_t at = 0; at + sizeof(struct col_trace_compact) <= len; n++) {
    const struct col_trace_compact *c = (const struct col_trace_compact *)(const void *)(data + at);
    size_t room = COL_TRACE_PAYLOAD_ROOM(c->payload_len);
    if (c->size < sizeof *c || c->size > len - at || c->payload_len > sizeof e->payload ||
        room > c->size - sizeof *c || c->n_pcs > (c->size - sizeof *c - room) / sizeof(uint64_t))
      break; /* damaged: the rest cannot be framed */
    /* The fields, not the payload's room past its length (no reader looks
     * there): 392 bytes cleared per event were a tenth of the sampler
     * process's time under heap tracing. */
    memset(e, 0, offsetof(struct col_trace_event, payload));
    e->ip = e->sp = e->bp = 0;
    e->kind = c->kind;
    e->pid = pid;
    e->tid = c->tid;
    e->cpu = c->cpu;
    e->space = space;
    e->start = c->start;
    e->end = c->end;
    e->payload_len = c->payload_len;
    memcpy(e->payload, c->data, c->payload_len);
    e->n_pcs = c->n_pcs;
    e->stack_len = c->n_pcs * (uint32_t)sizeof(uint64_t);
    memcpy(e->stack, c->data + room, e->stack_len);
    fn(e, arg);
    at += c->size;
  }
  return n;
}
