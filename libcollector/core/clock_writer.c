/* Clock packets: each capture unwound, its stack recorded once in the
 * stack store (data.frameinfo, flushed before any packet that uses it),
 * the packet appended to profile.  Shared by the runtime's sampler thread
 * and the sampler process; one caller at a time.  Counts only what reached
 * the disk.  One of the data writers (data_writers.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "core/capture.h"
#include "core/clock_writer.h"
#include "core/omp_sample.h"
#include "core/omp_states.h"
#include "core/omp_trace_writer.h"
#include "core/data_limit.h"
#include "core/experiment_control.h"
#include "core/experiment_log.h"
#include "core/module_map.h"
#include "core/stack_store.h"
#include "unwind/unwind.h"
#include "core/config.h"
#include "er/er_format.h"
#include "er/er_offcpu.h"
#include "er/er_omp.h"

/* What it wrote and did not (col_clock_writer_describe): written by the
 * one thread that writes, read by any (the status, GDB's calls). */
static struct col_clock_figures figures;
static uint64_t lost_counted;
static struct er_cursor *profile_out;
static int rescan_wanted;

int col_clock_writer_start(void)
{
  memset(&figures, 0, sizeof figures);
  lost_counted = 0;
  rescan_wanted = 0;
  col_omp_sample_start();
  if (profile_out == NULL)
    profile_out = col_map_zeroed(sizeof *profile_out);
  if (profile_out == NULL)
    return -ENOMEM;
  er_cursor_init(profile_out, &col_exp.data[ER_KIND_CLOCK]);
  return 0;
}

int col_clock_writer_wants_rescan(void)
{
  int wanted = rescan_wanted;
  rescan_wanted = 0;
  return wanted;
}

/* A capture the data files could not take: counted against a write error
 * (the limit is reported on its own). */
static void count_unwritten(void)
{
  if (col_data_stop_errno() != 0)
    __atomic_store_n(&figures.samples_not_written, figures.samples_not_written + 1, __ATOMIC_RELAXED);
}

/* Nonzero when a sample taken at TSTAMP is to be written (counted when
 * the data limit or the disk keeps it out). */
int col_writer_wanted_at(int64_t tstamp)
{
  if (col_paused_at(tstamp))
    return 0; /* taken while collection was paused */
  if (col_limit_reached()) {
    count_unwritten(); /* past the data limit, or the disk refused */
    return 0;
  }
  return 1;
}

/* The packet of a stack recorded already (FRINFO), its time wanted:
 * FRINFO, or 0 when nothing was written. */
static uint64_t append_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, uint64_t frinfo,
                              int32_t mstate, enum er_offcpu_reason reason, int unplaced)
{
  struct er_clock_packet p;
  /* A stack reaches disk before its users: data.frameinfo is flushed before
   * profile, at the end of each cycle and before profile writes out a full
   * block.  A stack that did not fit or could not be written would leave the
   * packet pointing at nothing. */
  if (!col_writer_may_append(profile_out, frinfo, sizeof p)) {
    count_unwritten();
    return 0;
  }
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_CLOCK;
  p.lwpid = p.thrid = (uint64_t)tid;
  p.cpuid = cpu;
  p.tstamp = tstamp;
  p.frinfo = frinfo;
  p.mstate = mstate;
  p.ntick = (int32_t)ticks;
  p.reason = (uint32_t)reason;
  if (er_cursor_append(profile_out, &p, sizeof p) != 0) {
    count_unwritten();
    return 0;
  }
  if (reason != ER_OFFCPU_NONE)
    er_cursor_mark_last(profile_out);
  if (reason == ER_OFFCPU_NONE) { /* CPU time (a packet the readers count with the samples) */
    __atomic_store_n(&figures.ticks_appended, figures.ticks_appended + ticks, __ATOMIC_RELAXED);
    if (unplaced) {
      __atomic_store_n(&figures.ticks_unplaced, figures.ticks_unplaced + ticks, __ATOMIC_RELAXED);
      __atomic_store_n(&figures.unplaced_packets, figures.unplaced_packets + 1, __ATOMIC_RELAXED);
    } else {
      __atomic_store_n(&figures.ticks_squared, figures.ticks_squared + (uint64_t)ticks * ticks, __ATOMIC_RELAXED);
    }
  } else {
    __atomic_store_n(&figures.offcpu_packets, figures.offcpu_packets + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&figures.offcpu_ticks, figures.offcpu_ticks + ticks, __ATOMIC_RELAXED);
  }
  return frinfo;
}

