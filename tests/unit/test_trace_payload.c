/* Traced events through the threads' lanes and the trace ring, as the
 * runtime records them and the sampler process takes them, with no GDB and
 * no sampler: four threads record events of every traced kind with
 * payloads of every size (a sync packet's 16 bytes up to an I/O packet
 * with a long path) and stacks of 1 to 40 frames into their lanes, which
 * flush into ring slots while this thread takes them; what the threads
 * still hold in their lanes at the end is taken too.  Every event must
 * come back exactly once, in each thread's order, with its kind, times,
 * payload and stack as recorded: the lanes, the ring and the unpacking
 * know no kind's fields, and must not mix or cut any. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er/er_data_kinds.h"
#include "trace_lanes.h"
#include "trace_record.h"
#include "trace_ring.h"

#define THREADS 4
#define EVENTS 20000

static int failures;

static void check(int ok, const char *what)
{
  if (!ok && failures++ < 20)
    printf("FAILED: %s\n", what);
}

/* Event I of thread T, fully determined by (T, I). */
static uint16_t kind_of(int i)
{
  static const uint16_t kinds[] = {ER_KIND_SYNC, ER_KIND_IO, ER_KIND_HEAP};
  return kinds[i % 3];
}

static size_t payload_len_of(int i)
{
  return kind_of(i) == ER_KIND_SYNC ? 16 : kind_of(i) == ER_KIND_HEAP ? 32 : 33 + (size_t)(i * 7) % 280;
}

static unsigned char byte_of(int t, int i, size_t at)
{
  return (unsigned char)(t * 31 + i * 7 + at * 13);
}

static size_t frames_of(int i)
{
  return 1 + (size_t)i % 40;
}

static uint64_t pc_of(int t, int i, size_t f)
{
  return 0x400000 + (uint64_t)t * 0x100000 + (uint64_t)i * 64 + f;
}

static pid_t tids[THREADS];

static void *record(void *p)
{
  int t = (int)(intptr_t)p;
  tids[t] = gettid();
  struct col_lane_origin o = {getpid(), tids[t], 0, 1};
  unsigned char payload[COL_TRACE_PAYLOAD_MAX];
  uint64_t pcs[40];
  for (int i = 0; i < EVENTS; i++) {
    size_t len = payload_len_of(i), n = frames_of(i);
    for (size_t at = 0; at < len; at++)
      payload[at] = byte_of(t, i, at);
    for (size_t f = 0; f < n; f++)
      pcs[f] = pc_of(t, i, f);
    struct col_trace_fields f = {kind_of(i), (uint16_t)len, (int64_t)i * 10, (int64_t)i * 10 + 5, payload};
    while (!col_lane_record(&f, pcs, n, &o)) /* the ring full a moment (the taker is behind) */
      sched_yield();
  }
  return NULL;
}

static int next_of[THREADS];
static long taken;

static int thread_index(pid_t tid)
{
  for (int t = 0; t < THREADS; t++)
    if (tids[t] == tid)
      return t;
  return -1;
}

static void on_unpacked(const struct col_trace_event *e, void *unused)
{
  (void)unused;
  int t = thread_index(e->tid);
  if (t < 0) {
    check(0, "an event of no recording thread");
    return;
  }
  int i = next_of[t]++;
  taken++;
  char what[160];
  snprintf(what, sizeof what, "thread %d event %d: kind, times, pid", t, i);
  check(e->kind == kind_of(i) && e->start == (int64_t)i * 10 && e->end == (int64_t)i * 10 + 5 &&
            e->pid == getpid() && e->space == 1, what);
  snprintf(what, sizeof what, "thread %d event %d: its payload (%zu bytes)", t, i, payload_len_of(i));
  int same = e->payload_len == payload_len_of(i);
  for (size_t at = 0; same && at < e->payload_len; at++)
    same = e->payload[at] == byte_of(t, i, at);
  check(same, what);
  snprintf(what, sizeof what, "thread %d event %d: its stack (%zu frames)", t, i, frames_of(i));
  same = e->n_pcs == frames_of(i) && e->stack_len == frames_of(i) * sizeof(uint64_t);
  const uint64_t *pcs = (const void *)e->stack;
  for (size_t f = 0; same && f < e->n_pcs; f++)
    same = pcs[f] == pc_of(t, i, f);
  check(same, what);
}

static struct col_trace_event scratch;

static void on_slot(const struct col_trace_event *e, void *unused)
{
  (void)unused;
  check(e->kind == COL_TRACE_BATCH, "every slot is a lane's batch (no event went through the ring alone)");
  if (e->kind == COL_TRACE_BATCH)
    col_trace_unpack(e->stack, e->stack_len, e->pid, e->space, &scratch, on_unpacked, NULL);
}

int main(void)
{
  char dir[] = "/tmp/gdbcol-payload-XXXXXX", status[64];
  if (mkdtemp(dir) == NULL)
    return 2;
  snprintf(status, sizeof status, "%s/status", dir);
  uint32_t kinds = 1u << ER_KIND_SYNC | 1u << ER_KIND_IO | 1u << ER_KIND_HEAP;
  int rc = col_trace_create(status, kinds, -1);
  if (rc != 0) {
    printf("cannot make the trace ring in %s: %s\n", dir, strerror(-rc));
    return 1;
  }
  col_trace->sampler_pid = 0; /* no sampler to wake */
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    pthread_create(&threads[t], NULL, record, (void *)(intptr_t)t);
  int joined[THREADS] = {0}, running = THREADS;
  while (running > 0) {
    col_trace_take(INT64_MAX, getpid(), on_slot, NULL);
    for (int t = 0; t < THREADS; t++)
      if (!joined[t] && pthread_tryjoin_np(threads[t], NULL) == 0) {
        joined[t] = 1;
        running--;
      }
  }
  col_trace_take(INT64_MAX, getpid(), on_slot, NULL);
  /* What the ended threads left in their lanes (the sampler takes it at the
   * end the same way, after revoking each lane). */
  for (size_t l = 0; l < COL_TRACE_LANES; l++)
    if (col_trace->lanes[l].owner != 0)
      col_trace_unpack(col_trace->lanes[l].data, col_trace->lanes[l].used, getpid(), 1, &scratch, on_unpacked, NULL);
  char what[100];
  snprintf(what, sizeof what, "every event came back once (%ld of %d)", taken, THREADS * EVENTS);
  check(taken == (long)THREADS * EVENTS, what);
  for (int t = 0; t < THREADS; t++)
    check(next_of[t] == EVENTS, "each thread's events all came back");
  check(col_trace->dropped == 0, "nothing dropped");
  col_trace_path(what, sizeof what, status);
  unlink(what);
  rmdir(dir);
  if (failures == 0)
    printf("all checks passed (%ld events, %d threads)\n", taken, THREADS);
  return failures == 0 ? 0 : 1;
}
