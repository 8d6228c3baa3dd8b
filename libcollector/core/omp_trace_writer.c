/* The omptrace file (experiment-format.md §5.8): for each thread of an
 * OpenMP program, which parallel region and task it is in from which
 * sample on, and what each region and task is (its parent, the outlined
 * function that names it).  gprofng gives each clock sample the last
 * region and task of its thread at or before it, and shows OpenMP Work,
 * Wait and Overhead once the file is there.
 *
 * Written by the one thread that writes clock packets, from the states of
 * its samples (omp_sample.c): an event when a thread's region or task
 * changes, a description the first time a region's master or a task shows
 * it.  Made at the first OpenMP sample, with its <profile> block in
 * log.xml; a program without OpenMP has neither. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "core/data_limit.h"
#include "core/experiment_log.h"
#include "core/omp_trace_writer.h"
#include "core/stack_store.h"
#include "er/er_omp.h"
#include "er/er_stacks.h"

static struct er_cursor *out;
static int file_state; /* 0: not made yet, 1: made, -1: could not be */
static struct er_idset described[2], seen[2]; /* regions, tasks */

/* Each thread's region and task as its last event said. */
#define THREAD_SLOTS 1024 /* power of two */
static struct thread_now {
  pid_t tid;
  int known;
  uint64_t region, task;
} *threads;

int col_omp_trace_start(void)
{
  file_state = 0;
  for (int i = 0; i < 2; i++) {
    er_idset_destroy(&described[i]);
    er_idset_destroy(&seen[i]);
  }
  if (threads != NULL)
    memset(threads, 0, THREAD_SLOTS * sizeof *threads);
  return 0;
}

static int file_ready(void)
{
  if (file_state != 0)
    return file_state > 0;
  file_state = -1;
  if (out == NULL)
    out = col_map_zeroed(sizeof *out);
  if (threads == NULL)
    threads = col_map_zeroed(THREAD_SLOTS * sizeof *threads);
  if (out == NULL || threads == NULL || col_exp.dirfd < 0 ||
      er_datafile_create(&col_exp.omptrace, col_exp.dirfd, "omptrace") != 0)
    return 0;
  col_limit_charge(&col_exp.omptrace);
  er_cursor_init(out, &col_exp.omptrace);
  char block[4096];
  er_omp_profile_block(block, sizeof block);
  er_recordfile_printf(&col_exp.log, 0, "%s", block);
  file_state = 1;
  return 1;
}

static void append_description(int task, uint64_t id, uint64_t parent)
{
  struct er_omp_desc_packet p = {sizeof p, task ? ER_PKT_OMP_TASK_DESC : ER_PKT_OMP_REGION_DESC, 0, id, parent, id};
  er_cursor_append(out, &p, sizeof p);
}

static void append_event(int task, pid_t tid, uint32_t cpu, int64_t tstamp, uint64_t id)
{
  struct er_omp_event_packet p;
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = task ? ER_PKT_OMP_TASK_EVENT : ER_PKT_OMP_REGION_EVENT;
  p.lwpid = p.thrid = (uint64_t)tid;
  p.cpuid = cpu;
  p.tstamp = tstamp;
  p.id = id;
  er_cursor_append(out, &p, sizeof p);
  if (id != 0)
    er_idset_insert(&seen[task], id);
}

static struct thread_now *thread_of(pid_t tid)
{
  size_t slot = (size_t)tid & (THREAD_SLOTS - 1);
  for (size_t probe = 0; probe < THREAD_SLOTS; probe++, slot = (slot + 1) & (THREAD_SLOTS - 1))
    if (threads[slot].tid == tid || threads[slot].tid == 0) {
      threads[slot].tid = tid;
      return &threads[slot];
    }
  return NULL; /* more threads than slots: each sample says its own */
}

void col_omp_trace_sample(pid_t tid, uint32_t cpu, int64_t tstamp, const struct col_omp_sample *s)
{
  if (!file_ready())
    return;
  for (size_t i = 0; i < s->n_descriptions; i++) {
    const struct col_omp_description *d = &s->descriptions[i];
    if (er_idset_insert(&described[d->task], d->id) == 1)
      append_description(d->task, d->id, d->parent);
  }
  struct thread_now *now = thread_of(tid);
  /* A thread's first sample says where it is even when that is nowhere
   * (region 0): each sample then has an event at or before it. */
  if (now == NULL || !now->known || now->region != s->region)
    append_event(0, tid, cpu, tstamp, s->region);
  if (now == NULL || !now->known || now->task != s->task)
    append_event(1, tid, cpu, tstamp, s->task);
  if (now != NULL)
    *now = (struct thread_now){tid, 1, s->region, s->task};
}

/* A region or task that samples are in but that no sample described (its
 * master never sampled in it): described without a parent. */
static void describe_the_rest(int task)
{
  for (size_t i = 0; i < seen[task].capacity; i++) {
    uint64_t id = seen[task].slots[i];
    if (id != 0 && er_idset_insert(&described[task], id) == 1)
      append_description(task, id, 0);
  }
}

void col_omp_trace_flush(void)
{
  if (file_state > 0)
    er_cursor_flush(out);
}

void col_omp_trace_finish(void)
{
  if (file_state <= 0)
    return;
  describe_the_rest(0);
  describe_the_rest(1);
  er_cursor_flush(out);
}

void col_omp_trace_abandon(int err)
{
  if (file_state > 0)
    er_cursor_abandon(out, err);
}
