/* One sample as a clock source captured it: registers and raw stack
 * bytes, for the unwinder. */
#ifndef COL_CORE_CAPTURE_H
#define COL_CORE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Registers in perf's x86_64 numbering (asm/perf_regs.h), so both clock
 * sources hand the unwinder the same layout. */
#define COL_NREGS 24
struct col_regs {
  uint64_t r[COL_NREGS];
};

struct col_beyond_prints; /* unwind/stack_prints.h */

/* One captured sample, ready for unwinding. */
struct col_capture {
  pid_t tid;
  uint32_t cpu;
  int64_t tstamp;
  uint32_t weight; /* clock ticks this sample stands for (1 + overruns) */
  uint64_t period; /* perf: the event's period (ns of CPU time); 0 in a counter's samples */
  struct col_regs regs;
  const unsigned char *stack; /* bytes from regs.r[SP] upward */
  size_t stack_len;
  uint64_t event_id; /* perf: the id of the event that took it */
  int in_kernel;     /* taken in kernel mode (its stack is the user's at the kernel's entry) */
  /* The program's own samples: what the stack held beyond the copy when
   * taken (NULL: not known, as in perf's samples) */
  const struct col_beyond_prints *beyond;
  /* The program's own samples that came late under load: the intervals
   * of CPU time before this one that no sample found
   * (inprocess/timer_lateness.c), recorded under the pseudo-function at
   * UNPLACED_PC. */
  uint32_t unplaced;
  uint64_t unplaced_pc;
  /* The program's own samples: whether an OpenMP parallel region ran in
   * the process then (COL_OMP_REGIONS_...; interpose/omp_marks.h). */
  uint8_t omp_regions;
};

enum { COL_OMP_REGIONS_UNKNOWN = 0, COL_OMP_REGIONS_NONE = 1, COL_OMP_REGIONS_SOME = 2 };

typedef void (*col_capture_fn)(const struct col_capture *cap, void *arg);

#endif
