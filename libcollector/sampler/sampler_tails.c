/* Thread tails: the CPU time of each thread that the kernel's sampling
 * periods did not reach.
 *
 * A task-clock event samples a thread after each full period of its CPU
 * time, counted per event object (one per thread and CPU) from zero when
 * the thread starts; the kernel also moves period progress between threads
 * when it swaps equivalent contexts.  So a thread shorter than a period is
 * never sampled, and a long thread that shares CPUs with short ones loses
 * the progress the short ones take with them: measured at 10 ms with 1000
 * threads of 1 ms beside two long ones, 0.05 s recorded of 1.07 s for the
 * short ones, 1.14 s of 2.00 s for the long ones.
 *
 * Each thread's CPU time comes from the kernel's context-switch records
 * (on-CPU from each switch in to the next switch out or its exit; the
 * counts of inherit_stat were tried first, but on this kernel they stopped
 * one CPU's sampling for good in about half the runs).  The tail is that
 * time minus the samples' share; tails of all threads form one stream, and
 * a sample is recorded each time the stream crosses the next multiple of
 * the period, from a random start (systematic sampling): every nanosecond
 * of tail is recorded with probability 1/period, so each thread's expected
 * recorded CPU is its true CPU.  A thread that received more samples than
 * its time (progress moved to it) has a negative tail, which delays the
 * next ones.  Where the kernel drops samples taken in kernel mode
 * (perf_event_paranoid >= 2), that time joins the tail too.
 *
 * The recorded sample is at the thread's exit (or the end of the
 * experiment).  Its first tail sample, the part of a period after its last
 * sample, takes one of its recent stacks.  Any more stand for time the
 * samples missed all through its life (samples the kernel lost when the
 * sampler was late to drain a ring, kernel time where the kernel drops
 * kernel samples): they take stacks drawn uniformly from all its samples
 * (a reservoir), so each function keeps its share.  Put on the recent
 * stacks, 30 lost samples of a 0.5 s run gave its last function 26 % of
 * the time instead of 20 %.  A thread never sampled gets
 * the function it started in (the runtime's pthread_create wrapper posts
 * it on the control page) with the runtime's <Thread-never-sampled>
 * pseudo-function beneath it (runtime/never_sampled_frame.c): the start
 * function's inclusive time, none of it its own.  Tried first: a probe event with a
 * short period giving such threads a real stack; in this VM each timer
 * sample costs the program about 50 us, and the probe (4 per clock period)
 * made bench/workload 25 % slower at 1 ms.  A thread with neither (made
 * without pthread_create) passes its tail sample to the next thread that
 * ends with a stack: usually one of the same kind, made and ended beside
 * it; the CPU total stays right.
 *
 * Where perf events are refused the program's threads sample themselves
 * with CPU-time timers, which start at zero for each thread as perf's
 * periods do: a thread's end says the CPU time its samples do not stand
 * for, measured by the thread itself, and that time joins the same
 * stream (the stacks: its samples', or the function it started in).
 *
 * Counters have the same bias: each thread's inherited event counts from
 * zero, so a thread with fewer events than the interval is never sampled
 * (measured: 1000 threads of 50 page faults each, at interval 100, gave
 * no sample for their 50 000 faults).  The kernel adds each inherited
 * event's count to its parent event when the thread ends, so the parent
 * events' counts (read by the sampler) hold every ended thread's events
 * and those of the threads that own them (the program's first thread, or
 * the threads found at an attach).  Their tail is that count less the
 * interval times the samples of those threads; it is read at each
 * thread's exit, and what it grew by since the last read is that thread's
 * tail in the counter's stream, sampled as the clock's.  What the read
 * also holds (threads that ended since, whose exits come next; the owning
 * threads' progress) goes to the same thread: the amounts are exact, the
 * attribution is to the thread ending at that time.  The rest is read at
 * the end, for the first thread.  Tried first: inherit_stat, whose READ
 * records give each ended thread's own count; on this kernel it swapped
 * counts between unlike events (reads of millions of page faults in
 * threads that made 50) and, grouped to avoid that, still lost or added
 * clock samples in 4 runs of 10. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "core/capture.h"
#include "core/clock_writer.h"
#include "core/trace_writer.h"
#include "er/er_format.h"
#include "er/er_hwc_events.h"
#include "sampler_tails.h"
#include "sampling_stream.h"

#define RECENT_STACKS 4
#define SPREAD_STACKS 64 /* a function of share p is off by sqrt(p(1-p)/64) of the missed time */
#define BUCKETS 4096

