/* Off-CPU time: where each thread's wall-clock time went while it was off
 * its CPU.
 *
 * The kernel's context-switch records (the switch ring's, the same that
 * give thread tails their CPU time) say when each thread left its CPU and
 * came back, and whether it left still runnable (preempted: waiting for a
 * CPU) or blocked.  Where the kernel gives samples in kernel context
 * (perf_event_paranoid <= 1, or CAP_PERFMON), a software event that samples
 * every switch out brings the thread's user registers and stack at that
 * moment, unwound like a clock sample: the stack where it waited.  Its
 * names give the reason (er_offcpu.h: a lock, I/O, sleep); where it waited
 * with no stack seen, the reason is "blocked".
 *
 * Periods become clock packets the way tails do (sampler_tails.c): all
 * threads' off-CPU time is one stream, and a packet is written each time
 * the stream crosses the next multiple of the clock period, from a random
 * start, with the stack and reason of the period that crossed it, and as
 * many ticks as multiples it crossed.  So every nanosecond off CPU is
 * recorded with probability 1/period: a 1-second sleep is one packet of
 * 100 ticks at 10 ms, and 100 000 switches a second of 10 us each cost
 * 100 packets a second, each period's expected share exact. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock_writer.h"
#include "core/hrtime.h"
#include "er/er_format.h"
#include "er/er_offcpu.h"
#include "unwind/unwind.h"
#include "blocked_stack.h"
#include "sampler_offcpu.h"
#include "sampling_stream.h"

#define BUCKETS 4096
#define STACK_KEPT 256           /* frames of a blocked thread's stack kept */
#define STACK_FRESH_NS 1000000   /* a stack sampled this close to the switch out is its */
#define REASON_FRAMES 8          /* frames from the leaf whose names decide the reason */
#define READ_AFTER_NS 2000000    /* a thread off its CPU this long is read from outside */

struct off_thread {
  struct off_thread *next;
  pid_t tid;
  int born;          /* made during the run */
  int exited;        /* ended: its last switch out is no wait */
  int switched;      /* a switch record was seen */
  int preempted;
  uint32_t cpu;
  int64_t off_since; /* -1: on its CPU */
  int64_t stack_at;  /* when its stack below was sampled; 0: none */
  uint64_t *pcs;
  size_t depth;
  /* Read from outside (blocked_stack.h) while off its CPU: for the
   * period that began at READ_FOR, the read ending at READ_UNTIL (the
   * period must end after it, or the thread may have run meanwhile). */
  int64_t read_for, read_until;
  struct blocked_thread read; /* what the read found */
  int read_stack;             /* PCS hold the stack read */
};

static struct off_thread *buckets[BUCKETS];
static struct sampling_stream stream; /* its period: the clock's; 0 off */
static int64_t run_start;
static pid_t process_read;      /* whose threads are read from outside; 0: none */
static struct offcpu_figures figures;

static struct off_thread **slot_of(pid_t tid)
{
  struct off_thread **p = &buckets[(unsigned)tid % BUCKETS];
  while (*p != NULL && (*p)->tid != tid)
    p = &(*p)->next;
  return p;
}

static struct off_thread *thread_of(pid_t tid)
{
  struct off_thread **p = slot_of(tid);
  if (*p == NULL) {
    *p = calloc(1, sizeof **p);
    if (*p != NULL) {
      (*p)->tid = tid;
      (*p)->off_since = -1;
      (*p)->read_for = -1;
    }
  }
  return *p;
}

static void forget(pid_t tid)
{
  struct off_thread **p = slot_of(tid), *t = *p;
  if (t == NULL)
    return;
  *p = t->next;
  free(t->pcs);
  free(t);
}

void offcpu_on_thread_exit(pid_t tid)
{
  /* Kept, marked: the kernel's last switch out of an ended thread comes
   * after its exit record. */
  struct off_thread *t = thread_of(tid);
  if (t != NULL) {
    t->exited = 1;
    t->off_since = -1;
    t->stack_at = 0;
    free(t->pcs); /* what is kept of an ended thread: a few words until its id is used again */
    t->pcs = NULL;
    t->depth = 0;
  }
}

/* A code address's reason, kept per address (names are looked up once). */
#define REASON_SLOTS 4096
static struct {
  uint64_t pc_plus_1;
  unsigned char reason;
} reason_cache[REASON_SLOTS];