/* A CPU sample's micro-state: Linux's one CPU state, or with off-CPU
 * states recorded (numstates 10: gprofng counts state 10 in no total
 * then), user or system CPU, as the sample was taken. */
static int32_t cpu_mstate(int in_kernel)
{
  if (!col_cfg.offcpu)
    return ER_MSTATE_LINUX_CPU;
  return in_kernel ? ER_MSTATE_SYSTEM : ER_MSTATE_USER;
}

uint64_t col_clock_writer_packet_id(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, uint64_t frinfo)
{
  return col_writer_wanted_at(tstamp)
             ? append_packet(tid, cpu, tstamp, ticks, frinfo, cpu_mstate(0), ER_OFFCPU_NONE, 0)
             : 0;
}

/* A packet with its stack: MSTATE and REASON its state on or off a CPU.
 * An OpenMP thread's packet gets its OpenMP state, region and task, its
 * stack without the runtime's markers and its user-mode stack; on a CPU
 * its MSTATE is user CPU (gprofng counts OpenMP Work only then; the Linux
 * CPU state puts all of it in OpenMP Wait), off it the reason's (gprofng
 * puts it in OpenMP Wait: a passive wait's time).  OMP_REGIONS: whether a
 * region ran then, where the sample says (core/capture.h). */
static uint64_t append_with_stack(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, const uint64_t *pcs,
                                  size_t n, int32_t mstate, enum er_offcpu_reason reason, int omp_regions)
{
  if (n > 0 && !col_modules_knows_pc(pcs[0]))
    rescan_wanted = 1; /* probably a library loaded since the last scan */
  static struct col_omp_sample omp; /* one caller at a time; too big for a stack */
  if (!col_omp_sample_of(tid, pcs, n, omp_regions, &omp))
    return append_packet(tid, cpu, tstamp, ticks, col_writer_stack_id(pcs, n), mstate, reason, 0);
  uint64_t frinfo = append_packet(
      tid, cpu, tstamp, ticks,
      col_writer_stack_id_state(omp.machine, omp.machine_n, omp.state, omp.user, omp.user_n),
      reason == ER_OFFCPU_NONE ? ER_MSTATE_USER : mstate, reason, 0);
  if (frinfo != 0)
    col_omp_trace_sample(tid, cpu, tstamp, &omp);
  return frinfo;
}

uint64_t col_clock_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, const uint64_t *pcs,
                                 size_t n)
{
  return col_writer_wanted_at(tstamp) ? append_with_stack(tid, cpu, tstamp, ticks, pcs, n, cpu_mstate(0),
                                                          ER_OFFCPU_NONE, COL_OMP_REGIONS_UNKNOWN)
                                      : 0;
}

uint64_t col_clock_writer_offcpu_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, int reason,
                                        const uint64_t *pcs, size_t n)
{
  if (!col_writer_wanted_at(tstamp))
    return 0;
  return append_with_stack(tid, cpu, tstamp, ticks, pcs, n, er_offcpu_mstate((enum er_offcpu_reason)reason),
                           (enum er_offcpu_reason)reason, COL_OMP_REGIONS_UNKNOWN);
}