/* A copy of one sample's stack. */
struct kept_stack {
  uint64_t *pcs; /* as deep as it is (thousands of threads) */
  uint16_t depth, room;
};

struct tail_thread {
  struct tail_thread *next;
  pid_t tid;
  int switched;           /* a context-switch record was seen */
  int64_t on_cpu_since;   /* -1: off the CPU */
  int64_t first_seen;     /* its first timed record; INT64_MAX: none yet */
  int first_by_sample;    /* that record was a clock sample */
  uint64_t samples, cpu_ns;
  uint64_t switches_in; /* context switches onto a CPU seen */
  uint64_t samples_lost_seen; /* samples_lost_count at its last clock sample */
  uint64_t periods_to_tail;   /* periods it ran across losses of samples: left to its tail */
  uint64_t start_pc; /* the function it started in, 0: unknown */
  uint64_t counter_samples[ER_HWC_MAX_COUNTERS];
  struct kept_stack recent[RECENT_STACKS];
  unsigned recent_kept, next_recent;
  struct kept_stack spread[SPREAD_STACKS]; /* uniform over all its samples */
  uint64_t stacks_seen;
};

static struct tails_stats tails_stats;
static struct tail_thread *buckets[BUCKETS];
/* Stream 0: the clock's CPU time (ns); 1 + C: counter C's events. */
#define N_STREAMS (1 + ER_HWC_MAX_COUNTERS)
struct tail_stream {
  struct sampling_stream sampled; /* period 0: not measured (yet) */
  uint64_t stackless_waiting;     /* tail samples of threads that had no stack */
};
static struct tail_stream streams[N_STREAMS];

/* Each counter's accounts over the sampler's life (its events count from
 * their opening, whatever experiments and images come and go). */
static unsigned n_counters;
static uint64_t counter_interval[ER_HWC_MAX_COUNTERS];
static uint64_t samples_in_counts[ER_HWC_MAX_COUNTERS]; /* samples of threads whose events the counts hold */
static double tail_fed[ER_HWC_MAX_COUNTERS];
static uint64_t random_state;
static uint64_t never_sampled_pc; /* the program's <Thread-never-sampled>; 0: not known */
static uint64_t samples_lost_count; /* losses of samples so far (tails_on_samples_lost) */
static int64_t run_start;
static int records_lost; /* the kernel lost records: a thread's first switch in may be among them */
static tails_steal_estimate steal_estimate;

static uint64_t next_random(void)
{
  return sampling_next_random(&random_state);
}

static void forget(pid_t tid);

/* Systematic sampling from a random start: every unit of tail has the
 * same chance, 1/PERIOD, of being recorded. */
static void start_stream(struct tail_stream *s, uint64_t period)
{
  sampling_stream_start(&s->sampled, period, &random_state);
}

void tails_init(uint64_t period, int64_t started_at)
{
  for (int b = 0; b < BUCKETS; b++) /* a writer forked from the sampler starts with none */
    while (buckets[b] != NULL)
      forget(buckets[b]->tid);
  run_start = started_at;
  records_lost = 0;
  memset(streams, 0, sizeof streams);
  random_state = sampling_random_seed(0x9E3779B97F4A7C15ULL);
  start_stream(&streams[0], period);
  for (unsigned c = 0; c < n_counters; c++)
    start_stream(&streams[1 + c], counter_interval[c]);
}

void tails_set_steal_estimate(tails_steal_estimate estimate)
{
  steal_estimate = estimate;
}

void tails_set_counters(unsigned n, const uint64_t *intervals)
{
  n_counters = n < ER_HWC_MAX_COUNTERS ? n : ER_HWC_MAX_COUNTERS;
  for (unsigned c = 0; c < n_counters; c++) {
    counter_interval[c] = intervals[c];
    samples_in_counts[c] = 0;
    tail_fed[c] = 0;
    start_stream(&streams[1 + c], intervals[c]);
  }
}

