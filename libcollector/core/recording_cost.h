/* What recording cost the thread or process that did it. */
#ifndef COL_CORE_RECORDING_COST_H
#define COL_CORE_RECORDING_COST_H

#include <time.h>

/* CPU time the recording itself used (the sampler process, or the runtime
 * thread inside the program; set when it finishes). */
extern double col_recording_cpu_seconds, col_recording_system_share;
extern double col_recording_records_seconds; /* of it: reading, unwinding and storing the records */
double col_thread_cpu_seconds(void);
void col_recording_cost_measure(int rusage_who, clockid_t cpu_clock);

#endif
