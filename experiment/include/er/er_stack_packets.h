/* The call stacks' packets (experiment-format.md §6): frame packets and
 * their info records, OpenMP user-mode stacks, the markers a stack's last
 * slot may hold, and how deep a stack may be.  Part of er_format.h. */
#ifndef ER_STACK_PACKETS_H
#define ER_STACK_PACKETS_H

#include <stdint.h>

/* Frame packet, kind 11 (§6.1): this header, then info records. */
struct er_frame_packet {
  uint16_t tsize;
  uint16_t type;
  uint32_t hsize; /* 16: where the info records start */
  uint64_t uid;   /* the FRINFO value data packets refer to */
} __attribute__((packed));

/* A user-mode stack (§6.1b): the PCs (leaf first) follow.  An OMP2_INFO
 * record names it by UID. */
struct er_uid_packet {
  uint16_t tsize;
  uint16_t type;  /* ER_PKT_UID */
  uint32_t flags; /* 0 */
  uint64_t uid;
} __attribute__((packed));

struct er_frame_info {
  uint32_t hsize; /* record size including this header */
  uint32_t kind;  /* ER_FRAME_INFO_*, bit 31 = compressed */
  uint64_t uid;   /* stack uid */
} __attribute__((packed));

#define ER_FRAME_INFO_STACK 1u
#define ER_FRAME_INFO_OMP2 5u /* the sample's OpenMP state (§6.1a) */
#define ER_FRAME_INFO_COMPRESSED 0x80000000u

/* After the stack record of an OpenMP thread's frame packet (§6.1a). */
struct er_frame_omp2 {
  uint32_t hsize;     /* 24 */
  uint32_t kind;      /* ER_FRAME_INFO_OMP2 */
  uint32_t omp_state; /* enum er_omp_state */
  uint32_t pad;
  uint64_t uid;       /* the user-mode stack's uid, 0: none */
} __attribute__((packed));

/* Markers in the last slot of a stack (§6.2). */
#define ER_PC_TRUNCATED ((uint64_t)-2)
#define ER_PC_UNWIND_FAILED ((uint64_t)-3)

/* The most frames a call stack holds: gprofng's collector's ceiling
 * (GPROFNG_MAX_CALL_STACK_DEPTH goes up to it).  A frame packet of that
 * many fits its 16-bit size; the readers keep up to this many per stack. */
#define ER_MAX_STACK_DEPTH 2048
#define ER_MIN_STACK_DEPTH 5
/* The default: gprofng's collector's (its own testsuite expects synprog's
 * 500-deep recursion cut), unless the user asks for a larger stack copy
 * (typed, or dbx's SP_COLLECTOR_STACKBUFSZ, "to support deeper stacks"):
 * then ER_MAX_STACK_DEPTH, since a 400-deep recursion cut at 256 frames
 * with a 64 KiB copy is not what was asked (settings.py). */
#define ER_DEFAULT_STACK_DEPTH 256

#endif
