/* Fallback clock source for kernels or containers that refuse
 * perf_event_open: a per-thread POSIX timer on the thread's CPU-time clock
 * that sends COL_TIMER_SIGNAL to that thread.  CPU-time timers are checked
 * at the scheduler tick, so short intervals fire less often than asked,
 * and under load a signal comes late: each sample is weighted by the
 * thread's CPU time since the last one, read in the handler (its
 * remainder carried to the next), so the CPU time stays true.  Weighting
 * by 1 + si_overrun lost a tenth of it with the CPUs busy.
 *
 * A real-time signal of our own, not SIGPROF, so the program's own SIGPROF
 * handler and ITIMER_PROF keep working.  The handler only copies registers
 * and stack bytes into the thread's ring (async-signal-safe: memcpy and
 * atomics); unwinding happens in the runtime thread. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/capture.h"
#include "core/clock_writer.h"
#include "core/config.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/thread_slot.h"
#include "inprocess/clock_sources.h"
#include "inprocess/threads.h"
#include "inprocess/timer_lateness.h"
#include "interpose/omp_marks.h"
#include "interpose/signal_guard.h"
#include "er/er_data_kinds.h"
#include "trace_ring.h"
#include "unwind/stack_prints.h"
#include "er/er_fileutil.h"

#define RING_BYTES (256 * 1024)

/* The stack bytes each sample copies (col_timer_open's; the handler reads it). */
static size_t stack_copy_bytes;
/* The kernel's tick (col_timer_open's: its reading is no call for a handler). */
static int64_t tick_ns;

/* Perf events refused, the sampler process running: each sample goes onto
 * the trace ring, as a traced call's stack copy does, for the sampler to
 * unwind and write (no runtime thread in the program); else into the
 * thread's own ring, for the runtime thread. */
static int to_trace_ring;

void col_timer_to_trace_ring(int yes)
{
  to_trace_ring = yes;
}

/* One slot of CAP's on the trace ring (a slot it never waits for: a
 * handler cannot): KIND, PAYLOAD, and the stack bytes from AT of CAP's
 * copy that fit; the registers with the first.  The bytes put, or -1 when
 * full (the sampler counts it with the ring's drops). */
static ssize_t push_slot(const struct col_capture *cap, uint16_t kind, const void *payload, uint32_t payload_len,
                         size_t at)
{
  struct col_trace_event *e = col_trace_reserve(0);
  if (e == NULL)
    return -1;
  e->kind = kind;
  e->pid = getpid();
  e->tid = cap->tid;
  e->cpu = cap->cpu;
  e->space = 0;
  e->n_pcs = 0;
  e->start = e->end = cap->tstamp;
  e->payload_len = payload_len;
  if (payload_len > 0)
    memcpy(e->payload, payload, payload_len);
  e->ip = at == 0 ? cap->regs.r[PERF_REG_X86_IP] : 0;
  e->sp = at == 0 ? cap->regs.r[PERF_REG_X86_SP] : 0;
  e->bp = at == 0 ? cap->regs.r[PERF_REG_X86_BP] : 0;
  size_t len = cap->stack_len - at < sizeof e->stack ? cap->stack_len - at : sizeof e->stack;
  if (len > 0)
    memcpy(e->stack, cap->stack + at, len);
  e->stack_len = (uint32_t)len;
  col_trace_commit(e);
  return (ssize_t)len;
}

/* CAP onto the trace ring: registers, stack bytes, and PAYLOAD (a
 * sample's col_clock_sample_payload; a thread's end: its CPU time no
 * sample stands for).  A capture with no registers (a thread's end) has
 * no stack to copy.  The rest of a copy larger than a slot goes in MORE
 * slots after it (none free: the sampler writes the sample with the part
 * it got).  0, or -1 when full. */
static int push_to_trace_ring(const struct col_capture *cap, const void *payload, uint32_t payload_len)
{
  ssize_t len = push_slot(cap, ER_KIND_CLOCK, payload, payload_len, 0);
  if (len < 0)
    return -1;
  for (size_t at = (size_t)len; at < cap->stack_len && (len = push_slot(cap, COL_TRACE_STACK_MORE, NULL, 0, at)) > 0;)
    at += (size_t)len;
  return 0;
}

/* The process's writable private mappings, read once at an attach where no
 * runtime thread runs: the stacks of the threads armed from outside are
 * among them (a thread's stack is one mapping), found by the handler with
 * no lock and no system call. */
#define WRITABLE_MAPPINGS 1024
static struct {
  uintptr_t lo, hi;
} writable[WRITABLE_MAPPINGS];
static size_t n_writable;

