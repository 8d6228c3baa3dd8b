/* The sampler process's side of tracing: it makes the trace ring before the
 * program runs (with the synchronization threshold, calibrated here when
 * asked), takes the events the runtime recorded, and writes the program's
 * or passes a descendant's to its writer, in time order with the rings'
 * records (a stack's libraries are known by then). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/config.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/status_file.h"
#include "core/target.h"
#include "core/trace_writer.h"
#include "sampler_state.h"
#include "sampler_writers.h"
#include "trace_ring.h"

#define CALIBRATION_ROUNDS 20000
#define CALIBRATION_FACTOR 6 /* the Collector's documented factor */

static int64_t calibrated_ns;
static char begin_error[PATH_MAX + 200]; /* why tracing could not start */
static char ring_in_program[400];        /* what mapping the ring costs or did to the program */

#define MB(bytes) ((double)(bytes) / (1024.0 * 1024.0))

/* The program's address-space limit (ulimit -v) in bytes, or 0 when it
 * has none (or it cannot be read). */
static unsigned long long address_space_limit(void)
{
  struct rlimit lim;
  if (prlimit(col_target_pid, RLIMIT_AS, NULL, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
    return 0;
  return (unsigned long long)lim.rlim_cur;
}

/* The ring is mapped into the program, so it counts against the program's
 * address-space limit: the program has that much less, and is told so
 * (unless it could not map the ring at all: sampler_trace_unmapped). */
static void note_address_space_limit(void)
{
  unsigned long long limit = address_space_limit();
  if (limit == 0)
    return;
  snprintf(ring_in_program, sizeof ring_in_program, "the trace ring (%.1f MB, mapped into the program) counts "
           "against its address-space limit (ulimit -v: %.0f MB): the program can allocate that much less",
           MB(sizeof *col_trace), MB(limit));
}

void sampler_trace_unmapped(int err)
{
  char kinds[160];
  col_tracing_text(&col_cfg, kinds, sizeof kinds);
  if (islower((unsigned char)kinds[1])) /* mid-sentence in GDB's closing line ("I/O" stays) */
    kinds[0] = (char)tolower((unsigned char)kinds[0]);
  /* Perf events refused, the program's clock samples come through the
   * ring too: never a silent zero. */
  if (sampler.clock_in_program && col_cfg.clock_interval_us > 0) {
    size_t at = strlen(kinds);
    snprintf(kinds + at, sizeof kinds - at, "%sclock profiling", at > 0 ? " and " : "");
  }
  unsigned long long limit = address_space_limit();
  char because[160] = "";
  if (err == ENOMEM && limit > 0)
    snprintf(because, sizeof because, " (its address-space limit, ulimit -v, is %.0f MB: raise it by %.0f MB for "
             "the ring's least part, %.0f MB for the whole)", MB(limit),
             MB(col_trace_bytes(COL_TRACE_SLOTS_LEAST)) + 1,
             MB(sizeof *col_trace) + 1);
  snprintf(ring_in_program, sizeof ring_in_program, "%s recorded nothing: the program could not map the trace "
           "ring (%.1f MB): %s%s", kinds, MB(sizeof *col_trace), strerror(err), because);
}

/* The average cost of a traced call that does not wait (lock, unlock, the
 * clock read twice), times the documented factor: waits shorter than
 * that are the call itself. */
static int64_t calibrate(void)
{
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  int64_t begin = col_hrtime();
  volatile int64_t sink = 0;
  for (int i = 0; i < CALIBRATION_ROUNDS; i++) {
    int64_t t0 = col_hrtime();
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    sink += col_hrtime() - t0;
  }
  int64_t per_call = (col_hrtime() - begin) / CALIBRATION_ROUNDS;
  return (per_call > 0 ? per_call : 1) * CALIBRATION_FACTOR;
}

int sampler_trace_begin(char *err, size_t err_len)
{
  if (!col_tracing_on(&col_cfg) || col_cfg.status_path[0] == '\0')
    return 0;
  int64_t threshold = !col_kind_on(&col_cfg, ER_KIND_SYNC) ? -1
                      : col_cfg.sync_threshold_us >= 0 ? col_cfg.sync_threshold_us * 1000
                                                       : (calibrated_ns = calibrate());
  int rc = col_trace_create(col_cfg.status_path, col_traced_kinds(&col_cfg), threshold);
  if (rc != 0) {
    snprintf(err, err_len, "cannot create the trace ring beside %s: %s", col_cfg.status_path, strerror(-rc));
    char kinds[100];
    col_tracing_text(&col_cfg, kinds, sizeof kinds);
    snprintf(begin_error, sizeof begin_error, "%s is off: %s", kinds, err);
    col_status_add_note("%.500s", begin_error); /* GDB says it too */
    return -1;
  }
  note_address_space_limit();
  return 0;
}

int sampler_trace_for_clock(void)
{
  if (col_trace != NULL)
    return 0;
  int rc = col_cfg.status_path[0] != '\0' ? col_trace_create(col_cfg.status_path, 0, -1) : -ENOENT;
  if (rc == 0)
    note_address_space_limit(); /* (the program maps it for its clock samples) */
  return rc;
}

static void on_event(const struct col_trace_event *e, void *unused);

/* The records of a lane (flushed in a BATCH slot, or taken from the lane
 * at the end), each as the event it stands for. */
static void unpack_records(const unsigned char *data, size_t len, pid_t pid, uint32_t space)
{
  static struct col_trace_event e;
  col_trace_unpack(data, len, pid, space, &e, on_event, NULL);
}

/* The program's own clock sample (perf events refused), or its stack's
 * rest. */
static int program_clock_event(const struct col_trace_event *e)
{
  return e->kind == ER_KIND_CLOCK || e->kind == COL_TRACE_STACK_MORE;
}

static void on_event(const struct col_trace_event *e, void *unused)
{
  int ours = e->pid == col_target_pid && !writers_has_route(e->pid);
  if (program_clock_event(e) && ours) {
    sampler_on_program_sample(e);
    return;
  }
  if (e->kind == COL_TRACE_BATCH && ours) {
    unpack_records(e->stack, e->stack_len, e->pid, e->space);
    return;
  }
  size_t size = offsetof(struct col_trace_event, stack) + e->stack_len;
  if (ours) {
    if (sampler.started && e->end < sampler.closing_at) /* the end asked for may be taken first */
      col_trace_writer_write(e);
    return;
  }
  /* a descendant's (or the program's new image's): its writer's, a lane's
   * batch whole (one write for its events, not one each: at MPI or malloc
   * rates a write per event made the program wait for ring slots) */
  unsigned char rec[sizeof(struct perf_event_header) + 8 + sizeof *e];
  struct perf_event_header h = {SAMPLER_RECORD_TRACE, 0, (uint16_t)(sizeof h + 8 + size)};
  memset(rec, 0, sizeof h + 8);
  memcpy(rec, &h, sizeof h);
  memcpy(rec + sizeof h + 8, e, size);
  writers_forward(e->pid, rec, h.size);
}

static void take_ring(int64_t newest)
{
  if (col_trace != NULL && __atomic_load_n(&col_trace->write_index, __ATOMIC_ACQUIRE) !=
                               __atomic_load_n(&col_trace->read_index, __ATOMIC_ACQUIRE))
    col_trace_take(newest, writers_has_route(col_target_pid) ? 0 : col_target_pid, on_event, NULL);
}

#define LANE_WAIT_ROUNDS 200 /* 1 ms each: a thread in its write window may be waiting for a ring slot */

/* Revokes lane L (owned, not being taken): 0 when another took it first. */
static int revoke_lane(struct col_trace_lane *l)
{
  uint32_t owner = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);
  if (owner == 0 || owner == COL_LANE_REVOKED ||
      !__atomic_compare_exchange_n(&l->owner, &owner, COL_LANE_REVOKED, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    return 0;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return 1;
}

/* A revoked lane's records, as events (routed by the lane's process), and
 * the lane freed; left as it is when its owner never closed its write
 * window (killed inside it). */
static void take_lane(struct col_trace_lane *l)
{
  if (__atomic_load_n(&l->seq, __ATOMIC_ACQUIRE) & 1)
    return;
  unpack_records(l->data, l->used < COL_TRACE_LANE_BYTES ? l->used : COL_TRACE_LANE_BYTES, l->pid, 0);
  l->used = 0;
  __atomic_store_n(&l->owner, 0, __ATOMIC_RELEASE);
}

/* What the program's threads still hold in their lanes (trace_lanes.c):
 * each lane revoked, its owner's write window waited for, its records
 * taken, the lane freed. */
static void take_lanes(void)
{
  struct col_trace_ring *t = col_trace;
  for (size_t i = 0; t != NULL && i < COL_TRACE_LANES; i++) {
    struct col_trace_lane *l = &t->lanes[i];
    if (!revoke_lane(l))
      continue;
    for (int round = 0; (__atomic_load_n(&l->seq, __ATOMIC_ACQUIRE) & 1) && round < LANE_WAIT_ROUNDS; round++) {
      take_ring(SAMPLER_ALL_RECORDS); /* frees the slot it may wait for */
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
    take_lane(l);
  }
}

void sampler_take_all_lanes(void)
{
  take_lanes(); /* (a live owner that finds its lane revoked claims another) */
}

void sampler_take_lanes_of(pid_t pid, int64_t before)
{
  struct col_trace_ring *t = col_trace;
  for (size_t i = 0; t != NULL && i < COL_TRACE_LANES; i++) {
    struct col_trace_lane *l = &t->lanes[i];
    /* (a lane the new image claimed after an exec holds only later records) */
    if (__atomic_load_n(&l->pid, __ATOMIC_RELAXED) != pid || l->used == 0 || l->first_end >= before)
      continue;
    if (revoke_lane(l))
      take_lane(l); /* its threads are gone: no window to wait for */
  }
}

void sampler_take_trace(int64_t newest)
{
  take_ring(newest);
  if (newest == SAMPLER_ALL_RECORDS) { /* the end, or an exec: the lanes too, then what their owners flushed meanwhile */
    take_lanes();
    take_ring(newest);
  }
}

void sampler_trace_rearm(void)
{
  col_trace_rearm();
}

/* In a writer: an event of its process (the founder routed it here). */
static void write_from_pipe(const struct col_trace_event *e, void *unused)
{
  if (program_clock_event(e))
    sampler_on_program_sample(e);
  else if (e->end < sampler.closing_at)
    col_trace_writer_write(e);
}

void sampler_trace_from_pipe(const unsigned char *rec, uint16_t size)
{
  static struct col_trace_event e;
  size_t at = sizeof(struct perf_event_header) + 8;
  if (size < at + offsetof(struct col_trace_event, stack))
    return;
  size_t len = size - at;
  memset(&e, 0, offsetof(struct col_trace_event, stack));
  memcpy(&e, rec + at, len < sizeof e ? len : sizeof e);
  if (e.stack_len > len - offsetof(struct col_trace_event, stack) || e.payload_len > sizeof e.payload)
    return;
  if (e.kind == COL_TRACE_BATCH) {
    static struct col_trace_event one; /* (not E, which holds the batch) */
    col_trace_unpack(e.stack, e.stack_len, e.pid, e.space, &one, write_from_pipe, NULL);
  } else {
    write_from_pipe(&e, NULL);
  }
}

/* The program mapped only the ring's first slots (col_trace_attach): said,
 * in place of what the whole ring costs it. */
static void note_smaller_ring(void)
{
  if (col_trace == NULL || ring_in_program[0] == '\0' || col_trace_mapped_bytes(col_trace) >= sizeof *col_trace)
    return;
  snprintf(ring_in_program, sizeof ring_in_program, "the program could map only %.1f MB of the trace ring's %.1f MB "
           "under its address-space limit (ulimit -v: %.0f MB): recorded all the same, with less room for bursts "
           "(events lost to a full ring are counted in log.xml)", MB(col_trace_mapped_bytes(col_trace)),
           MB(sizeof *col_trace), MB(address_space_limit()));
}

void sampler_trace_describe(void)
{
  note_smaller_ring();
  if (begin_error[0] != '\0')
    col_log_warning(COL_WARN_TEXT, "%s", begin_error);
  if (ring_in_program[0] != '\0') { /* before the status that closes the experiment */
    col_status_add_note("%s", ring_in_program);
    col_log_warning(COL_WARN_TEXT, "%c%s", toupper((unsigned char)ring_in_program[0]), ring_in_program + 1);
  }
  uint64_t dropped = col_trace != NULL ? __atomic_load_n(&col_trace->dropped, __ATOMIC_RELAXED) : 0;
  uint32_t traced = col_traced_kinds(&col_cfg);
  struct col_trace_figures written;
  col_trace_writer_describe(&written);
  for (int k = 0; k < ER_N_KINDS; k++)
    if (traced >> k & 1u && k != ER_KIND_SYNC) /* the waits' line comes last, after its threshold */
      col_log_comment("%s: %llu event(s) written, %llu not written", er_kinds[k].title,
                      (unsigned long long)written.written[k], (unsigned long long)written.not_written[k]);
  if (traced != 0) {
    col_log_comment("Tracing: %llu event(s) lost to a full trace ring", (unsigned long long)dropped);
    col_log_comment("Tracing: %llu event stack(s) walked on the program's own threads with the frame rules "
                    "published to them, %llu unwound here from stack copies (%u rule(s) published)",
                    (unsigned long long)written.stacks_walked_here, (unsigned long long)written.stacks_from_copies,
                    col_trace != NULL ? __atomic_load_n(&col_trace->rules_published, __ATOMIC_RELAXED) : 0);
  }
  if (!(traced >> ER_KIND_SYNC & 1u))
    return;
  if (col_cfg.sync_threshold_us < 0)
    col_log_comment("Synchronization-wait tracing: threshold calibrated to %lld ns (%d x an uncontended lock and "
                    "unlock with two clock reads)", (long long)(col_trace != NULL ? col_trace->sync_threshold_ns
                                                                                  : calibrated_ns),
                    CALIBRATION_FACTOR);
  col_log_comment("%s: %llu event(s) written, %llu not written", er_kinds[ER_KIND_SYNC].title,
                  (unsigned long long)written.written[ER_KIND_SYNC],
                  (unsigned long long)written.not_written[ER_KIND_SYNC]);
}
