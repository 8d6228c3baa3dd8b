/* Recording traced events on the program's own threads (trace_record.c),
 * shared by the tracing wrappers of every kind: the
 * wrapper's registers, a per-thread guard
 * (the runtime's own calls, a wrapper reached again while recording, are
 * not traced), and the event with its stack copy onto the trace ring.
 * Recording allocates nothing and takes no lock: it may run in a signal
 * handler. */
#ifndef GDBCOL_TRACE_RECORD_H
#define GDBCOL_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "er/er_format.h"
#include "trace_ring.h"

/* The wrapper's registers, read where it stands (the unwinder starts in
 * the wrapper: it is the leaf, as gprofng's interposers are).
 * A traced body that a hot wrapper reached by a tail call (its path while
 * the kind is off is a test and a jump: sync_interpose.c, heap_interpose.c)
 * declares col_here_entry as that wrapper: the leaf is then the wrapper at
 * its entry, where the return address is all its frame holds, found above
 * the body's frame record (these files keep frame pointers), so that the
 * frame is named as the function the program called. */
static void *const col_here_entry __attribute__((unused)) = NULL;
#define HERE(ip, sp, bp)                                                                                    \
  do {                                                                                                      \
    if (col_here_entry != NULL) {                                                                           \
      const uint64_t *frame_ = (const uint64_t *)__builtin_frame_address(0);                               \
      (ip) = (uint64_t)(uintptr_t)col_here_entry;                                                           \
      (sp) = (uint64_t)(uintptr_t)(frame_ + 1);                                                             \
      (bp) = frame_[0];                                                                                     \
    } else {                                                                                                \
      __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(ip), "=r"(sp), "=r"(bp)); \
    }                                                                                                       \
  } while (0)

/* Set while this thread records, or runs a traced call whose own
 * implementation may call other traced functions (reallocarray calls
 * realloc): calls made meanwhile are not traced. */
extern __thread int col_tracing_here __attribute__((tls_model("initial-exec")));
/* STATEMENT as the runtime's own work: nothing it calls is traced as the
 * program's (a block the runtime allocates, a lookup that allocates).  The
 * barriers keep the flag's stores: GCC takes malloc and free for builtins
 * that read no memory of ours, and dropped them (measured). */
#define COL_AS_RUNTIME(statement)           \
  do {                                      \
    int was_ = col_tracing_here;            \
    col_tracing_here = 1;                   \
    __asm__ volatile("" ::: "memory");      \
    statement;                              \
    __asm__ volatile("" ::: "memory");      \
    col_tracing_here = was_;                \
  } while (0)


/* The ring, when this thread's calls are traced now (else NULL): loads
 * only, no system call (an event's pid says whose it is). */
struct col_trace_ring *col_trace_here(void);

/* One event: its kind (enum er_kind), span and payload (the bytes of its
 * packet after the common header; COL_TRACE_PACKET makes them from a
 * packet struct the wrapper filled). */
struct col_trace_fields {
  uint16_t kind;
  uint16_t payload_len;
  int64_t start, end;
  const void *payload;
};
#define COL_TRACE_PACKET(kind_, start_, end_, packet_, packet_size_)                       \
  ((struct col_trace_fields){(kind_), (uint16_t)((packet_size_) - ER_PACKET_HEADER_SIZE), \
                             (start_), (end_), (const unsigned char *)(packet_) + ER_PACKET_HEADER_SIZE})

/* This thread's id, asked once (a system call costs a microsecond here). */
pid_t col_trace_thread_id(void);
/* Once the ring is mapped: the ids events carry, and their reset in a
 * fork's child. */
void col_trace_record_init(void);
/* While PAUSED, nothing is recorded (the writer would drop it). */
void col_trace_record_pause(int paused);

/* The event F onto the ring, with the stack above SP (errno kept). */
void col_trace_record(const struct col_trace_fields *f, uint64_t ip, uint64_t sp, uint64_t bp);
/* The same with a stack someone else walked: PCS (leaf first, N of them:
 * a data race's access as ThreadSanitizer kept it). */
void col_trace_record_pcs(const struct col_trace_fields *f, const uint64_t *pcs, size_t n);

#endif