void col_timer_read_stacks(void)
{
  static char text[256 * 1024];
  long len = er_read_text("/proc/self/maps", text, sizeof text);
  size_t n = 0;
  for (char *line = text; len > 0 && line != NULL && *line != '\0' && n < WRITABLE_MAPPINGS;) {
    char *next = strchr(line, '\n');
    unsigned long lo, hi;
    char perms[5];
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p') {
      writable[n].lo = lo;
      writable[n].hi = hi;
      n++;
    }
    line = next != NULL ? next + 1 : NULL;
  }
  __atomic_store_n(&n_writable, n, __ATOMIC_RELEASE);
}

static int writable_mapping_at(uintptr_t sp, uintptr_t *lo, uintptr_t *hi)
{
  size_t n = __atomic_load_n(&n_writable, __ATOMIC_ACQUIRE);
  for (size_t i = 0; i < n; i++)
    if (sp >= writable[i].lo && sp < writable[i].hi) {
      *lo = writable[i].lo;
      *hi = writable[i].hi;
      return 1;
    }
  return 0;
}

static int push(struct col_thread *t, const struct col_capture *cap)
{
  struct col_clock_sample_payload sample = {cap->weight, (uint32_t)cap->stack_len, *cap->beyond, cap->unplaced,
                                            cap->unplaced_pc, cap->omp_regions};
  return to_trace_ring ? push_to_trace_ring(cap, &sample, sizeof sample) : col_ring_push(t->ring, cap);
}

