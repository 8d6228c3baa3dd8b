/* Slot rings shared between processes: see slot_ring.h. */
#include "slot_ring.h"

void *col_ring_try_reserve(const struct ring_view *v, size_t spare)
{
  uint64_t w = __atomic_load_n(v->write, __ATOMIC_ACQUIRE);
  do {
    if (w - __atomic_load_n(v->read, __ATOMIC_ACQUIRE) + spare >= v->count)
      return NULL;
  } while (!__atomic_compare_exchange_n(v->write, &w, w + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  return v->slots + (w % v->count) * v->slot_size;
}

void *col_ring_reserve(const struct ring_view *v)
{
  void *slot = col_ring_try_reserve(v, 0);
  if (slot == NULL)
    __atomic_fetch_add(v->dropped, 1, __ATOMIC_RELAXED);
  return slot;
}

void col_ring_mark_ready(void *slot)
{
  __atomic_store_n((uint32_t *)slot, 1, __ATOMIC_RELEASE);
}

/* Slots taken are given back every FREE_EVERY (and at the end of a take),
 * not one by one: each store of the read index takes its cache line away
 * from the producers, which read it at every reservation. */
#define FREE_EVERY 32

size_t col_ring_take_while(const struct ring_view *v, int (*fn)(const void *slot, void *arg), void *arg)
{
  size_t n = 0;
  uint64_t r = __atomic_load_n(v->read, __ATOMIC_ACQUIRE), w = __atomic_load_n(v->write, __ATOMIC_ACQUIRE);
  for (;;) {
    if (r == w && r == (w = __atomic_load_n(v->write, __ATOMIC_ACQUIRE)))
      break;
    uint32_t *slot = (uint32_t *)(v->slots + (r % v->count) * v->slot_size);
    if (!__atomic_load_n(slot, __ATOMIC_ACQUIRE))
      break; /* reserved, still being written: next cycle */
    if (!fn(slot, arg))
      break; /* the taker wants it later */
    __atomic_store_n(slot, 0, __ATOMIC_RELEASE);
    r++;
    if (++n % FREE_EVERY == 0)
      __atomic_store_n(v->read, r, __ATOMIC_RELEASE);
  }
  if (n % FREE_EVERY != 0)
    __atomic_store_n(v->read, r, __ATOMIC_RELEASE);
  return n;
}

struct every_slot {
  void (*fn)(const void *slot, void *arg);
  void *arg;
};

static int take_every(const void *slot, void *p)
{
  const struct every_slot *e = p;
  e->fn(slot, e->arg);
  return 1;
}

size_t col_ring_take(const struct ring_view *v, void (*fn)(const void *slot, void *arg), void *arg)
{
  struct every_slot e = {fn, arg};
  return col_ring_take_while(v, take_every, &e);
}
