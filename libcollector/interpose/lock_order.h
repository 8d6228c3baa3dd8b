/* Lock orders for deadlock detection (`collector tha deadlock`;
 * lock_order.c): each thread's locks held, and each pair "took B while
 * holding A" recorded once per process, with the stack where B was taken.
 * Called by the lock wrappers (sync_interpose.c, lock_interpose.c) after a
 * lock was taken or before it is released. */
#ifndef GDBCOL_LOCK_ORDER_H
#define GDBCOL_LOCK_ORDER_H

#include <stdint.h>

#include "er/er_data_kinds.h"
#include "er/er_tha.h"
#include "trace_record.h"

/* Neither synchronization waits nor lock orders are recorded now (the
 * kinds are off, or no experiment): a lock wrapper goes straight to the
 * real function, tested first with one load and one test, before any
 * register is saved (issue 38: the pair cost 9.3 ns against 5.5 bare). */
static inline int col_sync_wrappers_idle(void)
{
  const struct col_trace_ring *t = col_trace;
  return __builtin_expect(t == NULL || (t->traced_kinds & ((1u << ER_KIND_SYNC) | (1u << ER_KIND_LOCK_ORDER))) == 0, 1);
}

/* Nonzero when lock orders are recorded now. */
static inline int col_lock_order_on(void)
{
  return col_trace_kind_on(col_trace, ER_KIND_LOCK_ORDER);
}

/* This thread took LOCK (enum er_lock_kind KIND) by a call that returns
 * to CALLER; the wrapper's registers IP, SP, BP start the stack of a new
 * order.  TRIED: taken by a try (never waits: it orders nothing after the
 * locks held, and is held all the same). */
void col_lock_order_taken(const void *lock, int kind, int tried, uint64_t caller, uint64_t ip, uint64_t sp,
                          uint64_t bp);
/* This thread releases LOCK. */
void col_lock_order_released(const void *lock);

/* In a lock wrapper, after the real call returned RC (0: taken). */
#define COL_LOCK_TAKEN(rc, lock, kind, tried)                                                     \
  do {                                                                                            \
    if ((rc) == 0 && col_lock_order_on()) {                                                       \
      uint64_t ip_, sp_, bp_;                                                                     \
      HERE(ip_, sp_, bp_);                                                                        \
      col_lock_order_taken((const void *)(uintptr_t)(lock), (kind), (tried),                    \
                           (uint64_t)(uintptr_t)__builtin_return_address(0), ip_,              \
                           sp_, bp_);                                                             \
    }                                                                                             \
  } while (0)

#endif