static struct tail_thread **slot_of(pid_t tid)
{
  struct tail_thread **p = &buckets[(unsigned)tid % BUCKETS];
  while (*p != NULL && (*p)->tid != tid)
    p = &(*p)->next;
  return p;
}

static struct tail_thread *thread_of(pid_t tid)
{
  struct tail_thread **p = slot_of(tid);
  if (*p == NULL) {
    *p = calloc(1, sizeof **p);
    if (*p != NULL) {
      (*p)->tid = tid;
      (*p)->on_cpu_since = -1;
      (*p)->first_seen = INT64_MAX;
    }
  }
  return *p;
}

static void forget(pid_t tid)
{
  struct tail_thread **p = slot_of(tid), *t = *p;
  if (t == NULL)
    return;
  *p = t->next;
  for (int i = 0; i < RECENT_STACKS; i++)
    free(t->recent[i].pcs);
  for (int i = 0; i < SPREAD_STACKS; i++)
    free(t->spread[i].pcs);
  free(t);
}

static void keep_stack(struct tail_thread *t, const uint64_t *pcs, size_t n);

static void seen_at(struct tail_thread *t, int64_t tstamp, int by_sample)
{
  if (t->first_seen == INT64_MAX) {
    t->first_seen = tstamp;
    t->first_by_sample = by_sample;
  }
}

void tails_on_records_lost(void)
{
  /* A thread on a CPU may have switched out and in again among the lost
   * records: its interval in progress is not known, so it is dropped
   * (counting it on recorded 3.4 s for 1.0 s of 1 ms threads under load).
   * Lost records can then only make the tails short, as the warning says. */
  records_lost = 1;
  for (int b = 0; b < BUCKETS; b++)
    for (struct tail_thread *t = buckets[b]; t != NULL; t = t->next)
      if (t->on_cpu_since >= 0) {
        t->on_cpu_since = -1;
        t->switched = 1;
      }
}

void tails_on_clock_sample(const struct col_capture *cap, const uint64_t *pcs, size_t n)
{
  struct tail_thread *t = thread_of(cap->tid);
  if (t == NULL)
    return;
  seen_at(t, cap->tstamp, 1);
  t->samples += cap->weight > 0 ? cap->weight : 1;
  t->samples_lost_seen = samples_lost_count;
  keep_stack(t, pcs, n);
}

void tails_on_samples_lost(void)
{
  samples_lost_count++;
}

void tails_on_program_sample(pid_t tid, const uint64_t *pcs, size_t n)
{
  struct tail_thread *t = thread_of(tid);
  if (t != NULL)
    keep_stack(t, pcs, n);
}

size_t tails_newest_stack(pid_t tid, const uint64_t **pcs)
{
  const struct tail_thread *t = *slot_of(tid);
  if (t == NULL || t->stacks_seen == 0)
    return 0;
  const struct kept_stack *k = &t->recent[(t->next_recent + RECENT_STACKS - 1) % RECENT_STACKS];
  *pcs = k->pcs;
  return k->depth;
}

void tails_on_counter_sample(const struct col_capture *cap, unsigned counter, const uint64_t *pcs, size_t n,
                             int owns_events)
{
  struct tail_thread *t = thread_of(cap->tid);
  if (t == NULL || counter >= n_counters)
    return;
  seen_at(t, cap->tstamp, 0);
  if (owns_events)
    samples_in_counts[counter]++; /* its events' counts are read as they grow */
  else
    t->counter_samples[counter]++; /* its count joins the read at its end */
  keep_stack(t, pcs, n);
}

static void copy_stack(struct kept_stack *k, const uint64_t *pcs, size_t n)
{
  if (k->room < n) {
    uint64_t *bigger = realloc(k->pcs, n * sizeof *bigger);
    if (bigger == NULL)
      return;
    k->pcs = bigger;
    k->room = (uint16_t)n;
  }
  memcpy(k->pcs, pcs, n * sizeof *pcs);
  k->depth = (uint16_t)n;
}

