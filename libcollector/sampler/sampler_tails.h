/* Thread tails (sampler_tails.c): the CPU time of each thread that the
 * kernel's sampling periods did not reach, recorded at the thread's exit
 * with the right probability. */
#ifndef GDBCOL_SAMPLER_TAILS_H
#define GDBCOL_SAMPLER_TAILS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "core/capture.h"

struct col_capture;

/* PERIOD_NS: the clock's period; STARTED_AT: when the experiment's run
 * began. */
void tails_init(uint64_t period_ns, int64_t started_at);
/* A sample of the clock event, already written with stack PCS[0..N). */
void tails_on_clock_sample(const struct col_capture *cap, const uint64_t *pcs, size_t n);
/* The function thread TID started in (from the runtime in the program). */
void tails_on_thread_start(pid_t tid, uint64_t start_pc);
/* Where the kernel drops the samples whose period ended in kernel mode
 * (perf_event_paranoid >= 2): the whole periods thread TID ran up to
 * TSTAMP (its switch records, on CPU) beyond its samples and the one at
 * TSTAMP, which that sample stands for too: the time of the system calls
 * its code made since the last one (the stack where the thread came back
 * to user mode), at the time they ran, not at the thread's end with
 * stacks drawn from all its life (an MPI rank spinning in MPI_Barrier's
 * system calls: 0.08 s of its 0.29 s in MPI recorded there). */
uint32_t tails_kernel_periods(pid_t tid, uint32_t cpu, int64_t tstamp);
/* Would one more clock sample of TID at TSTAMP (on CPU) take it beyond
 * the CPU time its context switches give by more than a period?  The
 * kernel's task-clock restarts its timer at each switch, and beside busy
 * loops it sampled faster than a thread ran (106 samples of 10 ms for a
 * daemon's 1.001 s, gaps of 2.8 ms): such a sample is left out, counted
 * (1, then not counted as a period); 0 where the switches are not known. */
int tails_sample_beyond_cpu(pid_t tid, uint32_t cpu, int64_t tstamp);
/* The kernel lost samples (a ring was full): the periods a thread ran
 * across the loss are not its system calls' (tails_kernel_periods), but
 * samples lost all through its run: its tail draws their stacks from its
 * whole life (put on the next sample, 340 lost samples of a sampler
 * stopped 0.4 s gave its function 58 % of the time instead of 50 %). */
void tails_on_samples_lost(void);
/* The stack of thread TID's newest clock sample into *PCS: its depth (0:
 * none yet). */
size_t tails_newest_stack(pid_t tid, const uint64_t **pcs);
/* A context switch of a thread (OUT: off the CPU, else onto it) on CPU. */
void tails_on_switch(pid_t tid, int out, uint32_t cpu, int64_t tstamp);
/* What a hypervisor took of CPU's time from FROM to TO (UINT32_MAX: a CPU
 * not known), left out of the threads' time on CPU: the switch records'
 * times count it as the threads' as perf's clock does (host_steal.c). */
typedef uint64_t (*tails_steal_estimate)(uint32_t cpu, int64_t from, int64_t to);
void tails_set_steal_estimate(tails_steal_estimate estimate);
/* The kernel lost records (a ring was full): from then on a thread with no
 * switch in counts only what its records show. */
void tails_on_records_lost(void);
/* The counters' intervals (their streams), once: their accounts last as
 * long as their events. */
void tails_set_counters(unsigned n, const uint64_t *intervals);
/* A sample of counter COUNTER, already written with stack PCS[0..N);
 * OWNS_EVENTS: a thread the events were opened on (not inherited). */
void tails_on_counter_sample(const struct col_capture *cap, unsigned counter, const uint64_t *pcs, size_t n,
                             int owns_events);
/* The program's own clock samples (perf events refused): a sample's stack
 * PCS[0..N) of thread TID, kept for its tail (the sample itself counts no
 * period here: the thread measures what its samples stand for); its end
 * at TSTAMP, with the CPU time no sample stands for (UNSAMPLED_NS, less
 * than 0 where the samples stood for more). */
void tails_on_program_sample(pid_t tid, const uint64_t *pcs, size_t n);
void tails_on_measured_exit(pid_t tid, uint32_t cpu, int64_t tstamp, int64_t unsampled_ns);
/* A thread ended on CPU at TSTAMP: its tails are recorded (or not) now.
 * COUNTER_TOTALS: each counter's count read now (parent events, ended
 * threads included), or NULL when not read this time. */
void tails_on_thread_exit(pid_t tid, uint32_t cpu, int64_t tstamp, const uint64_t *counter_totals);
/* Counts read at a descendant's thread's end: theirs, not this
 * experiment's tails. */
void tails_absorb_counters(const uint64_t *counter_totals);
/* PC: the program's <Thread-never-sampled> pseudo-function, set beneath
 * the start function of a thread no sample reached (0: the start
 * function alone). */
void tails_set_never_sampled_frame(uint64_t pc);
/* The end: the counters' last growth, for thread TID. */
void tails_finish_counters(pid_t tid, const uint64_t *counter_totals, int64_t tstamp);
/* The end of the experiment: the tails of the threads still there. */
void tails_finish(int64_t tstamp);

/* What the tails did, for log.xml: threads ended, tail samples added (of
 * them: at the thread's start function, with no stack at all, passed on to
 * the next thread ending with one); counter reads and counter tails. */
struct tails_stats {
  uint64_t threads_ended, samples_added, at_start_function, unattributed, passed_on;
  uint64_t counter_reads, counter_samples_added;
  uint64_t kernel_periods; /* periods put on a sample for its thread's system calls (tails_kernel_periods) */
  uint64_t beyond_cpu;     /* samples left out: beyond their thread's CPU time (tails_sample_beyond_cpu) */
};
void tails_describe(struct tails_stats *out);
/* All 0 again (each case of the unit tests starts over). */
void tails_reset_stats(void);

#endif
