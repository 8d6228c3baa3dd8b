/* What recording cost the thread or process that did it. */
#ifndef COL_CORE_RECORDING_COST_H
#define COL_CORE_RECORDING_COST_H

#include <time.h>

/* CPU time the recording itself used (the sampler process, or the runtime
 * thread inside the program; measured when it finishes), the part the
 * kernel charged as system time, and of it, reading, unwinding and storing
 * the records. */
struct col_recording_cost {
  double cpu_seconds, system_share, records_seconds;
};
void col_recording_cost_describe(struct col_recording_cost *out);
/* A new experiment: nothing spent yet. */
void col_recording_cost_reset(void);
/* SECONDS more went to the records. */
void col_recording_cost_add_records(double seconds);
double col_thread_cpu_seconds(void);
void col_recording_cost_measure(int rusage_who, clockid_t cpu_clock);

#endif
