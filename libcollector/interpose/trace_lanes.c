/* Lanes: a thread's walked events gathered in a block only it writes
 * (trace_ring.h), flushed into one ring slot when the block is full or its
 * oldest event is TRACE_LANE_MAX_AGE_NS old.  At malloc rates the ring's
 * shared lines cost the thread more than its whole event otherwise: each
 * event wrote a slot the sampler had just read on another CPU.  A lane's
 * lines stay in the thread's cache; a flush copies them in one go.
 *
 * The sampler takes what is left in the lanes at the end (and at an exec):
 * it revokes a lane (owner -> COL_LANE_REVOKED) and waits for the owner's
 * write window (seq odd) to close.  Owner and sampler each write their
 * flag, then read the other's, in one sequentially consistent order, so either the owner sees the
 * revocation and writes nothing, or the sampler sees the open window and
 * waits for the record in it. */
#define _GNU_SOURCE
#include <string.h>

#include "trace_lanes.h"

#define TRACE_LANE_MAX_AGE_NS 20000000LL /* an idle thread's events wait at most for its next one */

__thread int col_trace_slot_state __attribute__((tls_model("initial-exec")));
static __thread struct col_trace_lane *my_lane __attribute__((tls_model("initial-exec")));
static __thread int no_lane __attribute__((tls_model("initial-exec"))); /* none was free */

void col_lanes_forked(void)
{
  my_lane = NULL; /* the parent's; a child's events go through the ring */
  no_lane = 0;
}

static struct col_trace_lane *claim(struct col_trace_ring *t, pid_t pid, pid_t tid)
{
  for (size_t i = 0; i < COL_TRACE_LANES; i++) {
    struct col_trace_lane *l = &t->lanes[i];
    uint32_t free_owner = 0;
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == 0 &&
        __atomic_compare_exchange_n(&l->owner, &free_owner, (uint32_t)tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
      l->used = 0;
      l->pid = pid;
      return l;
    }
  }
  return NULL;
}

/* The lane's records into one ring slot (the window is open). */
static int flush(struct col_trace_lane *l, const struct col_lane_origin *o)
{
  col_trace_slot_state = WAITING_FOR_SLOT;
  struct col_trace_event *e = col_trace_reserve(1);
  if (e == NULL) {
    col_trace_slot_state = IN_LANE;
    return 0;
  }
  col_trace_slot_state = HOLDING_SLOT;
  e->kind = COL_TRACE_BATCH;
  e->pid = o->pid;
  e->tid = o->tid;
  e->cpu = o->cpu;
  e->space = o->space;
  e->n_pcs = 0;
  e->start = e->end = l->first_end; /* each record has its own times */
  e->payload_len = 0;
  memcpy(e->stack, l->data, l->used);
  e->stack_len = l->used;
  col_trace_commit(e);
  col_trace_slot_state = IN_LANE;
  l->used = 0;
  return 1;
}

static void close_window(struct col_trace_lane *l, uint32_t seq)
{
  __atomic_store_n(&l->seq, seq + 2, __ATOMIC_RELEASE);
}

int col_lane_record(const struct col_trace_fields *f, const uint64_t *pcs, size_t n, const struct col_lane_origin *o)
{
  struct col_trace_ring *t = col_trace;
  size_t room = COL_TRACE_PAYLOAD_ROOM(f->payload_len);
  size_t size = sizeof(struct col_trace_compact) + room + n * sizeof *pcs;
  if (t == NULL || size > COL_TRACE_LANE_BYTES)
    return 0;
  struct col_trace_lane *l = my_lane;
  if (l == NULL) {
    if (no_lane || (l = my_lane = claim(t, o->pid, o->tid)) == NULL) {
      no_lane = 1;
      return 0;
    }
  }
  uint32_t seq = l->seq;
  /* Open the window, then look at the owner: a sequentially consistent
   * exchange and load (one locked instruction on x86, cheaper than a store
   * and a full fence) against the sampler's compare-exchange and fence. */
  __atomic_exchange_n(&l->seq, seq + 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&l->owner, __ATOMIC_SEQ_CST) != (uint32_t)o->tid) {
    close_window(l, seq);
    my_lane = NULL; /* revoked: the sampler takes what it holds */
    return 0;
  }
  if (l->used > 0 && (l->used + size > COL_TRACE_LANE_BYTES || f->end - l->first_end > TRACE_LANE_MAX_AGE_NS) &&
      !flush(l, o)) {
    close_window(l, seq);
    return 0;
  }
  struct col_trace_compact *c = (struct col_trace_compact *)(void *)(l->data + l->used);
  c->size = (uint32_t)size;
  c->kind = f->kind;
  c->payload_len = f->payload_len;
  c->tid = o->tid;
  c->cpu = o->cpu;
  c->start = f->start;
  c->end = f->end;
  c->n_pcs = (uint32_t)n;
  memcpy(c->data, f->payload, f->payload_len);
  memcpy(c->data + room, pcs, n * sizeof *pcs);
  if (l->used == 0)
    l->first_end = f->end;
  l->used += (uint32_t)size;
  close_window(l, seq);
  return 1;
}
