/* A sampled thread's slot: its clock source's state and statistics
 * (the runtime's thread table holds them; the perf source reads them). */
#ifndef COL_CORE_THREAD_SLOT_H
#define COL_CORE_THREAD_SLOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "er/er_gdb_layout.h"

/* The real-time signal sampling from inside uses; the plugin tells GDB to
 * pass it. */
#define COL_TIMER_SIGNAL ER_RUNTIME_TIMER_SIGNAL

enum col_source_kind { COL_SOURCE_NONE, COL_SOURCE_PERF, COL_SOURCE_TIMER };

struct col_sample_ring;

struct col_thread {
  int in_use;         /* atomic: slot taken (-1: being set up, 1: armed, 2: being stopped) */
  int retired;        /* atomic: thread gone, slot waits for a final drain */
  pid_t tid;
  enum col_source_kind source;
  /* perf source */
  int perf_fd;
  void *perf_ring;
  size_t perf_ring_bytes;
  /* timer source */
  timer_t timer;
  struct col_sample_ring *ring;
  uintptr_t stack_lo, stack_hi;
  int64_t timer_cpu_ns; /* the thread's CPU time its samples stand for so far (its handler's) */
  long timer_preemptions; /* its involuntary switches at its last sample (-1: not known) */
  /* statistics, written by the sampler thread */
  uint64_t samples, lost;
  uint64_t ticks; /* the samples' weights: intervals of CPU time */
  uint64_t last_stack_id; /* its last sample's stack (data.frameinfo), for its end's */
  uint64_t cpu_ns_seen;    /* its CPU time at the last check (blocked_signal.c) */
  uint64_t blocked_since_cpu_ns; /* its CPU time when a check first saw it blocking; 0: not seen */
  int blocks_timer_signal; /* seen blocking COL_TIMER_SIGNAL while it ran */
};

#endif
