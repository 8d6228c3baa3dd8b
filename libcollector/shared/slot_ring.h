/* Rings of fixed-size slots in memory shared between processes (the
 * control page's rings, the trace ring): any number of writers, one reader.
 * A writer reserves slot WRITE with a compare-and-swap (refused, and
 * counted in DROPPED, when the reader is COUNT slots behind), fills it and
 * sets its ready flag (each slot's first word, a uint32_t); the reader
 * takes ready slots in order.  Async-signal-safe on the writers' side. */
#ifndef GDBCOL_SLOT_RING_H
#define GDBCOL_SLOT_RING_H

#include <stddef.h>
#include <stdint.h>

struct ring_view {
  uint64_t *write, *read, *dropped;
  unsigned char *slots;
  size_t slot_size, count;
};

/* A slot to fill, or NULL when the ring is full (counted). */
void *col_ring_reserve(const struct ring_view *v);
/* The same, not counted, and only while more than SPARE slots are free:
 * the caller may wait and try again. */
void *col_ring_try_reserve(const struct ring_view *v, size_t spare);
/* The slot is filled: the reader may take it. */
void col_ring_mark_ready(void *slot);
/* FN for each ready slot, in order, up to the first one still being
 * filled; returns how many. */
size_t col_ring_take(const struct ring_view *v, void (*fn)(const void *slot, void *arg), void *arg);
/* The same while FN returns nonzero: a slot it returns 0 for stays. */
size_t col_ring_take_while(const struct ring_view *v, int (*fn)(const void *slot, void *arg), void *arg);

#endif
