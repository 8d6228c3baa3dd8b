/* gprofng's heap bookkeeping (experiment-format.md, "Heap bookkeeping"):
 * the events in time order; an allocation registers its block, a free or
 * a realloc naming the block at its old address releases it, an munmap
 * releases the blocks it covers; what is registered at the end leaked. */
#include "er/er_heap_book.h"

#include <stdlib.h>

#include "er/er_format.h"

/* A block registered and not yet released: open addressing on its address. */
struct live_block {
  uint64_t addr; /* 0: empty slot */
  size_t event;  /* the event that allocated it */
  int released;  /* a tombstone keeps probe chains whole */
};

struct live_table {
  struct live_block *slots;
  size_t mask;
};

static size_t slot_of(const struct live_table *t, uint64_t addr)
{
  return (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 20) & t->mask;
}

static struct live_block *find(struct live_table *t, uint64_t addr)
{
  for (size_t i = slot_of(t, addr);; i = (i + 1) & t->mask) {
    if (t->slots[i].addr == 0)
      return NULL;
    if (t->slots[i].addr == addr && !t->slots[i].released)
      return &t->slots[i];
  }
}

static void insert(struct live_table *t, uint64_t addr, size_t event)
{
  struct live_block *old = find(t, addr);
  if (old != NULL) { /* registered twice without a release seen: the later one stands */
    old->event = event;
    return;
  }
  size_t i = slot_of(t, addr);
  while (t->slots[i].addr != 0 && !t->slots[i].released)
    i = (i + 1) & t->mask;
  t->slots[i] = (struct live_block){addr, event, 0};
}

static int by_time(const void *a, const void *b)
{
  const struct er_heap_event *x = *(const struct er_heap_event *const *)a, *y = *(const struct er_heap_event *const *)b;
  if (x->tstamp != y->tstamp)
    return x->tstamp < y->tstamp ? -1 : 1;
  return x < y ? -1 : x > y; /* file order among equal times */
}

int er_heap_allocates(const struct er_heap_event *h)
{
  /* (a failed one allocated nothing: gprofng counts only HVADDR != 0) */
  return (h->htype == ER_HEAP_MALLOC || h->htype == ER_HEAP_REALLOC || h->htype == ER_HEAP_MMAP) && h->addr != 0;
}

int er_heap_leaks(const struct er_experiment *exp, unsigned char *leaked, struct er_heap_book *book)
{
  size_t n = exp->n_heap_events, cap = 1024;
  *book = (struct er_heap_book){0, 0, 0, 0};
  while (cap < n * 2)
    cap *= 2;
  const struct er_heap_event **order = malloc((n + 1) * sizeof *order);
  struct live_table live = {calloc(cap, sizeof(struct live_block)), cap - 1};
  if (order == NULL || live.slots == NULL) {
    free(order);
    free(live.slots);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    order[i] = &exp->heap_events[i];
    leaked[i] = 0;
  }
  qsort(order, n, sizeof *order, by_time);
  for (size_t i = 0; i < n; i++) {
    const struct er_heap_event *h = order[i];
    if (h->htype == ER_HEAP_REALLOC && h->old_addr != 0) {
      struct live_block *b = find(&live, h->old_addr);
      if (b != NULL)
        b->released = 1;
    }
    if (er_heap_allocates(h)) {
      book->maps += h->htype == ER_HEAP_MMAP;
      insert(&live, h->addr, (size_t)(h - exp->heap_events));
    } else if (h->htype == ER_HEAP_FREE) {
      struct live_block *b = find(&live, h->addr);
      book->frees++;
      if (b != NULL)
        b->released = 1;
      else
        book->unknown_frees++; /* allocated before the experiment, or untraced */
    } else if (h->htype == ER_HEAP_MUNMAP) {
      book->unmaps++;
      for (size_t j = 0; j <= live.mask; j++) {
        struct live_block *b = &live.slots[j];
        if (b->addr != 0 && !b->released && b->addr >= h->addr && b->addr < h->addr + h->size)
          b->released = 1;
      }
    }
  }
  for (size_t j = 0; j <= live.mask; j++)
    if (live.slots[j].addr != 0 && !live.slots[j].released)
      leaked[live.slots[j].event] = 1;
  free(live.slots);
  free(order);
  return 0;
}
