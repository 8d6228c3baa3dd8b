/* The trace ring (trace_ring.c): events the runtime's wrappers record on the program's own threads
 * (synchronization waits, I/O, heap), each with its registers and a copy of the stack, for the sampler
 * process to unwind and write, as it does the kernel's clock samples.  A file beside the control page,
 * mapped by both; the program keeps no descriptor. */
#ifndef GDBCOL_TRACE_RING_H
#define GDBCOL_TRACE_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind/stack_prints.h"
#include "unwind/unwind.h"

/* An event's kind is its data kind (enum er_kind: the data file and packet
 * it becomes); BATCH: a lane's records (below), flushed into one slot. */
#define COL_TRACE_BATCH 0xFFFFu
/* MORE: the next part of the stack copy of a clock sample the same thread
 * put in a slot before it (the program sampling itself, perf events
 * refused, with a copy larger than a slot's: `collector profile stack`
 * above COL_TRACE_STACK_MAX).  Its time is the sample's. */
#define COL_TRACE_STACK_MORE 0xFFFEu

#define COL_TRACE_STACK_MAX 8192
#define COL_TRACE_SLOTS 1024
#define COL_SHARED_RULE_SLOTS 8192 /* power of two */
/* The most payload an event carries: an I/O packet's fields and a path. */
#define COL_TRACE_PAYLOAD_MAX 320

/* Nothing here knows a kind's fields: an event carries its kind and its
 * payload, the bytes of its packet after the common header (er_format.h),
 * which the kind's wrapper fills and the writer appends as they are. */
struct col_trace_event {
  uint32_t ready;       /* atomic: filled, not yet taken */
  uint16_t kind;        /* enum er_kind, or COL_TRACE_BATCH */
  uint16_t payload_len; /* bytes of payload[] */
  int32_t pid, tid;
  uint32_t cpu, stack_len;
  uint32_t space;  /* the address space it was recorded in (col_trace_space) */
  uint32_t n_pcs;  /* > 0: stack[] holds the call stack the thread walked itself, leaf first, not a copy */
  int64_t start, end; /* the call's span (the experiment clock) */
  unsigned char payload[COL_TRACE_PAYLOAD_MAX] __attribute__((aligned(8)));
  uint64_t ip, sp, bp; /* in the wrapper, where the stack copy starts */
  unsigned char stack[COL_TRACE_STACK_MAX];
};

/* The program's own clock samples (perf events refused) are ER_KIND_CLOCK
 * events: a sample's payload is this (its stack copy's length: more than
 * the slot holds comes in MORE slots after it); a thread's end (no
 * registers) carries col_thread_end_tail, its CPU time since what its
 * samples stand for. */
struct col_clock_sample_payload {
  uint32_t weight;    /* in intervals */
  uint32_t stack_len; /* the whole copy's bytes */
  struct col_beyond_prints beyond; /* what the stack held beyond the copy */
  uint32_t unplaced;    /* intervals before it no sample found (core/capture.h) */
  uint64_t unplaced_pc; /* the pseudo-function they go under */
  uint8_t omp_regions;  /* whether an OpenMP region ran (core/capture.h) */
};

struct col_thread_end_tail {
  uint32_t weight; /* 0 */
  int64_t unsampled_ns;
  int64_t unplaced_ns;  /* of those, what goes under the pseudo-function (core/capture.h) */
  uint64_t unplaced_pc;
};

/* A traced call whose thread walked its own stack, as kept in a lane and
 * flushed in a BATCH slot: then its payload (rounded up to 8 bytes) and
 * its return addresses. */
struct col_trace_compact {
  uint32_t size; /* bytes, with the payload and the addresses; a multiple of 8 */
  uint16_t kind; /* enum er_kind */
  uint16_t payload_len;
  int32_t tid;
  uint32_t cpu;
  int64_t start, end;
  uint32_t n_pcs;
  uint32_t pad;
  unsigned char data[]; /* payload, then uint64_t pcs[n_pcs] */
};
#define COL_TRACE_PAYLOAD_ROOM(len) (((size_t)(len) + 7) & ~(size_t)7)

/* A thread's lane (trace_lanes.c): its walked events gathered where only
 * it writes, and flushed into one ring slot when full or old, so that the
 * thread does not write to lines the sampler reads at every event.  Any
 * process of the program's family uses them (an MPI job's ranks are
 * descendants); the sampler takes a descendant's leftovers before it
 * forwards the exec or the exit that ends its experiment, and everyone's
 * at the end.  A thread that gets none uses the ring. */
#define COL_TRACE_LANES 256
#define COL_TRACE_LANE_BYTES (4096 - 64)
#define COL_LANE_REVOKED UINT32_MAX
struct col_trace_lane {
  uint32_t owner;    /* atomic: the thread's id; 0 free; COL_LANE_REVOKED: being drained by the sampler */
  uint32_t seq;      /* atomic: odd while the owner changes the records */
  uint32_t used;     /* bytes of records */
  int32_t pid;       /* the owner's process, set when claimed */
  int64_t first_end; /* the oldest record's time */
  unsigned char pad2[40];
  unsigned char data[COL_TRACE_LANE_BYTES];
} __attribute__((aligned(64)));

