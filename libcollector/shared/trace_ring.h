/* The trace ring (trace_ring.c): events the runtime's wrappers record on
 * the program's own threads (synchronization waits; later heap and I/O),
 * each with its registers and a copy of the stack, for the sampler process
 * to unwind and write, as it does the kernel's clock samples.  A file
 * beside the control page, mapped by both; the program keeps no
 * descriptor. */
#ifndef GDBCOL_TRACE_RING_H
#define GDBCOL_TRACE_RING_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

enum col_trace_kind { COL_TRACE_SYNC = 1, COL_TRACE_IO = 2, COL_TRACE_HEAP = 3 };

#define COL_TRACE_STACK_MAX 8192
#define COL_TRACE_SLOTS 1024

struct col_trace_event {
  uint32_t ready; /* atomic: filled, not yet taken */
  uint32_t kind;  /* enum col_trace_kind */
  int32_t pid, tid;
  uint32_t cpu, stack_len;
  int64_t start, end; /* the call's span (the experiment clock) */
  uint64_t object;    /* what it waited on; heap: the block */
  uint64_t old_object; /* heap: the block a realloc replaced; the length a munmap unmapped */
  int32_t iotype, fd, ofd; /* I/O: the format's IOTYPE, the descriptor, the original of a dup; heap: HTYPE */
  int32_t pad;
  int64_t nbytes;      /* I/O: bytes moved; heap: the size asked for */
  char name[256];          /* I/O open: the path */
  uint64_t ip, sp, bp; /* in the wrapper, where the stack copy starts */
  unsigned char stack[COL_TRACE_STACK_MAX];
};

struct col_trace_ring {
  uint64_t magic;
  uint64_t write_index, read_index, dropped; /* atomic */
  int64_t sync_threshold_ns; /* the sampler sets it (calibrated or asked for) before the program runs */
  int32_t io_on;             /* I/O calls traced (all of them) */
  int32_t heap_on;           /* allocations and frees traced */
  int32_t pad;
  int32_t sampler_pid;       /* woken (SIGURG) when the ring fills faster than its cycle drains it */
  uint32_t wake_armed;       /* atomic: the sampler re-arms it after each drain */
  uint32_t space_seq;        /* atomic, a futex: the sampler bumps it when it frees slots */
  uint32_t space_waiters;    /* atomic: program threads waiting for a slot */
  uint32_t stalled;          /* atomic: a wait timed out; no more waits until the sampler takes again */
  struct col_trace_event slots[COL_TRACE_SLOTS];
};

extern struct col_trace_ring *col_trace;

/* Where the ring lives for the status file STATUS_PATH. */
void col_trace_path(char *out, size_t len, const char *status_path);
/* The signal that wakes the sampler when an eighth of the ring is used. */
#define COL_TRACE_WAKE_SIGNAL SIGURG
/* The sampler process creates it, the runtime maps it (0 or -errno). */
/* SYNC_THRESHOLD_NS < 0: waits not traced. */
int col_trace_create(const char *status_path, int64_t sync_threshold_ns, int io_on, int heap_on);
int col_trace_attach(const char *status_path);
/* On a program thread: a slot to fill; then col_trace_commit.  When the
 * ring is full the thread wakes the sampler and waits for a slot (tracing
 * is exact: events are not dropped because the program outruns the
 * sampler), up to TRACE_FULL_WAIT_MS; NULL (counted) when the sampler does
 * not free one in that time, and no further waits until it does.  Without
 * MAY_WAIT: NULL (counted) at once when the ring is full. */
struct col_trace_event *col_trace_reserve(int may_wait);
void col_trace_commit(struct col_trace_event *e);
/* The sampler process: FN for every complete event, in order, up to the
 * first that ends after NEWEST (left for the next round). */
size_t col_trace_take(int64_t newest, void (*fn)(const struct col_trace_event *e, void *arg), void *arg);
/* The sampler: wake me again when the ring fills; and wake the threads
 * waiting for slots when the last take freed some. */
void col_trace_rearm(void);

#endif
