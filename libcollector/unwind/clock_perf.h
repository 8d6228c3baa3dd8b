/* The perf clock event: its attributes, its ring, its records. */
#ifndef COL_UNWIND_CLOCK_PERF_H
#define COL_UNWIND_CLOCK_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/capture.h"
#include "core/thread_slot.h"

/* Which clock source the program's threads got, for the status file and
 * log.xml: inprocess/clock_source.c tells each thread's outcome here, with
 * the perf event, because those readers are linked into the sampler
 * process too (where all stay 0). */
struct col_clock_source_figures {
  unsigned perf_threads, timer_threads, failed_threads;
  int perf_exclude_kernel; /* perf could only sample user mode */
  int last_perf_errno, last_timer_errno;
};
void col_clock_source_describe(struct col_clock_source_figures *out);
/* A new experiment: no thread armed yet. */
void col_clock_source_reset(void);
/* A thread's perf event or timer started (ERR 0) or was refused (ERR: the
 * errno); a thread that got no clock at all. */
void col_clock_source_count_perf(int err);
void col_clock_source_count_timer(int err);
void col_clock_source_count_failed(void);
/* clock_perf.c */
int col_perf_open(struct col_thread *t, long interval_us, size_t stack_bytes);
void col_perf_close(struct col_thread *t);
/* Frees the ring and descriptor; sampler only, after the final drain. */
void col_perf_release(struct col_thread *t);
/* Reads everything the kernel wrote; returns the number of captures. */
size_t col_perf_drain(struct col_thread *t, col_capture_fn fn, void *arg);
/* The clock event's attributes (task-clock, registers and stack copy).
 * Every event's records carry its id (PERF_SAMPLE_IDENTIFIER): a sample
 * begins with it, the others end with it, after the sample_id_all
 * trailer's pid/tid, time and CPU.  The ids tell the clock's samples from
 * each counter's where several events share a ring. */
#define COL_PERF_SAMPLE_TID_AT 16  /* header (8), IDENTIFIER (8) */
#define COL_PERF_SAMPLE_TIME_AT 24
#define COL_PERF_TRAILER_BYTES 32  /* pid/tid, time, CPU, id */
#define COL_PERF_TRAILER_TID(size) ((size)-32)
#define COL_PERF_TRAILER_TIME(size) ((size)-24)
#define COL_PERF_TRAILER_CPU(size) ((size)-16)
struct perf_event_attr;
void col_perf_clock_attr(struct perf_event_attr *attr, long interval_us, size_t stack_bytes, int exclude_kernel);
/* Any perf ring: FN gets every record (type, size) in order. */
typedef void (*col_record_fn)(const unsigned char *rec, uint16_t type, uint16_t size, void *arg);
size_t col_perf_ring_drain(void *ring, size_t ring_bytes, col_record_fn fn, void *arg);
/* LEN bytes at data position POS of a ring (wrapping at its end). */
void col_perf_ring_copy(void *ring, size_t ring_bytes, uint64_t pos, void *out, size_t len);
/* The record of LEN bytes at POS: in place, or copied into SCRATCH (64 KiB)
 * when it wraps around the ring's end. */
const unsigned char *col_perf_ring_record(void *ring, size_t ring_bytes, uint64_t pos, size_t len,
                                          unsigned char *scratch);
/* One sample record of the clock event's layout; 0 or -1. */
int col_perf_parse_sample(const unsigned char *rec, size_t len, struct col_capture *out, pid_t *pid);

#endif
