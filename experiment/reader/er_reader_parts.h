/* What the reader's files tell one another (experiment/reader/ only):
 * the collectors of some packets, and the passes er_experiment_open runs
 * after reading. */
#ifndef ER_READER_PARTS_H
#define ER_READER_PARTS_H

#include <stdint.h>

#include "er/er_reader.h"

/* er_reused_ranges.c: where an address range held one load object after
 * another, the packets of an earlier one get stacks of their own whose
 * addresses there are tagged with their segment (er_pc_address,
 * er_pc_segment_tag read them). */
void er_experiment_resolve_reused_ranges(struct er_experiment *exp);
/* A lock order packet of synctrace (er_lock_orders.c), kept. */
void er_collect_lock_order(const unsigned char *packet, uint16_t type, uint16_t size, void *exp);
/* A data race packet of synctrace (er_lock_orders.c), kept. */
void er_collect_race(const unsigned char *packet, uint16_t type, uint16_t size, void *exp);
/* A UID packet of data.frameinfo (er_user_stacks.c), kept. */
void er_collect_user_stack(struct er_experiment *exp, const unsigned char *packet, uint16_t size);
/* Each stack's user-mode stack found by its uid (a uid with no UID packet
 * leaves none); the user stacks sorted. */
void er_experiment_resolve_user_stacks(struct er_experiment *exp);
void er_free_user_stacks(struct er_experiment *exp);
/* er_thread_names.c: the threads' names (our own file), where there. */
void er_read_thread_names(const char *path, struct er_experiment *exp);
void er_free_thread_names(struct er_experiment *exp);

#endif
