/* Lock orders (lock_order.h; docs/design.md "Deadlock detection").
 *
 * Each thread keeps the locks it holds in a small array of its own (no
 * lock, no allocation: the wrappers run in any thread, a signal handler
 * included).  Taking lock B while holding A is an order A -> B; the first
 * time the process makes an order, it becomes an event on the trace ring
 * with the stack where B was taken and where A had been; the sampler
 * writes it (er_tha.h) and the reader finds the cycles: two threads that
 * take two locks in opposite orders can deadlock, whether or not they did
 * in this run (the lock-order graph of lockdep and Helgrind).
 *
 * The orders seen are a table of their keys (a hash of the two addresses),
 * claimed with one compare-and-swap: a new order costs an event, a known
 * one a probe.  A full table records no more orders, and says so (the
 * count in the sampler's log).  What an uncontended lock and unlock cost
 * here: the array's push and pop, and a probe per lock held. */
#define _GNU_SOURCE
#include <string.h>

#include "core/hrtime.h"
#include "lock_order.h"

#define MAX_HELD 32

struct held_lock {
  const void *lock;
  uint64_t taken_at; /* the call's return address */
  int kind;
};

static __thread struct held_lock held[MAX_HELD] __attribute__((tls_model("initial-exec")));
static __thread int n_held __attribute__((tls_model("initial-exec")));
/* Locks taken beyond MAX_HELD: not tracked (their releases are not found). */
static __thread int held_overflow __attribute__((tls_model("initial-exec")));

#define ORDER_SLOTS (1u << 16) /* power of two */
static uint64_t order_keys[ORDER_SLOTS];
static int orders_seen;  /* atomic: the next order's number is this + 1 */
static int orders_table_full; /* atomic */

static uint64_t order_key(const void *from, const void *to)
{
  uint64_t k = ((uint64_t)(uintptr_t)from * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uintptr_t)to + 0x632BE59BD9B4E019ull);
  k ^= k >> 29;
  k *= 0xBF58476D1CE4E5B9ull;
  k ^= k >> 32;
  return k != 0 ? k : 1;
}

/* 1 when FROM -> TO is new (now claimed), 0 when seen, -1 when the table
 * has no room. */
static int claim_order(const void *from, const void *to)
{
  uint64_t key = order_key(from, to);
  size_t slot = (size_t)key & (ORDER_SLOTS - 1);
  for (unsigned probe = 0; probe < 64; probe++, slot = (slot + 1) & (ORDER_SLOTS - 1)) {
    uint64_t there = __atomic_load_n(&order_keys[slot], __ATOMIC_ACQUIRE);
    if (there == key)
      return 0;
    if (there == 0) {
      uint64_t empty = 0;
      if (__atomic_compare_exchange_n(&order_keys[slot], &empty, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 1;
      if (empty == key)
        return 0;
    }
  }
  __atomic_store_n(&orders_table_full, 1, __ATOMIC_RELAXED);
  return -1;
}

__attribute__((noinline)) static void record_order(const struct held_lock *from, const void *to, int kind,
                                                   uint64_t ip, uint64_t sp, uint64_t bp)
{
  int64_t now = col_hrtime();
  struct er_lock_order_packet p;
  memset(&p, 0, sizeof p);
  p.srqst = now;
  p.sobj = (uint64_t)(uintptr_t)to;
  p.did = __atomic_add_fetch(&orders_seen, 1, __ATOMIC_RELAXED);
  p.dtype = ER_LOCK_ORDER;
  p.dltype = kind;
  p.heldtype = from->kind;
  p.dvaddr = (uint64_t)(uintptr_t)from->lock;
  p.heldpc = from->taken_at;
  p.dthread = (uint64_t)col_trace_thread_id();
  struct col_trace_fields f = COL_TRACE_PACKET(ER_KIND_LOCK_ORDER, now, now, &p, sizeof p);
  col_trace_record(&f, ip, sp, bp);
}

void col_lock_order_taken(const void *lock, int kind, int tried, uint64_t caller, uint64_t ip, uint64_t sp,
                          uint64_t bp)
{
  if (col_tracing_here)
    return; /* the runtime's own locking */
  /* An order is claimed only where it can be recorded (not while the
   * collection is paused, nor in a call of GDB's). */
  if (!tried && n_held > 0 && col_trace_here() != NULL)
    for (int i = 0; i < n_held; i++)
      if (held[i].lock != lock && claim_order(held[i].lock, lock) == 1)
        record_order(&held[i], lock, kind, ip, sp, bp);
  if (n_held == MAX_HELD) {
    held_overflow++;
    return;
  }
  held[n_held++] = (struct held_lock){lock, caller - 1, kind};
}

void col_lock_order_released(const void *lock)
{
  /* Most often the last one taken. */
  for (int i = n_held; i-- > 0;)
    if (held[i].lock == lock) {
      memmove(&held[i], &held[i + 1], (size_t)(n_held - i - 1) * sizeof held[0]);
      n_held--;
      return;
    }
}
