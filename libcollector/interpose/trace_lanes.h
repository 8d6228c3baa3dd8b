/* A thread's lane of walked events (trace_lanes.c). */
#ifndef GDBCOL_TRACE_LANES_H
#define GDBCOL_TRACE_LANES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace_record.h"
#include "trace_ring.h"

/* Who recorded the event. */
/* Where this thread's recording stands: a signal handler may trace a call
 * at any point of it.  While the thread holds a slot it has not committed,
 * the handler's event must not wait for space (the sampler takes slots in
 * order and would stop at the held one); otherwise it may.  While the
 * thread writes its lane (trace_lanes.c), the handler's event goes through
 * the ring. */
enum col_trace_slot_state { IDLE, WAITING_FOR_SLOT, HOLDING_SLOT, IN_LANE };
extern __thread int col_trace_slot_state __attribute__((tls_model("initial-exec")));

struct col_lane_origin {
  pid_t pid, tid;
  uint32_t cpu, space;
};

/* Event F with its call stack PCS (N addresses, leaf first) into the
 * calling thread's lane: 1, or 0 when it must go through the ring (no
 * lane, not the sampler's program, the lane revoked, the ring full). */
int col_lane_record(const struct col_trace_fields *f, const uint64_t *pcs, size_t n, const struct col_lane_origin *o);
/* In a fork's child: the parent's lane is not the child's. */
void col_lanes_forked(void);

#endif
