/* The sampler process's thread tails (libcollector/sampler_tails.c): from
 * context-switch times, exits and samples, the samples recorded for CPU
 * time no full period reached.  The writer is replaced by a counter of the
 * packets it is given (what the tails decide is under test, not how the
 * writer writes; test_writer_roundtrip covers that).  Expected counts are
 * exact up to one sample: the tails are sampled systematically. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/capture.h"
#include "core/clock_writer.h"
#include "core/trace_writer.h"
#include "er/er_hwc_events.h"
#include "sampler_tails.h"
#include "test_util.h"

#define MS 1000000LL
#define PERIOD (10 * MS)

static uint64_t packets, packets_at_start_fn, deepest, packets_at_early_fn;
static uint64_t start_fn = 0x401000, early_fn = 0x402000, never_sampled_fn = 0x7f0000001000;
static uint64_t packets_never_sampled; /* under the pseudo-function, the start function its caller */

uint64_t col_clock_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, const uint64_t *pcs,
                                 size_t n)
{
  packets += ticks;
  if (n == 1 && pcs[0] == start_fn)
    packets_at_start_fn++;
  if (n == 2 && pcs[0] == never_sampled_fn && pcs[1] > start_fn && pcs[1] < start_fn + 16)
    packets_never_sampled++;
  if (n > 0 && pcs[0] == early_fn)
    packets_at_early_fn += ticks;
  deepest = n > deepest ? n : deepest;
  return 1;
}

static uint64_t counter_packets[2], counter_events[2];

void col_counter_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t tag, uint64_t events,
                               const uint64_t *pcs, size_t n)
{
  counter_packets[tag]++;
  counter_events[tag] += events;
  if (n == 1 && pcs[0] == start_fn)
    packets_at_start_fn++;
}

static int near(uint64_t got, uint64_t want)
{
  int ok = got + 1 >= want && got <= want + 1;
  if (!ok)
    fprintf(stderr, "  got %llu, want %llu (+-1)\n", (unsigned long long)got, (unsigned long long)want);
  return ok;
}

static void reset(void)
{
  packets = packets_at_start_fn = deepest = packets_at_early_fn = packets_never_sampled = 0;
  memset(counter_packets, 0, sizeof counter_packets);
  memset(counter_events, 0, sizeof counter_events);
  tails_reset_stats();
}

static struct tails_stats stats(void)
{
  struct tails_stats s;
  tails_describe(&s);
  return s;
}

static void sample(pid_t tid, size_t depth)
{
  uint64_t pcs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.tid = tid;
  tails_on_clock_sample(&cap, pcs, depth);
}

/* COUNT threads of 1 ms from FIRST, each started in start_fn, never sampled. */
static void run_short_threads(pid_t first, int count)
{
  int64_t t = 0;
  for (pid_t tid = first; tid < first + count; tid++) {
    tails_on_thread_start(tid, start_fn);
    tails_on_switch(tid, 0, 0, t);
    t += MS;
    tails_on_thread_exit(tid, 0, t, NULL);
  }
}

/* 10000 threads of 1 ms, never sampled: 1000 samples, at their start
 * function (what the runtime posted). */
static void short_threads(void)
{
  reset();
  tails_init(PERIOD, 0);
  run_short_threads(1000, 10000);
  CHECK(near(packets, 1000));
  CHECK(packets_at_start_fn == packets);
  CHECK(stats().threads_ended == 10000);
}

/* The same where the program said where its <Thread-never-sampled> is:
 * each tail sample under it, the start function as its caller (inclusive
 * time, none of its own). */
static void short_threads_under_pseudo_function(void)
{
  reset();
  tails_init(PERIOD, 0);
  tails_set_never_sampled_frame(never_sampled_fn);
  run_short_threads(1000, 2000);
  tails_set_never_sampled_frame(0);
  CHECK(near(packets, 200));
  CHECK(packets_never_sampled == packets && packets_at_start_fn == 0);
}

/* Threads of 35 ms with 3 samples (5 ms not reached each), switched out and
 * in again on the way: 1000 of them give 500 samples, with their stacks. */
static void partly_sampled_threads(void)
{
  reset();
  tails_init(PERIOD, 0);
  int64_t t = 0;
  for (pid_t tid = 20000; tid < 21000; tid++) {
    tails_on_switch(tid, 0, 0, t);
    t += 20 * MS;
    tails_on_switch(tid, 1, 0, t);
    t += 7 * MS; /* off the CPU: not counted */
    tails_on_switch(tid, 0, 0, t);
    for (int i = 0; i < 3; i++)
      sample(tid, 5);
    t += 15 * MS;
    tails_on_thread_exit(tid, 1, t, NULL);
  }
  CHECK(near(packets, 500));
  CHECK(deepest == 5 && packets_at_start_fn == 0);
}

