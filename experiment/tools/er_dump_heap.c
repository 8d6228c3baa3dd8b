/* er-dump's heap section: totals, leaks, and per allocating function what
 * it allocated and leaked (the bookkeeping: er_heap_book.c, gprofng's).
 * The allocating function is the first
 * frame of the event's stack outside the runtime (whose wrapper is the
 * leaf) and C++'s operator new. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er/er_heap_book.h"
#include "er_dump_heap.h"

/* unsigned: a damaged trace's sizes (up to 2^64 each) may overflow in sum */
struct site_total {
  char name[256];
  unsigned long long allocs, alloc_bytes, leaks, leaked_bytes;
};

/* What er_dump_heap found per site, until er_dump_heap_sites prints it. */
static struct site_total *kept_sites;
static size_t n_kept_sites;

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
    if (er_pc_in_runtime(exp, st->pcs[k]))
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
  unsigned char *leaked = malloc(n + 1);
  struct er_heap_book book;
  if (leaked == NULL || er_heap_leaks(exp, leaked, &book) != 0) {
    free(leaked);
    return;
  }
  struct site_total *sites = NULL;
  size_t n_sites = 0;
  unsigned long long allocs = 0, alloc_bytes = 0, leaks = 0, leaked_bytes = 0;
  for (size_t i = 0; i < n; i++) {
    const struct er_heap_event *h = &exp->heap_events[i];
    if (!er_heap_allocates(h))
      continue;
    size_t s = site_index(&sites, &n_sites, caller_of(exp, h, name_of));
    sites[s].allocs++;
    sites[s].alloc_bytes += h->size;
    allocs++;
    alloc_bytes += h->size;
    if (leaked[i]) {
      leaks++;
      leaked_bytes += h->size;
      sites[s].leaks++;
      sites[s].leaked_bytes += h->size;
    }
  }
  printf("heap_events: %zu\n", n);
  printf("heap_allocations: %llu\n", allocs);
  printf("heap_allocated_bytes: %llu\n", alloc_bytes);
  printf("heap_frees: %llu\n", book.frees);
  printf("heap_frees_of_unknown_blocks: %llu\n", book.unknown_frees);
  printf("heap_mmaps: %llu\n", book.maps);
  printf("heap_munmaps: %llu\n", book.unmaps);
  printf("heap_leaks: %llu\n", leaks);
  printf("heap_leaked_bytes: %llu\n", leaked_bytes);
  kept_sites = sites;
  n_kept_sites = n_sites;
  free(leaked);
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
