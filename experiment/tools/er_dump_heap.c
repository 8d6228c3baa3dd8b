/* er-dump's heap section: totals, leaks, and per allocating function what
 * it allocated and leaked.  The bookkeeping is gprofng's (experiment-
 * format.md, "Heap bookkeeping"): events in time order; an allocation
 * registers its block, a free or a realloc naming the block in its old
 * address releases it, an munmap releases the mappings it covers; what is
 * registered at the end is a leak.  The allocating function is the first
 * frame of the event's stack outside the runtime (whose wrapper is the
 * leaf) and C++'s operator new. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er_dump_heap.h"

/* unsigned: a damaged trace's sizes (up to 2^64 each) may overflow in sum */
struct site_total {
  char name[256];
  unsigned long long allocs, alloc_bytes, leaks, leaked_bytes;
};

/* What er_dump_heap found per site, until er_dump_heap_sites prints it. */
static struct site_total *kept_sites;
static size_t n_kept_sites;

/* A block registered and not yet released: open addressing on its address. */
struct live_block {
  uint64_t addr; /* 0: empty slot */
  uint64_t size;
  size_t site;
  int released; /* a tombstone keeps probe chains whole */
};

struct live_table {
  struct live_block *slots;
  size_t mask, used;
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

static void insert(struct live_table *t, uint64_t addr, uint64_t size, size_t site)
{
  struct live_block *old = find(t, addr);
  if (old != NULL) { /* registered twice without a release seen: the later one stands */
    old->size = size;
    old->site = site;
    return;
  }
  size_t i = slot_of(t, addr);
  while (t->slots[i].addr != 0 && !t->slots[i].released)
    i = (i + 1) & t->mask;
  if (t->slots[i].addr == 0)
    t->used++;
  t->slots[i] = (struct live_block){addr, size, site, 0};
}

static int by_time(const void *a, const void *b)
{
  const struct er_heap_event *x = *(const struct er_heap_event *const *)a, *y = *(const struct er_heap_event *const *)b;
  if (x->tstamp != y->tstamp)
    return x->tstamp < y->tstamp ? -1 : 1;
  return x < y ? -1 : x > y; /* file order among equal times */
}

static size_t site_index(struct site_total **sites, size_t *n, const char *name)
{
  for (size_t i = 0; i < *n; i++)
    if (strcmp((*sites)[i].name, name) == 0)
      return i;
  *sites = realloc(*sites, (*n + 1) * sizeof **sites);
  memset(&(*sites)[*n], 0, sizeof **sites);
  snprintf((*sites)[*n].name, sizeof (*sites)[*n].name, "%s", name);
  return (*n)++;
}

/* C++'s allocation functions (operator new, new[], their aligned and
 * nothrow forms): part of the allocator, like the runtime's wrapper. */
static int is_operator_new(const char *name)
{
  return strncmp(name, "_Znw", 4) == 0 || strncmp(name, "_Zna", 4) == 0 || strncmp(name, "operator new", 12) == 0;
}

/* The event's allocating function: the first frame outside the runtime
 * and C++'s operator new. */
static const char *caller_of(const struct er_experiment *exp, const struct er_heap_event *h, er_pc_name_fn name_of)
{
  const struct er_stack *st = er_experiment_stack(exp, h->frinfo);
  if (st == NULL)
    return "<no stack>";
  for (size_t k = 0; k < st->n; k++) {
    const struct er_segment *seg = er_experiment_segment(exp, st->pcs[k]);
    const char *file = seg != NULL && seg->name != NULL ? strrchr(seg->name, '/') : NULL;
    if (file != NULL && strcmp(file, "/libcollector.so") == 0)
      continue;
    const char *name = name_of(exp, st->pcs[k]);
    if (!is_operator_new(name))
      return name;
  }
  return "<runtime only>";
}

void er_dump_heap(const struct er_experiment *exp, er_pc_name_fn name_of)
{
  size_t n = exp->n_heap_events;
  const struct er_heap_event **order = malloc((n + 1) * sizeof *order);
  struct live_table live = {NULL, 0, 0};
  size_t cap = 1024;
  while (cap < n * 2)
    cap *= 2;
  live.slots = calloc(cap, sizeof *live.slots);
  live.mask = cap - 1;
  if (order == NULL || live.slots == NULL) {
    free(order);
    free(live.slots);
    return;
  }
  for (size_t i = 0; i < n; i++)
    order[i] = &exp->heap_events[i];
  qsort(order, n, sizeof *order, by_time);
  struct site_total *sites = NULL;
  size_t n_sites = 0;
  unsigned long long allocs = 0, alloc_bytes = 0, frees = 0, maps = 0, unmaps = 0, unknown_frees = 0;
  for (size_t i = 0; i < n; i++) {
    const struct er_heap_event *h = order[i];
    switch (h->htype) {
    case ER_HEAP_REALLOC:
      if (h->old_addr != 0) {
        struct live_block *b = find(&live, h->old_addr);
        if (b != NULL)
          b->released = 1;
      }
      __attribute__((fallthrough)); /* to the new block */
    case ER_HEAP_MALLOC:
    case ER_HEAP_MMAP:
      if (h->addr == 0)
        break; /* failed: nothing allocated (gprofng counts only HVADDR != 0) */
      {
        size_t s = site_index(&sites, &n_sites, caller_of(exp, h, name_of));
        sites[s].allocs++;
        sites[s].alloc_bytes += h->size;
        allocs++;
        alloc_bytes += h->size;
        maps += h->htype == ER_HEAP_MMAP;
        insert(&live, h->addr, h->size, s);
      }
      break;
    case ER_HEAP_FREE: {
      struct live_block *b = find(&live, h->addr);
      frees++;
      if (b != NULL)
        b->released = 1;
      else
        unknown_frees++; /* allocated before the experiment, or untraced */
      break;
    }
    case ER_HEAP_MUNMAP:
      unmaps++;
      for (size_t j = 0; j <= live.mask; j++) {
        struct live_block *b = &live.slots[j];
        if (b->addr != 0 && !b->released && b->addr >= h->addr && b->addr < h->addr + h->size)
          b->released = 1;
      }
      break;
    }
  }
  unsigned long long leaks = 0, leaked_bytes = 0;
  for (size_t j = 0; j <= live.mask; j++) {
    const struct live_block *b = &live.slots[j];
    if (b->addr == 0 || b->released)
      continue;
    leaks++;
    leaked_bytes += b->size;
    sites[b->site].leaks++;
    sites[b->site].leaked_bytes += b->size;
  }
  printf("heap_events: %zu\n", n);
  printf("heap_allocations: %llu\n", allocs);
  printf("heap_allocated_bytes: %llu\n", alloc_bytes);
  printf("heap_frees: %llu\n", frees);
  printf("heap_frees_of_unknown_blocks: %llu\n", unknown_frees);
  printf("heap_mmaps: %llu\n", maps);
  printf("heap_munmaps: %llu\n", unmaps);
  printf("heap_leaks: %llu\n", leaks);
  printf("heap_leaked_bytes: %llu\n", leaked_bytes);
  kept_sites = sites;
  n_kept_sites = n_sites;
  free(live.slots);
  free(order);
}

void er_dump_heap_sites(void)
{
  printf("heap_sites:\n");
  for (size_t s = 0; s < n_kept_sites; s++)
    printf("%llu %llu %llu %llu %s\n", kept_sites[s].allocs, kept_sites[s].alloc_bytes, kept_sites[s].leaks,
           kept_sites[s].leaked_bytes, kept_sites[s].name);
  free(kept_sites);
  kept_sites = NULL;
  n_kept_sites = 0;
}