/* Progress moved between threads: one thread got two samples for 10 ms of
 * CPU (tail -10 ms), the next none for 15 ms (tail 15 ms): 5 ms a pair. */
static void moved_progress(void)
{
  reset();
  tails_init(PERIOD, 0);
  int64_t t = 0;
  for (pid_t tid = 30000; tid < 32000; tid += 2) {
    tails_on_switch(tid, 0, 0, t);
    sample(tid, 3);
    sample(tid, 3);
    t += 10 * MS;
    tails_on_thread_exit(tid, 0, t, NULL);
    tails_on_thread_start(tid + 1, start_fn);
    tails_on_switch(tid + 1, 0, 0, t);
    t += 15 * MS;
    tails_on_thread_exit(tid + 1, 0, t, NULL);
  }
  CHECK(near(packets, 500));
}

/* Threads running when the experiment began and still running at its end,
 * never switched: on the CPU from the start to the end (35 ms, 3 samples). */
static void never_switched_at_the_end(void)
{
  reset();
  tails_init(PERIOD, 100 * MS);
  for (pid_t tid = 40000; tid < 41000; tid++)
    for (int i = 0; i < 3; i++)
      sample(tid, 4);
  tails_finish(135 * MS);
  CHECK(near(packets, 500));
  /* After the end (an exec that failed), threads count from it. */
  reset();
  sample(50000, 2);
  tails_finish(145 * MS); /* 10 ms, one sample: no tail */
  CHECK(near(packets, 0) && stats().threads_ended == 1);
}

/* A thread with no stack and no start function passes its tail sample to
 * the next thread ending with a stack. */
static void passed_on(void)
{
  reset();
  tails_init(PERIOD, 0);
  int64_t t = 0;
  for (pid_t tid = 60000; tid < 60100; tid++) { /* 100 x 10 ms: 100 samples */
    tails_on_switch(tid, 0, 0, t);
    t += PERIOD;
    tails_on_thread_exit(tid, 0, t, NULL);
  }
  CHECK(packets == 0 && near(stats().unattributed, 100));
  tails_on_thread_start(70000, start_fn);
  tails_on_switch(70000, 0, 0, t);
  tails_on_thread_exit(70000, 0, t, NULL);
  CHECK(near(packets, 100) && stats().passed_on == stats().unattributed);
}

/* Samples missed all through a thread's life (lost by the kernel while the
 * sampler was late) are spread over its stacks: 1000 threads of 605 ms
 * whose first 20 samples were in one function and the last 20 in another,
 * with 20 samples lost: about half the 20 000 tail samples in the first
 * function (the recent stacks alone would have put none there), and the
 * one for the part of a period after the last sample on a recent stack. */
static void missed_samples_spread(void)
{
  reset();
  tails_init(PERIOD, 0);
  int64_t t = 0;
  for (pid_t tid = 100000; tid < 101000; tid++) {
    tails_on_switch(tid, 0, 0, t);
    struct col_capture cap;
    memset(&cap, 0, sizeof cap);
    cap.tid = tid;
    for (int i = 0; i < 40; i++)
      tails_on_clock_sample(&cap, i < 20 ? &early_fn : &start_fn, 1);
    t += 605 * MS; /* 40 samples, 20 periods missed, and half of one after the last sample */
    tails_on_thread_exit(tid, 0, t, NULL);
  }
  CHECK(near(packets, 20500));
  double early = (double)packets_at_early_fn / 20000.0;
  if (early < 0.45 || early > 0.55)
    fprintf(stderr, "  %.3f of the missed samples in the early function, want 0.5 +- 0.05\n", early);
  CHECK(early >= 0.45 && early <= 0.55);
}

static void counter_sample(pid_t tid, unsigned counter, int owns_events)
{
  uint64_t pcs[3] = {7, 8, 9};
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.tid = tid;
  tails_on_counter_sample(&cap, counter, pcs, 3, owns_events);
}

/* Counters, from the parent events' counts read at each exit: 1000
 * threads of 50 events (interval 100), never sampled: 500 tail samples of
 * 100 events, at their start function.  1000 threads of 250 events with 2
 * samples each, beside a first thread (owning the events) that makes 100
 * events and 1 sample between each pair of them: 500 more (their 50 each),
 * with their stacks.  A descendant's counts are absorbed; the first
 * thread's last 700 events unsampled come at the end. */