void col_clock_writer_unplaced(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, uint64_t pc)
{
  if (ticks == 0 || pc == 0 || !col_writer_wanted_at(tstamp))
    return;
  /* Its own stack, the pseudo-function alone: no function's time; in an
   * OpenMP process no state of the thread's (the sample's need not have
   * been), counted in none of OpenMP Work, Wait and Overhead. */
  if (col_omp_process_is_openmp())
    append_packet(tid, cpu, tstamp, ticks, col_writer_stack_id_state(&pc, 1, ER_OMP_NOT_SAMPLED, &pc, 1),
                  ER_MSTATE_USER, ER_OFFCPU_NONE, 1);
  else
    append_packet(tid, cpu, tstamp, ticks, col_writer_stack_id(&pc, 1), cpu_mstate(0), ER_OFFCPU_NONE, 1);
}

size_t col_clock_writer_write_stack(const struct col_capture *cap, uint64_t *pcs)
{
  if (!col_writer_wanted_at(cap->tstamp))
    return 0;
  col_clock_writer_unplaced(cap->tid, cap->cpu, cap->tstamp, cap->unplaced, cap->unplaced_pc);
  size_t n = col_unwind(cap, pcs, ER_MAX_STACK_DEPTH + 1);
  append_with_stack(cap->tid, cap->cpu, cap->tstamp, cap->weight, pcs, n, cpu_mstate(cap->in_kernel), ER_OFFCPU_NONE,
                    cap->omp_regions);
  return n;
}

uint64_t col_clock_writer_write_id(const struct col_capture *cap)
{
  if (!col_writer_wanted_at(cap->tstamp))
    return 0;
  col_clock_writer_unplaced(cap->tid, cap->cpu, cap->tstamp, cap->unplaced, cap->unplaced_pc);
  uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  size_t n = col_unwind(cap, pcs, ER_MAX_STACK_DEPTH + 1);
  return append_with_stack(cap->tid, cap->cpu, cap->tstamp, cap->weight, pcs, n, cpu_mstate(cap->in_kernel),
                           ER_OFFCPU_NONE, cap->omp_regions);
}

void col_clock_writer_write(const struct col_capture *cap, void *arg)
{
  (void)arg;
  col_clock_writer_write_id(cap);
}

void col_clock_writer_flush(void)
{
  er_cursor_flush(profile_out);
}

/* Only what reached the file counts (a flush can still fail). */
void col_clock_writer_count(void)
{
  /* The CPU samples among the packets on disk (the off-CPU ones are marked). */
  __atomic_store_n(&figures.samples_written, profile_out->written - profile_out->marked_written, __ATOMIC_RELAXED);
  __atomic_store_n(&figures.samples_not_written, figures.samples_not_written + profile_out->lost - lost_counted,
                   __ATOMIC_RELAXED);
  lost_counted = profile_out->lost;
}

void col_clock_writer_abandon(int err)
{
  er_cursor_abandon(profile_out, err);
}

void col_clock_writer_count_lost(uint64_t captures)
{
  __atomic_store_n(&figures.lost_samples, figures.lost_samples + captures, __ATOMIC_RELAXED);
}

void col_clock_writer_describe(struct col_clock_figures *out)
{
  out->samples_written = __atomic_load_n(&figures.samples_written, __ATOMIC_RELAXED);
  out->samples_not_written = __atomic_load_n(&figures.samples_not_written, __ATOMIC_RELAXED);
  out->ticks_appended = __atomic_load_n(&figures.ticks_appended, __ATOMIC_RELAXED);
  out->ticks_squared = __atomic_load_n(&figures.ticks_squared, __ATOMIC_RELAXED);
  out->ticks_unplaced = __atomic_load_n(&figures.ticks_unplaced, __ATOMIC_RELAXED);
  out->unplaced_packets = __atomic_load_n(&figures.unplaced_packets, __ATOMIC_RELAXED);
  out->lost_samples = __atomic_load_n(&figures.lost_samples, __ATOMIC_RELAXED);
  out->offcpu_packets = __atomic_load_n(&figures.offcpu_packets, __ATOMIC_RELAXED);
  out->offcpu_ticks = __atomic_load_n(&figures.offcpu_ticks, __ATOMIC_RELAXED);
}
