/* Clock captures into data.frameinfo and profile packets. */
#ifndef COL_CORE_CLOCK_WRITER_H
#define COL_CORE_CLOCK_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/capture.h"

/* Nonzero when data stamped TSTAMP is to be written (not paused, within
 * the limit; counted when kept out). */
int col_writer_wanted_at(int64_t tstamp);
int col_clock_writer_start(void);
/* A col_capture_fn: unwinds CAP and appends its packet (and new stack). */
void col_clock_writer_write(const struct col_capture *cap, void *arg);
/* The same, giving the stack it wrote in PCS (room for
 * ER_MAX_STACK_DEPTH + 2 frames); its depth, 0 when nothing was written. */
size_t col_clock_writer_write_stack(const struct col_capture *cap, uint64_t *pcs);
/* The same, giving the id of the stack it wrote (data.frameinfo's), 0
 * when nothing was written. */
uint64_t col_clock_writer_write_id(const struct col_capture *cap);
/* A packet of TICKS clock ticks for a stack already unwound (PCS), or
 * recorded already (FRINFO): the stack's id, 0 when nothing was written. */
uint64_t col_clock_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, const uint64_t *pcs,
                                 size_t n);
/* TICKS of a thread's CPU time no sample found (core/capture.h's
 * unplaced), under the pseudo-function at PC; nothing for 0 of them. */
void col_clock_writer_unplaced(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, uint64_t pc);
uint64_t col_clock_writer_packet_id(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, uint64_t frinfo);
/* A packet of TICKS clock periods thread TID spent off its CPU for REASON
 * (enum er_offcpu_reason), where it waited in PCS: its micro-state says
 * the reason to gprofng; not CPU time. */
uint64_t col_clock_writer_offcpu_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, int reason,
                                        const uint64_t *pcs, size_t n);
/* Writes what was appended; the counts below; gives up what was not
 * written (its stacks were lost). */
void col_clock_writer_flush(void);
void col_clock_writer_count(void);
void col_clock_writer_abandon(int err);
/* Nonzero (once) when a sample's PC was outside every known mapping. */
int col_clock_writer_wants_rescan(void);
/* What the clock writer did, for the status and log.xml: packets on
 * disk, captures lost to a write error, the intervals of CPU time the
 * packets appended stand for (their NTICK), and captures the kernel or a
 * sample ring lost before they reached it. */
struct col_clock_figures {
  uint64_t samples_written, samples_not_written; /* CPU samples */
  uint64_t ticks_appended;
  uint64_t ticks_squared; /* the sum of each sample's NTICK squared (how unequal their weights are) */
  uint64_t ticks_unplaced; /* of ticks_appended, under <Not-sampled-under-load> (core/capture.h) */
  uint64_t unplaced_packets; /* their packets (among samples_written, as the readers count them) */
  uint64_t lost_samples;
  uint64_t offcpu_packets, offcpu_ticks; /* off-CPU time appended (collector profile offcpu) */
};
void col_clock_writer_describe(struct col_clock_figures *out);
/* CAPTURES lost before they reached the writer (in-process sample rings). */
void col_clock_writer_count_lost(uint64_t captures);

#endif