static void copy_registers(const ucontext_t *uc, struct col_regs *regs)
{
  const greg_t *g = uc->uc_mcontext.gregs;
  regs->r[PERF_REG_X86_AX] = (uint64_t)g[REG_RAX];
  regs->r[PERF_REG_X86_BX] = (uint64_t)g[REG_RBX];
  regs->r[PERF_REG_X86_CX] = (uint64_t)g[REG_RCX];
  regs->r[PERF_REG_X86_DX] = (uint64_t)g[REG_RDX];
  regs->r[PERF_REG_X86_SI] = (uint64_t)g[REG_RSI];
  regs->r[PERF_REG_X86_DI] = (uint64_t)g[REG_RDI];
  regs->r[PERF_REG_X86_BP] = (uint64_t)g[REG_RBP];
  regs->r[PERF_REG_X86_SP] = (uint64_t)g[REG_RSP];
  regs->r[PERF_REG_X86_IP] = (uint64_t)g[REG_RIP];
  static const int high[8] = {REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  for (int i = 0; i < 8; i++)
    regs->r[PERF_REG_X86_R8 + i] = (uint64_t)g[high[i]];
}

static int64_t thread_cpu_ns(clockid_t clock)
{
  struct timespec ts;
  return clock_gettime(clock, &ts) == 0 ? (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec : -1;
}

#define MAX_WEIGHT 1000000

/* The intervals of CPU time the calling thread T ran that its samples do
 * not stand for yet (rounded, at most MAX_WEIGHT), the interval in ns in
 * *INTERVAL; -1 when they cannot be known. */
static int64_t intervals_unsampled(const struct col_thread *t, int64_t *interval)
{
  int64_t now = thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
  *interval = (int64_t)col_cfg.clock_interval_us * 1000;
  if (*interval <= 0 || now < 0)
    return -1;
  int64_t n = (now - t->timer_cpu_ns + *interval / 2) / *interval;
  return n < MAX_WEIGHT ? n : MAX_WEIGHT;
}

/* Whether T, the calling thread, was preempted since its last sample
 * (not known for another thread: no). */
static int preempted_since_sample(struct col_thread *t)
{
  if (t->tid != gettid())
    return 0;
  long preemptions = col_thread_preemptions();
  int preempted = t->timer_preemptions >= 0 && preemptions > t->timer_preemptions;
  t->timer_preemptions = preemptions;
  return preempted;
}

/* A sample's weight: what the thread ran since its last one (at least 1:
 * the timer fired), taken off what is left; what of it no sample found
 * while the thread was preempted goes in CAP's unplaced intervals
 * (timer_lateness.c).  On the thread itself. */
static void weigh_sample(struct col_thread *t, struct col_capture *cap)
{
  cap->unplaced = 0;
  cap->unplaced_pc = 0;
  int64_t interval, n = intervals_unsampled(t, &interval);
  if (n < 0) {
    cap->weight = 1;
    return;
  }
  if (n < 1)
    n = 1;
  t->timer_cpu_ns += n * interval;
  struct col_timer_split split = col_timer_split(n, interval, tick_ns, preempted_since_sample(t));
  cap->weight = split.placed;
  if (split.unplaced > 0) {
    cap->unplaced = split.unplaced;
    cap->unplaced_pc = col_not_sampled_frame();
  }
}

static void on_timer_signal(int sig, siginfo_t *info, void *context)
{
  int saved_errno = errno;
  struct col_thread *t = col_thread_find((pid_t)gettid());
  if (t != NULL && (t->ring != NULL || to_trace_ring) && info->si_code == SI_TIMER) {
    struct col_capture cap;
    cap.tid = t->tid;
    cap.cpu = (uint32_t)sched_getcpu();
    cap.tstamp = col_hrtime();
    weigh_sample(t, &cap);
    cap.omp_regions = __atomic_load_n(&col_omp_regions_running, __ATOMIC_RELAXED) > 0 ? COL_OMP_REGIONS_SOME
                                                                                      : COL_OMP_REGIONS_NONE;
    copy_registers(context, &cap.regs);
    uintptr_t sp = (uintptr_t)cap.regs.r[PERF_REG_X86_SP];
    cap.stack = (const unsigned char *)sp;
    cap.stack_len = 0;
    /* Bounds of a thread armed from outside are learnt by the runtime thread
     * from its first (stackless) sample; where none runs, from the
     * writable mappings read at the attach. */
    uintptr_t hi = __atomic_load_n(&t->stack_hi, __ATOMIC_ACQUIRE); /* stored last */
    uintptr_t lo = __atomic_load_n(&t->stack_lo, __ATOMIC_RELAXED);
    if (hi == 0 && to_trace_ring && writable_mapping_at(sp, &lo, &hi)) {
      __atomic_store_n(&t->stack_lo, lo, __ATOMIC_RELAXED);
      __atomic_store_n(&t->stack_hi, hi, __ATOMIC_RELEASE);
    }
    struct col_beyond_prints beyond = {0, 0, {0, 0, 0}};
    if (sp >= lo && sp < hi) {
      size_t room = hi - sp;
      cap.stack_len = room < stack_copy_bytes ? room : stack_copy_bytes;
      col_beyond_prints_take(cap.stack + cap.stack_len, room - cap.stack_len, cap.stack_len, &beyond);
    }
    cap.beyond = &beyond;
    if (push(t, &cap) != 0)
      __atomic_fetch_add(&t->lost, cap.weight + cap.unplaced, __ATOMIC_RELAXED);
  }
  errno = saved_errno;
}

/* The program's masks keep the signal deliverable from now on, and its
 * own handler for that number is kept (signal_guard.h); our timers'
 * signals come to on_timer_signal. */
int col_timer_install_handler(void)
{
  return col_signal_guard_start(on_timer_signal);
}

/* The CPU-time clock of any thread of this process (the kernel's encoding,
 * as glibc's pthread_getcpuclockid builds it), so a late runtime can arm
 * threads other than the caller. */
static clockid_t thread_cpu_clock(pid_t tid)
{
  return (clockid_t)((~(unsigned)tid << 3) | 6);
}

int col_timer_open(struct col_thread *t, long interval_us, size_t stack_bytes, int born_now)
{
  stack_copy_bytes = stack_bytes;
  tick_ns = col_timer_tick_ns();
  if (t->ring == NULL && !to_trace_ring)
    t->ring = col_ring_create(RING_BYTES);
  if (t->ring == NULL && !to_trace_ring)
    return -ENOMEM;
  if (t->ring != NULL)
    col_ring_reset(t->ring);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = COL_TIMER_SIGNAL;
  sev.sigev_value.sival_int = COL_TIMER_COOKIE; /* (the program's own signals of that number lack it) */
  sev._sigev_un._tid = t->tid;
  if (timer_create(thread_cpu_clock(t->tid), &sev, &t->timer) != 0) {
    return -errno;
  }
  /* Its samples stand for what it runs from now, or, for a thread just
   * begun, from its start: measured under load, 1000 threads of 1 ms each
   * spent 0.15 ms of CPU before this point (the wrappers' and the timer's
   * setup), which the program's own clock of each thread counts. */
  int64_t cpu_now = born_now ? 0 : thread_cpu_ns(thread_cpu_clock(t->tid));
  t->timer_cpu_ns = cpu_now > 0 ? cpu_now : 0;
  /* (another thread's switches are not read: its first sample keeps its weight) */
  t->timer_preemptions = t->tid == gettid() ? col_thread_preemptions() : -1;
  struct itimerspec its;
  its.it_interval.tv_sec = interval_us / 1000000;
  its.it_interval.tv_nsec = (interval_us % 1000000) * 1000;
  its.it_value = its.it_interval;
  if (timer_settime(t->timer, 0, &its, NULL) != 0) {
    int err = errno;
    timer_delete(t->timer);
    return -err;
  }
  return 0;
}

void col_timer_close(struct col_thread *t)
{
  if (t->source == COL_SOURCE_TIMER)
    timer_delete(t->timer);
}

/* A thread's end: the CPU time it ran since its last sample (under load,
 * up to several intervals: the signals come late), as a last capture with
 * no registers that stands for it.  For the runtime thread: whole
 * intervals, drawn at the thread's last stack.  For the sampler process:
 * the nanoseconds themselves (less than 0 where the samples' rounding
 * stood for more), which it samples as it samples the tails perf's
 * periods leave (sampler_tails.c): a thread shorter than the interval is
 * recorded with the right probability, not never.  On the ending thread,
 * its timer deleted and the signal blocked: nothing else pushes now. */
void col_timer_finish_thread(struct col_thread *t)
{
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.tid = t->tid;
  cap.cpu = (uint32_t)sched_getcpu();
  cap.tstamp = col_hrtime();
  sigset_t timer_signal, saved;
  sigemptyset(&timer_signal);
  sigaddset(&timer_signal, COL_TIMER_SIGNAL);
  if (to_trace_ring) { /* any thread's clock can be read from here */
    int64_t cpu = thread_cpu_ns(thread_cpu_clock(t->tid)); /* (-1: the thread has gone) */
    struct col_thread_end_tail end = {0, cpu >= 0 ? cpu - t->timer_cpu_ns : 0, 0, 0};
    end.unplaced_ns = col_timer_unplaced_ns(end.unsampled_ns, (int64_t)col_cfg.clock_interval_us * 1000,
                                            tick_ns, preempted_since_sample(t));
    if (end.unplaced_ns > 0)
      end.unplaced_pc = col_not_sampled_frame();
    col_real_sigmask(SIG_BLOCK, &timer_signal, &saved);
    if (push_to_trace_ring(&cap, &end, sizeof end) == 0)
      t->timer_cpu_ns += end.unsampled_ns;
    col_real_sigmask(SIG_SETMASK, &saved, NULL);
    return;
  }
  /* (the runtime thread's ring has one producer: the thread itself) */
  int64_t interval, n = t->tid == gettid() && t->ring != NULL ? intervals_unsampled(t, &interval) : -1;
  if (n < 1)
    return;
  struct col_timer_split split = col_timer_split(n, interval, tick_ns, preempted_since_sample(t));
  cap.weight = split.placed;
  cap.unplaced = split.unplaced;
  cap.unplaced_pc = split.unplaced > 0 ? col_not_sampled_frame() : 0;
  col_real_sigmask(SIG_BLOCK, &timer_signal, &saved);
  if (col_ring_push(t->ring, &cap) == 0)
    t->timer_cpu_ns += n * interval;
  col_real_sigmask(SIG_SETMASK, &saved, NULL);
}

/* A thread armed from outside (after an attach, or by the task scan) has
 * no known stack bounds, so its handler copies no stack; its first sample
 * tells where the stack is.  A capture with no registers is the thread's
 * end (col_timer_finish_thread): its last stack again. */
static void write_capture(const struct col_capture *cap, void *p)
{
  struct col_thread *t = p;
  if (cap->regs.r[PERF_REG_X86_IP] == 0 && cap->regs.r[PERF_REG_X86_SP] == 0) {
    /* Not for a thread that blocked the signal: that time stays counted as
     * unsampled (blocked_signal.c), not drawn at some earlier stack. */
    if (t->last_stack_id != 0 && !t->blocks_timer_signal) {
      t->ticks += cap->weight + cap->unplaced;
      col_clock_writer_unplaced(cap->tid, cap->cpu, cap->tstamp, cap->unplaced, cap->unplaced_pc);
      col_clock_writer_packet_id(cap->tid, cap->cpu, cap->tstamp, cap->weight, t->last_stack_id);
    }
    return;
  }
  t->ticks += cap->weight + cap->unplaced;
  if (t->stack_hi == 0) {
    uint64_t lo, hi;
    if (col_modules_range_at(cap->regs.r[PERF_REG_X86_SP], &lo, &hi) == 0) {
      __atomic_store_n(&t->stack_lo, (uintptr_t)lo, __ATOMIC_RELAXED);
      __atomic_store_n(&t->stack_hi, (uintptr_t)hi, __ATOMIC_RELEASE); /* publishes both */
    }
  }
  uint64_t id = col_clock_writer_write_id(cap);
  if (id != 0)
    t->last_stack_id = id;
}

size_t col_timer_drain(struct col_thread *t)
{
  if (t->ring == NULL)
    return 0;
  size_t n = col_ring_drain(t->ring, write_capture, t);
  t->samples += n;
  return n;
}