struct col_trace_ring {
  uint64_t magic;
  /* Each index on a cache line of its own: the program's threads move the
   * first, the sampler the second (at every event, they would otherwise
   * pull one line back and forth between the CPUs). */
  uint64_t write_index __attribute__((aligned(64))); /* atomic */
  uint64_t read_index __attribute__((aligned(64)));  /* atomic */
  uint64_t dropped __attribute__((aligned(64)));     /* atomic */
  int64_t sync_threshold_ns; /* the sampler sets it (calibrated or asked for) before the program runs */
  uint32_t traced_kinds;     /* 1 << enum er_kind for each kind the wrappers record */
  int32_t pad;
  int32_t sampler_pid;       /* woken (SIGURG) when the ring fills faster than its cycle drains it */
  uint32_t wake_armed;       /* atomic: the sampler re-arms it after each drain; read first, written rarely */
  uint32_t space_seq;        /* atomic, a futex: the sampler bumps it when it frees slots */
  uint32_t space_waiters;    /* atomic: program threads waiting for a slot */
  uint32_t stalled;          /* atomic: a wait timed out; no more waits until the sampler takes again */
  int32_t pad2;
  uint32_t next_space;       /* atomic: the last address-space id given out */
  uint32_t rules_published;  /* atomic: entries of rules[] in use */
  /* atomic: the slots in use, COL_TRACE_SLOTS but where a program under an
   * address-space limit could map only the first of them (col_trace_attach),
   * set before its first event and never raised. */
  uint32_t slots_usable;
  int32_t pad3;
  /* Frame rules the sampler found unwinding events' stack copies, for the
   * program's threads to walk their own stacks with (frame_rules_shared.c). */
  struct col_shared_rule {
    uint64_t key; /* atomic, written last: the code address | space << 48; 0 = empty */
    int32_t cfa_offset;
    int16_t bp_offset;
    uint8_t kind;  /* enum col_rule_kind: SIMPLE or OUTERMOST */
    uint8_t bases; /* enum col_cfa_base | enum col_bp_rule << 4 */
  } rules[COL_SHARED_RULE_SLOTS];
  struct col_trace_lane lanes[COL_TRACE_LANES];
  struct col_trace_event slots[COL_TRACE_SLOTS];
};

extern struct col_trace_ring *col_trace;

/* ---- frame_rules_shared.c: rules the sampler publishes for the program --- */

struct col_frame_rule;
/* A new id for the calling process's address space (at start, in a fork's
 * child, after an exec): rules are per address space.  Never 0. */
uint32_t col_trace_new_space(void);
/* Publishes the rule at LOOKUP_PC of address space SPACE (the sampler). */
void col_trace_publish_rule(uint32_t space, uint64_t lookup_pc, const struct col_frame_rule *rule);
/* The published rule at LOOKUP_PC of SPACE into *OUT; 0 when there is none
 * (lock-free, async-signal-safe: the program's threads call it). */
int col_trace_published_rule(uint32_t space, uint64_t lookup_pc, struct col_frame_rule *out);

/* Where the ring lives for the status file STATUS_PATH. */
void col_trace_path(char *out, size_t len, const char *status_path);
/* The sampler process creates it, the runtime maps it (0 or -errno).
 * TRACED_KINDS: 1 << enum er_kind for each kind recorded; synchronization
 * waits shorter than SYNC_THRESHOLD_NS are not. */
int col_trace_create(const char *status_path, uint32_t traced_kinds, int64_t sync_threshold_ns);
/* Whether the wrappers of KIND record now (a load and a test: the only
 * cost of a wrapper whose kind is off). */
static inline int col_trace_kind_on(const struct col_trace_ring *t, unsigned kind)
{
  return t != NULL && (t->traced_kinds >> kind & 1u);
}
/* Maps the ring into the program (0 or -errno).  Where the whole ring does
 * not fit (ENOMEM: an address-space limit) and no event was written yet,
 * the first part of it, down to COL_TRACE_SLOTS_LEAST slots, and every
 * process of the program uses that many from then on. */
#define COL_TRACE_SLOTS_LEAST 16
int col_trace_attach(const char *status_path);
/* The bytes of a ring's first SLOTS slots, with all that comes before them. */
size_t col_trace_bytes(uint32_t slots);
/* The ring's bytes as the program maps them (less than the whole where
 * col_trace_attach could map only a part). */
size_t col_trace_mapped_bytes(const struct col_trace_ring *t);
/* On a program thread: a slot to fill; then col_trace_commit.  When the
 * ring is full the thread wakes the sampler and waits for a slot (tracing
 * is exact: events are not dropped because the program outruns the
 * sampler), up to TRACE_FULL_WAIT_MS; NULL (counted) when the sampler does
 * not free one in that time, and no further waits until it does.  Without
 * MAY_WAIT: NULL (counted) at once when the ring is full. */
struct col_trace_event *col_trace_reserve(int may_wait);
void col_trace_commit(struct col_trace_event *e);
/* The sampler process: FN for every complete event, in order, up to the
 * first that ends after NEWEST (left for the next round), except that
 * events of process WALKED_PID whose thread walked its own stack are
 * taken at once: they need no mapping record to be unwound. */
size_t col_trace_take(int64_t newest, pid_t walked_pid, void (*fn)(const struct col_trace_event *e, void *arg),
                      void *arg);
/* The events packed in a lane's records (DATA, LEN bytes: a BATCH slot's
 * stack[], or a lane's data) as whole events of process PID and address
 * space SPACE, each built in *E and given to FN, in order; stops at a
 * record that cannot be framed.  How many. */
size_t col_trace_unpack(const unsigned char *data, size_t len, pid_t pid, uint32_t space, struct col_trace_event *e,
                        void (*fn)(const struct col_trace_event *e, void *arg), void *arg);
/* The sampler: wake me again when the ring fills; and wake the threads
 * waiting for slots when the last take freed some. */
void col_trace_rearm(void);

#endif
