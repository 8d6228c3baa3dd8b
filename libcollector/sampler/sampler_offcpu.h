/* Off-CPU time (`collector profile offcpu on`): each thread's time off its
 * CPU, from the kernel's context-switch records, by reason and stack, as
 * clock packets gprofng reads as micro-states (sampler_offcpu.c). */
#ifndef GDBCOL_SAMPLER_OFFCPU_H
#define GDBCOL_SAMPLER_OFFCPU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "er/er_offcpu.h"
#include "blocked_stack.h"

/* PERIOD_NS: the clock's period (one packet stands for that much time off
 * CPU); STARTED_AT: when the run began (threads there before it that first
 * show switching in were off their CPU since). */
void offcpu_init(uint64_t period_ns, int64_t started_at);
/* A thread of the program was made during the run (it was never off its
 * CPU before its first switch in). */
void offcpu_on_thread_born(pid_t tid);
/* A context switch: OUT (PREEMPTED: still runnable) or in, on CPU. */
void offcpu_on_switch(pid_t tid, int out, int preempted, uint32_t cpu, int64_t tstamp);
/* PCS[0..N) copied into *KEPT (room for the frames a wait keeps,
 * allocated the first time): the frames kept, 0 where there is no room. */
size_t offcpu_keep_stack(uint64_t **kept, const uint64_t *pcs, size_t n);
/* The stack where thread TID left its CPU at TSTAMP (a switch event's
 * sample, where the kernel gives them). */
void offcpu_on_stack(pid_t tid, int64_t tstamp, const uint64_t *pcs, size_t n);
/* Threads of PID off their CPU a while are read from outside
 * (blocked_stack.h): whether a debugger or a signal stopped them, and
 * their stacks where the kernel's sample at the switch out is missing. */
void offcpu_read_from_outside(pid_t pid);
/* The records up to UPTO are in: threads off their CPU long enough are
 * read.  Returns the nanoseconds until the next is due (-1: none waits).
 * Called at least every OFFCPU_READ_MS while the program runs, so that
 * waits of a few milliseconds are read while they last. */
#define OFFCPU_READ_MS 10
int64_t offcpu_read_waits(int64_t upto);
/* Where no switch records come (perf events refused): NS off its CPU of
 * thread TID, ending at END, measured from /proc (offcpu_from_proc.h):
 * PREEMPTED (runnable), or a wait READ from outside (NULL: not read); its
 * stack PCS[0..DEPTH) (DEPTH 0: none). */
void offcpu_on_measured(pid_t tid, int64_t ns, int64_t end, int preempted, const struct blocked_thread *read,
                        const uint64_t *pcs, size_t depth);
/* The thread ended (its last period off CPU, if any, ended before). */
void offcpu_on_thread_exit(pid_t tid);
/* The end: threads still off their CPU are counted up to TSTAMP. */
void offcpu_finish(int64_t tstamp);

/* What was recorded: seconds off CPU by reason (enum er_offcpu_reason),
 * and the periods seen. */
struct offcpu_figures {
  double seconds[ER_OFFCPU_REASONS];
  uint64_t periods;
  double seconds_without_stack, seconds_stack_read; /* read: from outside, where the kernel gave none */
  uint64_t reads, reads_failed; /* threads read while off their CPU; those whose stack was not had */
  int read_errno;                /* why the last of those failed */
};
void offcpu_describe(struct offcpu_figures *out);

#endif
