/* Call stacks in data.frameinfo: ids and deduplication (§6).
 *
 * A frame packet is written the first time its id is seen; every later
 * event with the same stack only carries the id.  Ids follow gprofng's
 * fold so that they are stable and non-zero; the reader never recomputes
 * them.  Not async-signal-safe (the id set grows with mmap); used by the
 * runtime's writer thread, outside signal handlers. */
#ifndef ER_STACKS_H
#define ER_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_datafile.h"

struct er_idset {
  uint64_t *slots; /* 0 = free */
  size_t capacity; /* power of two */
  size_t count;
};

void er_idset_init(struct er_idset *set);
void er_idset_destroy(struct er_idset *set);
/* Returns 1 when ID was new (and is now in the set), 0 when it was there,
 * -ENOMEM when the set could not grow. */
int er_idset_insert(struct er_idset *set, uint64_t id);

/* Stack uid of PCS (leaf first), folded from the outermost frame. */
uint64_t er_stack_uid(const uint64_t *pcs, size_t n);

/* Writes the frame packet for PCS (leaf first) if it is new, and returns
 * the id to put in FRINFO, or 0 when the stack is empty or on error. */
uint64_t er_frameinfo_record(struct er_cursor *frameinfo, struct er_idset *seen, const uint64_t *pcs, size_t n);
/* The same for a sample of an OpenMP thread: OMP_STATE (enum er_omp_state,
 * 0: none) in an OMP2_INFO record after the stack, naming the user-mode
 * stack USER[0..USER_N) (a UID packet, written once; none when USER_N is
 * 0); state and user stack are part of the frame's id. */
uint64_t er_frameinfo_record_state(struct er_cursor *frameinfo, struct er_idset *seen, const uint64_t *pcs, size_t n,
                                   unsigned omp_state, const uint64_t *user, size_t user_n);

#endif