/* A sample's stack, for T's tail samples: among its recent ones, and into
 * its reservoir with probability SPREAD_STACKS / samples so far. */
static void keep_stack(struct tail_thread *t, const uint64_t *pcs, size_t n)
{
  if (n == 0)
    return;
  copy_stack(&t->recent[t->next_recent], pcs, n);
  t->next_recent = (t->next_recent + 1) % RECENT_STACKS;
  if (t->recent_kept < RECENT_STACKS)
    t->recent_kept++;
  t->stacks_seen++;
  uint64_t slot = t->stacks_seen <= SPREAD_STACKS ? t->stacks_seen - 1 : next_random() % t->stacks_seen;
  if (slot < SPREAD_STACKS)
    copy_stack(&t->spread[slot], pcs, n);
}

void tails_set_never_sampled_frame(uint64_t pc)
{
  never_sampled_pc = pc;
}

void tails_on_thread_start(pid_t tid, uint64_t start_pc)
{
  struct tail_thread *t = thread_of(tid);
  if (t != NULL)
    t->start_pc = start_pc;
}

static void write_tail_packet(unsigned stream, pid_t tid, uint32_t cpu, int64_t tstamp, const uint64_t *pcs,
                              size_t n)
{
  if (stream == 0) {
    col_clock_writer_packet(tid, cpu, tstamp, 1, pcs, n);
    tails_stats.samples_added++;
    return;
  }
  col_counter_writer_packet(tid, cpu, tstamp, stream - 1, streams[stream].sampled.period, pcs, n);
  tails_stats.counter_samples_added++;
}

/* One of T's kept stacks for its tail sample: from the reservoir when
 * SPREAD, else (or where none is there yet) a recent one. */
static const struct kept_stack *stack_for_tail(const struct tail_thread *t, int spread)
{
  uint64_t in_spread = t->stacks_seen < SPREAD_STACKS ? t->stacks_seen : SPREAD_STACKS;
  const struct kept_stack *k = spread ? &t->spread[next_random() % in_spread]
                                      : &t->recent[next_random() % t->recent_kept];
  return k->depth > 0 ? k : &t->recent[(t->next_recent + RECENT_STACKS - 1) % RECENT_STACKS];
}

/* One sample of T's tail in STREAM, at its exit; SPREAD: not its first. */
static void record_tail_sample(struct tail_thread *t, unsigned stream, uint32_t cpu, int64_t tstamp, int spread)
{
  if (t->recent_kept > 0) {
    const struct kept_stack *k = stack_for_tail(t, spread);
    write_tail_packet(stream, t->tid, cpu, tstamp, k->pcs, k->depth);
    return;
  }
  if (t->start_pc != 0) {
    /* (the start function as a caller: an address inside it, past its
     * entry, as a return address would be) */
    uint64_t pcs[2] = {never_sampled_pc, t->start_pc + 1};
    if (never_sampled_pc != 0)
      write_tail_packet(stream, t->tid, cpu, tstamp, pcs, 2);
    else
      write_tail_packet(stream, t->tid, cpu, tstamp, &t->start_pc, 1);
    tails_stats.at_start_function++;
    return;
  }
  tails_stats.unattributed++; /* no stack of this thread: the next thread ending with one takes it */
  streams[stream].stackless_waiting++;
}

/* TAIL more of STREAM; a sample for T at each crossing. */
static void add_tail(struct tail_thread *t, unsigned stream, double tail, uint32_t cpu, int64_t tstamp)
{
  struct tail_stream *s = &streams[stream];
  if (s->sampled.period == 0)
    return; /* no clock profiling (counters only): no CPU time to complete; no such counter */
  for (; s->stackless_waiting > 0 && (t->recent_kept > 0 || t->start_pc != 0); s->stackless_waiting--) {
    record_tail_sample(t, stream, cpu, tstamp, 0);
    tails_stats.passed_on++;
  }
  uint32_t crossed = sampling_stream_add(&s->sampled, tail);
  for (uint32_t recorded = 0; recorded < crossed; recorded++)
    record_tail_sample(t, stream, cpu, tstamp, recorded > 0);
}