void offcpu_init(uint64_t period_ns, int64_t started_at)
{
  process_read = 0;
  for (int b = 0; b < BUCKETS; b++)
    while (buckets[b] != NULL)
      forget(buckets[b]->tid);
  memset(&figures, 0, sizeof figures);
  memset(reason_cache, 0, sizeof reason_cache); /* another image may hold other code at those addresses */
  run_start = started_at;
  uint64_t random_state = sampling_random_seed(0xD1B54A32D192ED03ULL);
  sampling_stream_start(&stream, period_ns, &random_state);
}

void offcpu_on_thread_born(pid_t tid)
{
  struct off_thread *t = thread_of(tid);
  if (t != NULL) {
    t->born = 1;
    t->exited = t->switched = 0; /* a thread id used again */
    t->off_since = -1;
    t->stack_at = 0;
  }
}

size_t offcpu_keep_stack(uint64_t **kept, const uint64_t *pcs, size_t n)
{
  if (n == 0 || (*kept == NULL && (*kept = malloc(STACK_KEPT * sizeof **kept)) == NULL))
    return 0;
  size_t depth = n < STACK_KEPT ? n : STACK_KEPT;
  memcpy(*kept, pcs, depth * sizeof *pcs);
  return depth;
}

void offcpu_on_stack(pid_t tid, int64_t tstamp, const uint64_t *pcs, size_t n)
{
  struct off_thread *t = thread_of(tid);
  if (t == NULL || n == 0 || t->exited)
    return;
  size_t depth = offcpu_keep_stack(&t->pcs, pcs, n);
  if (depth == 0)
    return;
  t->depth = depth;
  t->stack_at = tstamp;
  t->read_stack = 0;
}

static int kernel_stack_of_period(const struct off_thread *t)
{
  return t->stack_at != 0 && t->off_since >= 0 && t->stack_at >= t->off_since - STACK_FRESH_NS &&
         t->stack_at <= t->off_since + STACK_FRESH_NS;
}

void offcpu_read_from_outside(pid_t pid)
{
  process_read = pid;
}

/* Thread T, off its CPU since before UPTO - READ_AFTER_NS: its state (a
 * stop) and, where the kernel gave none, its stack. */
static void read_waiting(struct off_thread *t)
{
  static uint64_t pcs[ER_MAX_STACK_DEPTH + 1];
  int with_stack = !kernel_stack_of_period(t);
  t->read_for = t->off_since;
  t->read_stack = 0; /* (a stack read in an earlier period is not this one's) */
  errno = 0;
  blocked_stack_read(process_read, t->tid, with_stack, pcs, ER_MAX_STACK_DEPTH + 1, &t->read);
  size_t depth = t->read.depth;
  t->read_until = col_hrtime();
  figures.reads++;
  if (t->read.state != BLOCKED_WAITS && t->read.state != BLOCKED_STOPPED)
    return;
  if (depth == 0) {
    if (with_stack) {
      figures.reads_failed++;
      figures.read_errno = errno;
    }
    return;
  }
  size_t kept = offcpu_keep_stack(&t->pcs, pcs, depth);
  if (kept == 0)
    return;
  t->depth = kept;
  t->stack_at = 0;
  t->read_stack = 1;
}

int64_t offcpu_read_waits(int64_t upto)
{
  int64_t next_due = -1;
  if (process_read == 0 || stream.period == 0)
    return -1;
  for (int b = 0; b < BUCKETS; b++)
    for (struct off_thread *t = buckets[b]; t != NULL; t = t->next) {
      if (t->off_since < 0 || t->exited || t->preempted || t->read_for == t->off_since)
        continue;
      int64_t due = t->off_since + READ_AFTER_NS;
      if (due <= upto)
        read_waiting(t);
      else if (next_due < 0 || due - upto < next_due)
        next_due = due - upto;
    }
  return next_due;
}

static enum er_offcpu_reason reason_of_pc(uint64_t pc)
{
  size_t slot = (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 52) & (REASON_SLOTS - 1);
  if (reason_cache[slot].pc_plus_1 != pc + 1) {
    reason_cache[slot].pc_plus_1 = pc + 1;
    reason_cache[slot].reason = (unsigned char)er_offcpu_reason_of_function(col_function_name(pc));
  }
  return (enum er_offcpu_reason)reason_cache[slot].reason;
}

/* Why a thread was off its CPU: PREEMPTED; (READ: read while it waited)
 * stopped, or in a page fault; the first call its stack PCS[0..DEPTH)
 * names; (READ) the system call it waited in. */
