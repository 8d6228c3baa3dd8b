/* The sampler process's rings, read in time order, all CPUs merged. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hrtime.h"
#include "unwind/clock_perf.h"
#include "sampler_events.h"
#include "sampler_state.h"

/* The rings are read in time order, all CPUs merged: a mapping recorded on
 * one CPU must be known before a sample taken after it on another, and a
 * sample taken before an exec must not meet the new image's mappings. */
struct pending_record {
  int64_t time;
  uint64_t pos;
  uint16_t size;
  int ring;
};

#define MAX_PENDING 65536
static struct pending_record pending[MAX_PENDING];
static uint32_t order[MAX_PENDING]; /* pending's indices in time order */

static int by_time(const void *a, const void *b)
{
  const struct pending_record *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->ring != y->ring ? x->ring - y->ring : (x->pos < y->pos ? -1 : x->pos > y->pos);
}

/* Every record carries the time: a sample after its id and pid/tid, the
 * others (sample_id_all) in the trailer. */
static int64_t record_time(struct sampler_ring *r, uint64_t pos, const struct perf_event_header *h)
{
  int64_t t = 0;
  uint64_t at = h->type == PERF_RECORD_SAMPLE ? pos + COL_PERF_SAMPLE_TIME_AT : pos + COL_PERF_TRAILER_TIME(h->size);
  if (h->size >= sizeof *h + COL_PERF_TRAILER_BYTES)
    col_perf_ring_copy(r->ring, r->bytes, at, &t, sizeof t);
  return t;
}

/* Rings are read one after the other: a record published on one ring
 * after we read its head can be older than records read from the next (a
 * child's first samples on another CPU than its parent's fork record).
 * So only records older than the start of the reading, less this margin
 * (between a record's time and its publication), are taken; the rest wait
 * for the next round. */
#define PUBLICATION_MARGIN_NS 2000000LL

int64_t sampler_ring_cutoff(void)
{
  return col_hrtime() - PUBLICATION_MARGIN_NS;
}

/* Up to this many rings (8 CPUs), each ring's run of records is merged
 * by a scan of the runs' heads; beyond, sorted. */
#define MERGED_RINGS 16

/* ORDER: the N pending records by time, ties by ring, then position.  Each
 * ring's records RUN_START[i] to RUN_START[i + 1] come in time order
 * nearly always (RUNS_SORTED): merged, no record moves.  The sort moved
 * 32-byte records: 9 % of the sampler's CPU at 1 ms (perf, 2 CPUs). */
static void order_by_time(const size_t *run_start, int runs, size_t n, int runs_sorted)
{
  if (!runs_sorted || runs > MERGED_RINGS) {
    qsort(pending, n, sizeof pending[0], by_time);
    for (size_t k = 0; k < n; k++)
      order[k] = (uint32_t)k;
    return;
  }
  size_t at[MERGED_RINGS];
  for (int i = 0; i < runs; i++)
    at[i] = run_start[i];
  for (size_t k = 0; k < n; k++) {
    int best = -1;
    for (int i = 0; i < runs; i++)
      if (at[i] < run_start[i + 1] && (best < 0 || pending[at[i]].time < pending[at[best]].time))
        best = i;
    order[k] = (uint32_t)at[best]++;
  }
}

void sampler_drain_ring_records(int64_t newest)
{
  static unsigned char record[65536];
  size_t n = 0, run_start[SAMPLER_MAX_RINGS + 1];
  int runs_sorted = 1;
  uint64_t heads[SAMPLER_MAX_RINGS];
  for (int i = 0; i < sampler_n_rings; i++) {
    struct sampler_ring *ring = &sampler_rings[i];
    struct perf_event_mmap_page *meta = ring->ring;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), pos = meta->data_tail;
    run_start[i] = n;
    while (pos < head && n < MAX_PENDING) {
      struct perf_event_header h;
      col_perf_ring_copy(ring->ring, ring->bytes, pos, &h, sizeof h);
      if (h.size < sizeof h)
        break;
      int64_t t = record_time(ring, pos, &h);
      if (t > newest)
        break; /* next round */
      if (n > run_start[i] && t < pending[n - 1].time)
        runs_sorted = 0; /* (a record written inside another's, by an interrupt) */
      pending[n++] = (struct pending_record){t, pos, h.size, i};
      pos += h.size;
    }
    heads[i] = pos;
  }
  run_start[sampler_n_rings] = n;
  order_by_time(run_start, sampler_n_rings, n, runs_sorted);
  for (size_t k = 0; k < n; k++) {
    const struct pending_record *p = &pending[order[k]];
    struct sampler_ring *r = &sampler_rings[p->ring];
    const unsigned char *rec = col_perf_ring_record(r->ring, r->bytes, p->pos, p->size, record);
    const struct perf_event_header *h = (const void *)rec;
    sampler_release_requests(p->time - 1); /* the descendants' requests, in time order */
    sampler_take_trace(p->time - 1);       /* traced events, before a process's exit ends its writer */
    sampler_on_record(rec, h->type, h->size,
                      r->holds_switches ? RING_SWITCHES : r->holds_switch_stacks ? RING_SWITCH_STACKS : RING_SAMPLES);
  }
  sampler_release_requests(newest);
  for (int i = 0; i < sampler_n_rings; i++)
    __atomic_store_n(&((struct perf_event_mmap_page *)sampler_rings[i].ring)->data_tail, heads[i], __ATOMIC_RELEASE);
}

