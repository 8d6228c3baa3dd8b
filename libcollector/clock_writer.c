/* Clock packets: each capture unwound, its stack recorded once in
 * data.frameinfo (flushed before any packet that uses it), the packet
 * appended to profile.  Shared by the runtime's sampler thread and the
 * sampler process; one caller at a time.  Counts only what reached the
 * disk. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "collector_internal.h"
#include "er/er_format.h"
#include "er/er_stacks.h"

uint64_t col_samples_written, col_samples_not_written;
uint64_t col_lost_samples;      /* the kernel's or a ring's, never written */
double col_sampler_cpu_seconds; /* what the sampling cost, reported at the end */
double col_sampler_system_share; /* of that, the part the kernel charged as system time */
double col_sampler_record_seconds;

double col_thread_cpu_seconds(void)
{
  struct timespec cpu;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  return cpu.tv_sec + cpu.tv_nsec / 1e9;
}

/* The sampler's own CPU time, exact, and the kernel's share of it from
 * getrusage (tick-sampled): in a VM much of it is interrupt work charged to
 * whoever runs, which says how much of the cost is the sampler's code. */
void col_sampler_measure_cost(int rusage_who, clockid_t cpu_clock)
{
  struct timespec cpu;
  struct rusage usage;
  clock_gettime(cpu_clock, &cpu);
  col_sampler_cpu_seconds = cpu.tv_sec + cpu.tv_nsec / 1e9;
  col_sampler_system_share = 0;
  if (getrusage(rusage_who, &usage) == 0) {
    double user = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
    double system = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    if (user + system > 0)
      col_sampler_system_share = system / (user + system);
  }
}
static uint64_t lost_counted;
static struct er_cursor *profile_out, *frames_out;
static struct er_idset seen_stacks;
static int rescan_wanted;
static uint64_t frames_lost_seen;

/* Writes data.frameinfo; when any stack since the last check did not reach
 * the disk, the profile packets not yet written may point at it: they are
 * given up too (the trace writer gives up its own).  Nonzero when data
 * packets may be written. */
int col_writer_stacks_on_disk(void)
{
  int rc = er_cursor_flush(frames_out);
  if (rc == 0 && frames_out->lost == frames_lost_seen)
    return 1;
  frames_lost_seen = frames_out->lost;
  int err = er_budget_stop_errno(frames_out->file->budget);
  er_cursor_abandon(profile_out, rc != 0 ? -rc : err != 0 ? err : ENOSPC);
  col_trace_writer_abandon(rc != 0 ? -rc : err != 0 ? err : ENOSPC);
  return 0;
}

static void *map_zeroed(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

int col_clock_writer_start(void)
{
  col_samples_written = col_samples_not_written = lost_counted = frames_lost_seen = 0;
  rescan_wanted = 0;
  if (profile_out == NULL)
    profile_out = map_zeroed(sizeof *profile_out);
  if (frames_out == NULL)
    frames_out = map_zeroed(sizeof *frames_out);
  if (profile_out == NULL || frames_out == NULL)
    return -ENOMEM;
  er_cursor_init(profile_out, &col_exp.data[ER_KIND_CLOCK]);
  er_cursor_init(frames_out, &col_exp.frameinfo);
  static int seen_stacks_ready;
  if (seen_stacks_ready)
    er_idset_destroy(&seen_stacks); /* a new experiment: a new data.frameinfo */
  er_idset_init(&seen_stacks);
  seen_stacks_ready = 1;
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
    col_samples_not_written++;
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

void col_clock_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, const uint64_t *pcs,
                             size_t n)
{
  if (!col_writer_wanted_at(tstamp))
    return;
  if (n > 0 && !col_modules_knows_pc(pcs[0]))
    rescan_wanted = 1; /* probably a library loaded since the last scan */
  uint64_t frinfo = er_frameinfo_record(frames_out, &seen_stacks, pcs, n);
  struct er_clock_packet p;
  /* A stack reaches disk before its users: data.frameinfo is flushed before
   * profile, at the end of each cycle and before profile writes out a full
   * block.  A stack that did not fit or could not be written would leave the
   * packet pointing at nothing. */
  if ((frinfo == 0 && col_limit_reached()) ||
      (er_cursor_would_close_block(profile_out, sizeof p) && !col_writer_stacks_on_disk())) {
    count_unwritten();
    return;
  }
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_CLOCK;
  p.lwpid = p.thrid = (uint64_t)tid;
  p.cpuid = cpu;
  p.tstamp = tstamp;
  p.frinfo = frinfo;
  p.mstate = ER_MSTATE_LINUX_CPU;
  p.ntick = (int32_t)ticks;
  if (er_cursor_append(profile_out, &p, sizeof p) != 0)
    count_unwritten();
}

size_t col_clock_writer_write_stack(const struct col_capture *cap, uint64_t *pcs)
{
  if (!col_writer_wanted_at(cap->tstamp))
    return 0;
  size_t n = col_unwind(cap, pcs, ER_MAX_STACK_DEPTH + 1);
  col_clock_writer_packet(cap->tid, cap->cpu, cap->tstamp, cap->weight, pcs, n);
  return n;
}

void col_clock_writer_write(const struct col_capture *cap, void *arg)
{
  uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  col_clock_writer_write_stack(cap, pcs);
}

/* Only what reached the file counts (a flush can still fail). */
static void update_written_counts(void)
{
  col_samples_written = profile_out->written;
  col_samples_not_written += profile_out->lost - lost_counted;
  lost_counted = profile_out->lost;
}

uint64_t col_writer_stack_id(const uint64_t *pcs, size_t n)
{
  return er_frameinfo_record(frames_out, &seen_stacks, pcs, n);
}

void col_clock_writer_flush(void)
{
  if (col_writer_stacks_on_disk()) {
    er_cursor_flush(profile_out);
    col_trace_writer_flush();
  }
  update_written_counts();
}
