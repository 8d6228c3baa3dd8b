/* data.frameinfo: each call stack recorded once, by id, for every data
 * writer; a stack reaches the disk before the packets that use it. */
#ifndef COL_CORE_STACK_STORE_H
#define COL_CORE_STACK_STORE_H

#include <stddef.h>
#include <stdint.h>

/* Anonymous zeroed memory for a writer's state (no malloc in a signal
 * handler's reach). */
void *col_map_zeroed(size_t bytes);
/* A new data.frameinfo; ON_LOST_STACK(err) runs when a stack did not
 * reach the disk (the data writers then give up their unwritten packets). */
int col_stack_store_start(void (*on_lost_stack)(int err));
/* The FRINFO of stack PCS[0..N) in data.frameinfo (0: not recorded). */
uint64_t col_writer_stack_id(const uint64_t *pcs, size_t n);
/* The same for an OpenMP thread's clock sample in OMP_STATE (er/er_omp.h)
 * whose user-mode stack is USER[0..USER_N). */
uint64_t col_writer_stack_id_state(const uint64_t *pcs, size_t n, int omp_state, const uint64_t *user, size_t user_n);
/* data.frameinfo flushed; 0 when a stack was lost (the packets not yet
 * written are given up). */
int col_writer_stacks_on_disk(void);
struct er_cursor;
/* Whether a packet of SIZE bytes using stack FRINFO may go to CURSOR now:
 * not when its stack was not recorded at the data limit, nor when it would
 * close a block before its stack reached the disk. */
int col_writer_may_append(struct er_cursor *cursor, uint64_t frinfo, size_t size);

#endif