/* Where a thread with no switch in was on the CPU from: a thread that was
 * on a CPU when the experiment began shows first as a switch out (or its
 * exit), never in, so from the start.  Once the kernel has lost records,
 * a later thread's switch in may be among them, and counting it from the
 * start made up seconds per thread (measured under load: 2.5 s recorded
 * for 1.2 s of 3 ms threads): then only what its records show, from a
 * period before its first sample, or from its first record (less than it
 * ran, as the lost records' warning says). */
static int64_t on_cpu_from(const struct tail_thread *t, int64_t tstamp)
{
  if (!records_lost)
    return run_start;
  if (t->first_seen == INT64_MAX)
    return tstamp;
  int64_t from = t->first_seen - (t->first_by_sample ? (int64_t)streams[0].sampled.period : 0);
  return from > run_start ? from : run_start;
}

/* The time on CPU from FROM to TO, less what the host took (where a
 * steal estimate is set). */
static uint64_t own_time(uint32_t cpu, int64_t from, int64_t to)
{
  if (to <= from)
    return 0;
  uint64_t ns = (uint64_t)(to - from), stolen = steal_estimate != NULL ? steal_estimate(cpu, from, to) : 0;
  return stolen < ns ? ns - stolen : 0;
}

/* T's time on CPU up to TSTAMP not in its cpu_ns yet: the interval in
 * progress, or, never switched, all of it (0: off its CPU). */
static uint64_t uncounted_until(const struct tail_thread *t, uint32_t cpu, int64_t tstamp)
{
  if (t->on_cpu_since >= 0)
    return own_time(cpu, t->on_cpu_since, tstamp);
  return !t->switched ? own_time(UINT32_MAX, on_cpu_from(t, tstamp), tstamp) : 0;
}

/* T's time on CPU (if it is known) ends at TSTAMP. */
static void count_until(struct tail_thread *t, uint32_t cpu, int64_t tstamp)
{
  t->cpu_ns += uncounted_until(t, cpu, tstamp);
  t->on_cpu_since = -1;
  t->switched = 1;
}

uint32_t tails_kernel_periods(pid_t tid, uint32_t cpu, int64_t tstamp)
{
  struct tail_thread *t = *slot_of(tid);
  uint64_t period = streams[0].sampled.period;
  if (t == NULL || records_lost || period == 0)
    return 0; /* (a lost switch record: its time on CPU is not known) */
  if (t->on_cpu_since < 0 && t->switched)
    return 0; /* (off its CPU by the records: not known where it ran) */
  uint64_t due = (t->cpu_ns + uncounted_until(t, cpu, tstamp)) / period; /* periods it ran; this sample is one */
  if (due <= t->samples + 1 + t->periods_to_tail)
    return 0;
  uint64_t missed = due - t->samples - 1 - t->periods_to_tail;
  if (t->samples_lost_seen != samples_lost_count) { /* samples lost since its last: theirs, for good */
    t->periods_to_tail += missed;
    return 0;
  }
  missed = missed < 1000 ? missed : 1000;
  tails_stats.kernel_periods += missed;
  return (uint32_t)missed;
}

/* What a context switch costs the thread beyond its records' brackets:
 * the kernel's switch path before the switch in's record and after the
 * switch out's (and, off-CPU time on, the stack sample at each switch out)
 * is its CPU time, and task-clock's.  Measured: a thread yielding to
 * another on its CPU, 200 000 switches in 0.6 s of its CPU clock, 0.34 to
 * 0.41 s between its records (1.0 to 1.3 us a switch); before this
 * allowance, 18 of its 52 samples were left out (and e2e.mpitrace's
 * spinning Open MPI ranks lost 0.15 s of 0.56 in a loaded CI run). */
#define SWITCH_COST_NS 2000

int tails_sample_beyond_cpu(pid_t tid, uint32_t cpu, int64_t tstamp)
{
  struct tail_thread *t = *slot_of(tid);
  uint64_t period = streams[0].sampled.period;
  if (t == NULL || records_lost || period == 0 || (t->on_cpu_since < 0 && t->switched))
    return 0; /* (as tails_kernel_periods: where it ran is not known) */
  uint64_t ran = t->cpu_ns + uncounted_until(t, cpu, tstamp) + t->switches_in * SWITCH_COST_NS;
  if ((t->samples + 1) * period <= ran + period)
    return 0;
  tails_stats.beyond_cpu++;
  return 1;
}

