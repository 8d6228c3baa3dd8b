/* What recording cost the thread or process that did it. */
#ifndef COL_CORE_SAMPLER_COST_H
#define COL_CORE_SAMPLER_COST_H

#include <time.h>

/* CPU time the sampler thread itself used (set when it finishes). */
extern double col_sampler_cpu_seconds, col_sampler_system_share;
extern double col_sampler_record_seconds; /* of it: reading, unwinding and storing the records */
double col_thread_cpu_seconds(void);
void col_sampler_measure_cost(int rusage_who, clockid_t cpu_clock);

#endif