static enum er_offcpu_reason reason_of(int preempted, const struct blocked_thread *read, const uint64_t *pcs,
                                       size_t depth)
{
  if (preempted)
    return ER_OFFCPU_RUNNABLE;
  if (read != NULL && read->state == BLOCKED_STOPPED)
    return ER_OFFCPU_STOPPED;
  if (read != NULL && read->fault != FAULT_NONE)
    return read->fault == FAULT_ON_CODE ? ER_OFFCPU_TEXT_FAULT : ER_OFFCPU_DATA_FAULT;
  for (size_t i = 0; i < depth && i < REASON_FRAMES; i++) {
    enum er_offcpu_reason r = reason_of_pc(pcs[i]);
    if (r != ER_OFFCPU_NONE)
      return r;
  }
  enum er_offcpu_reason by_call = read != NULL && read->syscall_nr >= 0 ? er_offcpu_reason_of_syscall(read->syscall_nr)
                                                                       : ER_OFFCPU_NONE;
  return by_call != ER_OFFCPU_NONE ? by_call : ER_OFFCPU_BLOCKED;
}

/* NS off its CPU of thread TID ending at END, for REASON, with the stack
 * PCS[0..DEPTH) (DEPTH 0: none; STACK_READ: read from outside): a packet at
 * each crossing of the stream. */
static void record_period(pid_t tid, uint32_t cpu, int64_t ns, int64_t end, enum er_offcpu_reason reason,
                          const uint64_t *pcs, size_t depth, int stack_read)
{
  figures.periods++;
  figures.seconds[reason] += (double)ns / 1e9;
  if (depth == 0)
    figures.seconds_without_stack += (double)ns / 1e9;
  else if (stack_read)
    figures.seconds_stack_read += (double)ns / 1e9;
  uint32_t ticks = sampling_stream_add(&stream, (double)ns);
  if (ticks == 0)
    return;
  uint64_t unknown = ER_PC_UNWIND_FAILED;
  col_clock_writer_offcpu_packet(tid, cpu, end, ticks, reason, depth > 0 ? pcs : &unknown, depth > 0 ? depth : 1);
}

/* NS more off-CPU time of T, ending at END: its packet at each crossing. */
static void add_period(struct off_thread *t, int64_t ns, int64_t end)
{
  if (ns <= 0 || stream.period == 0)
    return;
  /* A read made while it waited holds only if the period ended after it. */
  int read = t->read_for == t->off_since && t->off_since >= 0 && end > t->read_until;
  int from_kernel = kernel_stack_of_period(t);
  int has_stack = from_kernel || (read && t->read_stack);
  enum er_offcpu_reason reason = reason_of(t->preempted, read ? &t->read : NULL, t->pcs, has_stack ? t->depth : 0);
  record_period(t->tid, t->cpu, ns, end, reason, t->pcs, has_stack ? t->depth : 0, !from_kernel);
}

void offcpu_on_measured(pid_t tid, int64_t ns, int64_t end, int preempted, const struct blocked_thread *read,
                        const uint64_t *pcs, size_t depth)
{
  if (ns <= 0 || stream.period == 0)
    return;
  int stack_read = read != NULL && depth > 0;
  record_period(tid, 0, ns, end, reason_of(preempted, read, pcs, depth), pcs, depth, stack_read);
}

void offcpu_on_switch(pid_t tid, int out, int preempted, uint32_t cpu, int64_t tstamp)
{
  struct off_thread *t = thread_of(tid);
  if (t == NULL || t->exited)
    return;
  if (out) {
    t->off_since = tstamp;
    t->preempted = preempted;
    t->cpu = cpu;
  } else {
    if (t->off_since < 0 && !t->switched && !t->born) {
      /* There before the run and first seen coming back: off its CPU
       * since the run began (a thread blocked when GDB attached). */
      t->off_since = run_start;
      t->preempted = 0;
      t->cpu = cpu;
    }
    if (t->off_since >= 0)
      add_period(t, tstamp - t->off_since, tstamp);
    t->off_since = -1;
  }
  t->switched = 1;
}

void offcpu_finish(int64_t tstamp)
{
  for (int b = 0; b < BUCKETS; b++)
    for (struct off_thread *t = buckets[b]; t != NULL; t = t->next)
      if (t->off_since >= 0 && tstamp > t->off_since) {
        add_period(t, tstamp - t->off_since, tstamp);
        t->off_since = -1;
      }
}

void offcpu_describe(struct offcpu_figures *out)
{
  *out = figures;
}