static void counter_tails(void)
{
  reset();
  const uint64_t intervals[2] = {100, 100};
  tails_set_counters(2, intervals);
  tails_init(0, 0); /* counters without the clock */
  uint64_t totals[ER_HWC_MAX_COUNTERS] = {0};
  for (pid_t tid = 80000; tid < 81000; tid++) {
    tails_on_thread_start(tid, start_fn);
    totals[0] += 50;
    tails_on_thread_exit(tid, 0, 0, totals);
  }
  CHECK(near(counter_packets[0], 500) && counter_events[0] == counter_packets[0] * 100);
  CHECK(packets_at_start_fn == counter_packets[0] && counter_packets[1] == 0 && packets == 0);
  for (pid_t tid = 90000; tid < 91000; tid++) {
    counter_sample(tid, 1, 0);
    counter_sample(tid, 1, 0);
    counter_sample(1, 1, 1);
    totals[1] += 250 + 100;
    tails_on_thread_exit(tid, 0, 0, tid % 2 ? totals : NULL); /* not read every time: the next read has it */
  }
  CHECK(near(counter_packets[1], 500) && deepest == 0);
  totals[1] += 100000; /* a descendant's */
  tails_absorb_counters(totals);
  uint64_t before = counter_packets[1];
  totals[1] += 1000;
  for (int i = 0; i < 10; i++)
    counter_sample(1, 1, 1);
  tails_finish_counters(1, totals, 0); /* 1000 events, 10 samples: no tail */
  CHECK(near(counter_packets[1] - before, 0));
  totals[1] += 700;
  tails_finish_counters(1, totals, 0);
  CHECK(near(counter_packets[1] - before, 7));
  tails_finish(0);
  CHECK(stats().threads_ended == 2001);
}

/* Samples of user mode only (perf_event_paranoid >= 2): a thread that ran
 * 35 ms with one sample taken at its end had two periods' samples dropped
 * in the kernel: that sample stands for them too.  After a loss of samples
 * (a full ring), none: the gap is the tail's. */
static void kernel_periods(void)
{
  reset();
  tails_init(PERIOD, 0);
  pid_t tid = 31000;
  tails_on_switch(tid, 0, 0, 0);
  CHECK(tails_kernel_periods(tid, 0, 35 * MS) == 2);
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  uint64_t pcs[2] = {1, 2};
  cap.tid = tid;
  cap.tstamp = 35 * MS;
  cap.weight = 3;
  tails_on_clock_sample(&cap, pcs, 2);
  CHECK(tails_kernel_periods(tid, 0, 45 * MS) == 0); /* one period since: the sample's own */
  CHECK(tails_kernel_periods(tid, 0, 62 * MS) == 2);
  tails_on_samples_lost();
  CHECK(tails_kernel_periods(tid, 0, 90 * MS) == 0);
  cap.tstamp = 90 * MS;
  cap.weight = 1;
  tails_on_clock_sample(&cap, pcs, 2);
  CHECK(tails_kernel_periods(tid, 0, 105 * MS) == 0); /* the 5 periods across the loss stay the tail's */
  tails_on_thread_exit(tid, 0, 90 * MS, NULL);
  CHECK(near(packets, 5)); /* the tail: 90 ms less the 40 the samples stood for */
}

/* The kernel's task-clock beside busy loops sampled a thread faster than
 * it ran (gaps of 2.8 ms at 10 ms): a sample beyond the thread's CPU time
 * by its switches, plus a period, is left out; one within it is not; a
 * thread off its CPU by the records, or once records were lost, is not
 * judged. */
static void samples_beyond_cpu(void)
{
  reset();
  tails_init(PERIOD, 0);
  pid_t tid = 32000;
  uint64_t pcs[2] = {1, 2};
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.tid = tid;
  cap.weight = 1;
  tails_on_switch(tid, 0, 0, 0);
  int64_t at[] = {10 * MS, 20 * MS, 21 * MS}; /* three periods after 21 ms: within one more */
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
    CHECK(!tails_sample_beyond_cpu(tid, 0, at[i]));
    cap.tstamp = at[i];
    tails_on_clock_sample(&cap, pcs, 2);
  }
  CHECK(tails_sample_beyond_cpu(tid, 0, 22 * MS)); /* a fourth after 22 ms: beyond */
  CHECK(stats().beyond_cpu == 1);
  CHECK(!tails_sample_beyond_cpu(tid, 0, 31 * MS));
  tails_on_switch(tid, 1, 0, 31 * MS); /* off its CPU: not judged */
  CHECK(!tails_sample_beyond_cpu(tid, 0, 32 * MS));
  CHECK(stats().beyond_cpu == 1);
  tails_on_thread_exit(tid, 0, 31 * MS, NULL);
}

int main(void)
{
  short_threads();
  short_threads_under_pseudo_function();
  partly_sampled_threads();
  moved_progress();
  never_switched_at_the_end();
  passed_on();
  counter_tails();
  missed_samples_spread();
  kernel_periods();
  samples_beyond_cpu();
  return TEST_EXIT();
}