void tails_on_switch(pid_t tid, int out, uint32_t cpu, int64_t tstamp)
{
  struct tail_thread *t = thread_of(tid);
  if (t == NULL)
    return;
  seen_at(t, tstamp, 0);
  if (out) {
    count_until(t, cpu, tstamp);
  } else {
    t->switched = 1;
    t->on_cpu_since = tstamp;
    t->switches_in++;
  }
}

/* The counters' TOTALS read now: what their tails grew by since the last
 * read, into their streams, for T. */
static void feed_counters(struct tail_thread *t, const uint64_t *totals, uint32_t cpu, int64_t tstamp)
{
  for (unsigned c = 0; c < n_counters; c++) {
    double tail = (double)totals[c] - (double)samples_in_counts[c] * (double)counter_interval[c];
    add_tail(t, 1 + c, tail - tail_fed[c], cpu, tstamp);
    tail_fed[c] = tail;
  }
}

static void end_thread(struct tail_thread *t, uint32_t cpu, int64_t tstamp)
{
  tails_stats.threads_ended++;
  add_tail(t, 0, (double)t->cpu_ns - (double)t->samples * (double)streams[0].sampled.period, cpu, tstamp);
  for (unsigned c = 0; c < n_counters; c++) /* its count is in the parent events' now */
    samples_in_counts[c] += t->counter_samples[c];
}

void tails_on_thread_exit(pid_t tid, uint32_t cpu, int64_t tstamp, const uint64_t *counter_totals)
{
  struct tail_thread *t = thread_of(tid);
  if (t == NULL)
    return;
  seen_at(t, tstamp, 0);
  count_until(t, cpu, tstamp);
  end_thread(t, cpu, tstamp);
  if (counter_totals != NULL) {
    tails_stats.counter_reads++;
    feed_counters(t, counter_totals, cpu, tstamp);
  }
  forget(tid);
}

void tails_on_measured_exit(pid_t tid, uint32_t cpu, int64_t tstamp, int64_t unsampled_ns)
{
  struct tail_thread *t = thread_of(tid);
  if (t == NULL)
    return;
  tails_stats.threads_ended++;
  add_tail(t, 0, (double)unsampled_ns, cpu, tstamp);
  forget(tid);
}

void tails_absorb_counters(const uint64_t *counter_totals)
{
  for (unsigned c = 0; c < n_counters; c++)
    tail_fed[c] = (double)counter_totals[c] - (double)samples_in_counts[c] * (double)counter_interval[c];
}

void tails_finish_counters(pid_t tid, const uint64_t *counter_totals, int64_t tstamp)
{
  struct tail_thread *t = thread_of(tid);
  if (t == NULL)
    return;
  tails_stats.counter_reads++;
  feed_counters(t, counter_totals, 0, tstamp);
}

/* Threads still there at the end: on the CPU until TSTAMP if they were
 * (one never switched was on it throughout when it was sampled).  Threads
 * seen after it (an exec that failed) count from TSTAMP. */
void tails_finish(int64_t tstamp)
{
  for (int b = 0; b < BUCKETS; b++)
    while (buckets[b] != NULL) {
      struct tail_thread *t = buckets[b];
      /* Once records were lost, a thread still "on a CPU" here may have
       * switched out and ended among them (a lost record is reported only
       * when its ring next takes one): counting it to the end recorded
       * 1.9 s for 1.0 s of 1 ms threads under load. */
      if (records_lost && t->on_cpu_since >= 0)
        t->on_cpu_since = -1;
      else if (t->on_cpu_since >= 0 || (!t->switched && t->samples > 0))
        count_until(t, UINT32_MAX, tstamp);
      end_thread(t, 0, tstamp);
      forget(t->tid);
    }
  run_start = tstamp;
}

void tails_describe(struct tails_stats *out)
{
  *out = tails_stats;
}

void tails_reset_stats(void)
{
  memset(&tails_stats, 0, sizeof tails_stats);
}
