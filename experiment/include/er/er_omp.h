/* OpenMP states as gprofng numbers them (its omp_state: the OMP2_INFO
 * record of a frame packet, experiment-format.md §6.1a), shared by the
 * writer that classifies clock samples and the reader. */
#ifndef ER_OMP_H
#define ER_OMP_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_format.h"

enum er_omp_state {
  ER_OMP_NONE = 0,   /* not an OpenMP thread's sample (no OMP2_INFO written) */
  ER_OMP_OVERHEAD = 1,
  ER_OMP_WORK = 2,
  ER_OMP_IMPLICIT_BARRIER = 3,
  ER_OMP_EXPLICIT_BARRIER = 4,
  ER_OMP_IDLE = 5,
  ER_OMP_SERIAL = 6,
  ER_OMP_REDUCTION = 7,
  ER_OMP_LOCK_WAIT = 8,
  ER_OMP_CRITICAL_WAIT = 9,
  ER_OMP_ORDERED_WAIT = 10,
  ER_OMP_ATOMIC_WAIT = 11,
  ER_OMP_TASKWAIT = 12,
  /* Ours, past gprofng's: CPU time no clock sample found, whose state is
   * not known (the runtime's <Not-sampled-under-load>).  gprofng counts
   * it in its total and in none of OpenMP Work, Wait and Overhead, which
   * test the state's bit against sets of its own states. */
  ER_OMP_NOT_SAMPLED = 13,
  ER_OMP_N_STATES
};

/* "work", "implicit barrier", ... ("" for ER_OMP_NONE and unknown values). */
const char *er_omp_state_name(int state);
/* The pseudo-function gprofng puts at the leaf of a user-mode stack in
 * STATE ("<OMP-implicit_barrier>", ...), NULL for work, serial code,
 * overhead and taskwait (gprofng has none for it). */
const char *er_omp_state_pseudo_function(int state);
/* gprofng's OpenMP Work (work, serial, reduction), Wait (barriers, idle,
 * the waits) and Overhead: 'w', 'W', 'o', or 0 for ER_OMP_NONE. */
char er_omp_state_class(int state);

/* The omptrace file (experiment-format.md §5.8): which parallel region
 * and which task each thread is in from when on, and what each region and
 * task is.  gprofng takes a clock sample's region (task) from the last
 * event of its thread at or before the sample. */
enum {
  ER_PKT_OMP_REGION_EVENT = 12, /* a thread enters region ID (0: none, the implicit region) */
  ER_PKT_OMP_TASK_EVENT = 14,   /* a thread runs task ID (0: its region's implicit task) */
  ER_PKT_OMP_REGION_DESC = 15,  /* region ID: its parent, the code that names it */
  ER_PKT_OMP_TASK_DESC = 16,    /* task ID: its parent, the code that names it */
};

/* Kinds 12 and 14: the common 48-byte header of the tracing packets, then
 * the id. */
struct er_omp_event_packet {
  ER_COMMON_HEADER; /* FRINFO 0: the event has no stack of its own */
  uint64_t id;
};
_Static_assert(sizeof(struct er_omp_event_packet) == 56, "OpenMP event packet is 56 bytes");

/* Kinds 15 and 16. */
struct er_omp_desc_packet {
  uint16_t tsize;
  uint16_t type;
  uint32_t pad0;
  uint64_t id;
  uint64_t parent; /* 0: none (a region at the top; a task of its region's implicit task) */
  uint64_t pc;     /* the outlined function: gprofng names the region "from" its symbol */
};
_Static_assert(sizeof(struct er_omp_desc_packet) == 32, "OpenMP description packet is 32 bytes");

/* The <profile name="omptrace"> block of log.xml that declares the four
 * packets; its length (as snprintf). */
int er_omp_profile_block(char *out, size_t len);

#endif
