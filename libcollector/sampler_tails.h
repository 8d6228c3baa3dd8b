/* Thread tails (sampler_tails.c): the CPU time of each thread that the
 * kernel's sampling periods did not reach, recorded at the thread's exit
 * with the right probability. */
#ifndef GDBCOL_SAMPLER_TAILS_H
#define GDBCOL_SAMPLER_TAILS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct col_capture;

/* PERIOD_NS: the clock's period; PROBE_NS: the tail probe's; STARTED_AT:
 * when the experiment's run began. */
void tails_init(uint64_t period_ns, uint64_t probe_ns, int64_t started_at);
uint64_t tails_probe_period(void);
/* A sample of the clock event, already written with stack PCS[0..N). */
void tails_on_clock_sample(const struct col_capture *cap, const uint64_t *pcs, size_t n);
/* A sample of the probe event (REC: the whole record). */
void tails_on_probe_sample(pid_t tid, const unsigned char *rec, size_t size);
/* A context switch of a thread (OUT: off the CPU, else onto it). */
void tails_on_switch(pid_t tid, int out, int64_t tstamp);
/* A thread ended on CPU at TSTAMP: its tail is recorded (or not) now. */
void tails_on_thread_exit(pid_t tid, uint32_t cpu, int64_t tstamp);
/* The end of the experiment: the tails of the threads still there. */
void tails_finish(int64_t tstamp);

struct tails_stats {
  uint64_t threads_ended, samples_added, unattributed, passed_on, probe_samples;
};
extern struct tails_stats tails_stats;

#endif
