/* Starting and stopping each thread's clock source in the program: perf
 * events, or the CPU-time timer fallback and its per-thread sample rings. */
#ifndef COL_INPROCESS_CLOCK_SOURCES_H
#define COL_INPROCESS_CLOCK_SOURCES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/capture.h"
#include "core/thread_slot.h"

/* clock_source.c: start sampling the calling thread (or TID) with the best
 * available source.  Returns 0 or -errno. */
int col_clock_start_thread(pid_t tid);
void col_clock_stop_thread(struct col_thread *t);
void col_clock_stop_all(void);
/* Where no runtime thread runs (the program samples itself for the
 * sampler process): the calling thread (or TID) armed, and a thread's end,
 * at once; the timer source only. */
int col_clock_start_thread_here(pid_t tid);
/* The calling thread, just begun: its samples stand for all its CPU time,
 * the runtime's work in it so far included (the program's own clock of the
 * thread counts it too). */
int col_clock_start_new_thread_here(void);
/* The same for the calling thread, whose stack ends at STACK_HI (a thread
 * made by clone(): glibc's view of it is its creator's). */
int col_clock_start_raw_thread_here(uintptr_t stack_hi);
void col_clock_stop_thread_here(struct col_thread *t);
/* The end of the experiment there: every thread's timer stopped and its
 * end said (the threads still running: their CPU time read from here). */
void col_clock_stop_all_here(void);
/* clock_timer.c */
int col_timer_install_handler(void);
/* Samples onto the trace ring, for the sampler process (YES), or into
 * each thread's ring, for the runtime thread. */
void col_timer_to_trace_ring(int yes);
/* At an attach, where no runtime thread runs: the stacks the handler can
 * copy from, for threads armed from outside (their bounds unknown). */
void col_timer_read_stacks(void);
/* BORN_NOW: the calling thread has just begun (its samples stand for its
 * CPU time from 0, not from now). */
int col_timer_open(struct col_thread *t, long interval_us, size_t stack_bytes, int born_now);
void col_timer_close(struct col_thread *t);
size_t col_timer_drain(struct col_thread *t);
/* On an ending thread (its timer deleted): its CPU time since its last
 * sample, as one more sample at its last stack; for the sampler process,
 * also for another thread of the process (the experiment's end). */
void col_timer_finish_thread(struct col_thread *t);

/* sample_ring.c: single producer (a thread's signal handler), single
 * consumer (the runtime thread). */
struct col_sample_ring *col_ring_create(size_t bytes);
/* Rings are never unmapped: a late signal handler may still be writing to
 * one after its slot was released.  A slot keeps its ring for reuse. */
void col_ring_reset(struct col_sample_ring *ring);
/* Producer side, async-signal-safe.  Returns 0, or -1 when full. */
int col_ring_push(struct col_sample_ring *ring, const struct col_capture *cap);
size_t col_ring_drain(struct col_sample_ring *ring, col_capture_fn fn, void *arg);

#endif
