/* gprofng's heap bookkeeping over an experiment's heap events
 * (er_heap_book.c): which allocations are still registered at the end
 * (leaks), for er-dump's totals and the report's leak metric alike. */
#ifndef ER_HEAP_BOOK_H
#define ER_HEAP_BOOK_H

#include "er/er_reader.h"

struct er_heap_book {
  unsigned long long frees, unknown_frees, maps, unmaps;
};

/* Whether an event allocated a block (an allocation, realloc or mmap that
 * returned an address): the events the allocation metrics count. */
int er_heap_allocates(const struct er_heap_event *h);
/* LEAKED[i] (one per heap event of EXP) set where event i's block is still
 * registered at the end; the frees and mappings counted into *BOOK.  0, or
 * -1 out of memory. */
int er_heap_leaks(const struct er_experiment *exp, unsigned char *leaked, struct er_heap_book *book);

#endif
