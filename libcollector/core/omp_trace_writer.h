/* The omptrace file of an OpenMP program's experiment (omp_trace_writer.c):
 * its threads' regions and tasks over time, and what each is. */
#ifndef COL_CORE_OMP_TRACE_WRITER_H
#define COL_CORE_OMP_TRACE_WRITER_H

#include <stdint.h>
#include <sys/types.h>

#include "core/omp_sample.h"

/* A new experiment (the file is made at its first OpenMP sample). */
int col_omp_trace_start(void);
/* Thread TID's clock sample S taken at TSTAMP on CPU, written as a clock
 * packet: what changed for the thread, what S tells of regions and tasks. */
void col_omp_trace_sample(pid_t tid, uint32_t cpu, int64_t tstamp, const struct col_omp_sample *s);
void col_omp_trace_flush(void);
void col_omp_trace_abandon(int err);
/* The experiment closes: regions and tasks no master described are. */
void col_omp_trace_finish(void);

#endif
