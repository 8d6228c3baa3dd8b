/* Fallback clock source for kernels or containers that refuse
 * perf_event_open: a per-thread POSIX timer on the thread's CPU-time clock
 * that sends COL_TIMER_SIGNAL to that thread.  CPU-time timers are checked
 * at the scheduler tick, so short intervals fire less often than asked;
 * each sample is weighted by 1 + si_overrun so the CPU time stays true.
 *
 * A real-time signal of our own, not SIGPROF, so the program's own SIGPROF
 * handler and ITIMER_PROF keep working.  The handler only copies registers
 * and stack bytes into the thread's ring (async-signal-safe: memcpy and
 * atomics); unwinding happens in the sampler thread. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "collector_internal.h"

#define RING_BYTES (256 * 1024)

extern size_t col_stack_copy_bytes;

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

static void on_timer_signal(int sig, siginfo_t *info, void *context)
{
  int saved_errno = errno;
  struct col_thread *t = col_thread_find((pid_t)gettid());
  if (t != NULL && t->ring != NULL && info->si_code == SI_TIMER) {
    struct col_capture cap;
    cap.tid = t->tid;
    cap.cpu = (uint32_t)sched_getcpu();
    cap.tstamp = col_hrtime();
    cap.weight = 1 + (uint32_t)(info->si_overrun > 0 ? info->si_overrun : 0);
    copy_registers(context, &cap.regs);
    uintptr_t sp = (uintptr_t)cap.regs.r[PERF_REG_X86_SP];
    cap.stack = (const unsigned char *)sp;
    cap.stack_len = 0;
    /* Bounds of a thread armed from outside are learnt by the sampler
     * from its first (stackless) sample. */
    uintptr_t hi = __atomic_load_n(&t->stack_hi, __ATOMIC_ACQUIRE); /* stored last */
    uintptr_t lo = __atomic_load_n(&t->stack_lo, __ATOMIC_RELAXED);
    if (sp >= lo && sp < hi) {
      size_t room = hi - sp;
      cap.stack_len = room < col_stack_copy_bytes ? room : col_stack_copy_bytes;
    }
    if (col_ring_push(t->ring, &cap) != 0)
      __atomic_fetch_add(&t->lost, cap.weight, __ATOMIC_RELAXED);
  }
  errno = saved_errno;
}

int col_timer_install_handler(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_timer_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  return sigaction(COL_TIMER_SIGNAL, &sa, NULL) == 0 ? 0 : -errno;
}

/* The CPU-time clock of any thread of this process (the kernel's encoding,
 * as glibc's pthread_getcpuclockid builds it), so a late runtime can arm
 * threads other than the caller. */
static clockid_t thread_cpu_clock(pid_t tid)
{
  return (clockid_t)((~(unsigned)tid << 3) | 6);
}

int col_timer_open(struct col_thread *t, long interval_us)
{
  if (t->ring == NULL)
    t->ring = col_ring_create(RING_BYTES);
  if (t->ring == NULL)
    return -ENOMEM;
  col_ring_reset(t->ring);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = COL_TIMER_SIGNAL;
  sev._sigev_un._tid = t->tid;
  if (timer_create(thread_cpu_clock(t->tid), &sev, &t->timer) != 0) {
    return -errno;
  }
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

struct drain_context {
  struct col_thread *thread;
  col_capture_fn fn;
  void *arg;
};

/* A thread armed from outside (after an attach, or by the task scan) has
 * no known stack bounds, so its handler copies no stack; its first sample
 * tells where the stack is. */
static void learn_stack_bounds(const struct col_capture *cap, void *p)
{
  struct drain_context *ctx = p;
  struct col_thread *t = ctx->thread;
  if (t->stack_hi == 0) {
    uint64_t lo, hi;
    if (col_modules_range_at(cap->regs.r[PERF_REG_X86_SP], &lo, &hi) == 0) {
      __atomic_store_n(&t->stack_lo, (uintptr_t)lo, __ATOMIC_RELAXED);
      __atomic_store_n(&t->stack_hi, (uintptr_t)hi, __ATOMIC_RELEASE); /* publishes both */
    }
  }
  ctx->fn(cap, ctx->arg);
}

size_t col_timer_drain(struct col_thread *t, col_capture_fn fn, void *arg)
{
  if (t->ring == NULL)
    return 0;
  struct drain_context ctx = {t, fn, arg};
  size_t n = col_ring_drain(t->ring, learn_stack_bounds, &ctx);
  t->samples += n;
  return n;
}
