/* The in-process clock's timer signal, deliverable in every thread while
 * the program sees exactly the masks and the handler it asked for
 * (signal_guard.h).  As gprofng's and igprof's collectors do, the calls
 * that change a thread's mask, take over a signal or wait for one are
 * interposed.  Each thread keeps its view: whether the program's mask
 * blocks the timer signal's number.  The kernel's mask never does; what
 * the program reads back (an old mask) carries the view.
 *
 * A signal of that number that is not the collector's (the program's own
 * kill or timer) is the program's: its handler runs under the mask its
 * sigaction asked for, or the signal is held while the view blocks it and
 * sent again when it unblocks.  The kernel gives a signal sent to the
 * process to any thread whose real mask lets it through, which is every
 * thread here: one whose view blocks it passes it on to a thread whose
 * view does not (the threads known so), as the kernel would have chosen,
 * else holds it for the process.  Waits for a set that holds the number
 * (sigwait, signalfd) wait for the rest of the set: the collector's
 * samples must not end them.  A CPU-time timer does not fire while its
 * thread waits, so a wait's own temporary mask (sigsuspend, ppoll) is
 * never interrupted by a sample.
 *
 * Off (sampling from outside, or no experiment): a load, a test and the
 * real call. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/thread_slot.h"
#include "interpose/own_calls.h"
#include "interpose/signal_guard.h"
#include "interposed.h"

#define SIG COL_TIMER_SIGNAL

static int guard_on;
static struct sigaction program_action; /* the program's disposition of SIG */
/* Looked up at the start, for the signal's handler. */
static void (*recording_handler)(int, siginfo_t *, void *);
static col_fn_sigaction real_sigaction;

struct thread_view {
  int known;   /* else read from the kernel's mask at the thread's first call */
  int blocked; /* the program's mask blocks SIG */
  int held;    /* a signal of the program's came while it did */
  int slot;    /* its entry in the table below + 1; 0: none yet */
  pid_t tid;
  siginfo_t held_info;
};
static __thread struct thread_view view __attribute__((tls_model("initial-exec")));

/* Each thread's view where a signal sent to the process can find it: an
 * entry per thread, written by its thread alone (a line each: a change of
 * mask costs a store to its own line, no system call), tid 0 where free.
 * An ended thread's entry may stay: a send to it fails. */
#define VIEW_ENTRIES 256
static struct view_entry {
  pid_t tid;
  int blocked;
} __attribute__((aligned(64))) entries[VIEW_ENTRIES];
/* A signal sent to the process while no thread's view let it through. */
static int process_held;
static siginfo_t process_held_info;
/* In si_errno of a signal passed on to another thread: not passed again. */
#define PASSED_ON 0x5047

static void publish_view(void)
{
  if (view.slot == 0) {
    view.tid = (pid_t)gettid();
    for (int i = 0; i < VIEW_ENTRIES && view.slot == 0; i++) {
      pid_t free = 0;
      if (__atomic_load_n(&entries[i].tid, __ATOMIC_RELAXED) == 0 &&
          __atomic_compare_exchange_n(&entries[i].tid, &free, view.tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        view.slot = i + 1;
    }
    if (view.slot == 0)
      view.slot = -1; /* the table is full: this thread passes signals on, takes none passed */
  }
  if (view.slot > 0)
    __atomic_store_n(&entries[view.slot - 1].blocked, view.blocked, __ATOMIC_RELEASE);
}

static void set_view(int blocked)
{
  if (view.known && view.blocked == blocked)
    return;
  view.known = 1;
  view.blocked = blocked;
  publish_view();
}

/* A fork's child: one thread, the forking one, with a new tid. */
static void forked(void)
{
  for (int i = 0; i < VIEW_ENTRIES; i++)
    if (i != view.slot - 1)
      entries[i].tid = 0;
  view.tid = (pid_t)gettid();
  if (view.slot > 0)
    entries[view.slot - 1].tid = view.tid;
}

static int guarded(void)
{
  return __atomic_load_n(&guard_on, __ATOMIC_RELAXED);
}

int col_real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
  return COL_REAL(pthread_sigmask)(how, set, old);
}

int col_real_signalfd(int fd, const sigset_t *mask, int flags)
{
  return COL_REAL(signalfd)(fd, mask, flags);
}

static void know_view(void)
{
  if (view.known)
    return;
  sigset_t now;
  set_view(col_real_sigmask(SIG_BLOCK, NULL, &now) == 0 && sigismember(&now, SIG) == 1);
}

int col_signal_view_blocked(void)
{
  if (!guarded())
    return 0;
  know_view();
  return view.blocked;
}

void col_signal_view_begin(int blocked)
{
  view.known = 0;
  view.held = 0;
  set_view(blocked);
}

void col_signal_view_end(void)
{
  if (view.slot > 0)
    __atomic_store_n(&entries[view.slot - 1].tid, 0, __ATOMIC_RELEASE);
  view.slot = 0;
}

static long send_to(pid_t tid, siginfo_t *info)
{
  return syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, SIG, info);
}

/* The held signals, sent again to this thread (its view lets them through
 * now): its own, then the process's. */
static void give_held(void)
{
  if (view.blocked)
    return;
  if (view.held) {
    view.held = 0;
    send_to(view.tid, &view.held_info);
  }
  int held = 1;
  if (__atomic_load_n(&process_held, __ATOMIC_ACQUIRE) &&
      __atomic_compare_exchange_n(&process_held, &held, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    send_to(view.tid, &process_held_info);
}

/* A signal sent to the process came to this thread, whose view blocks it:
 * to a thread whose view does not, else held for the process. */
static void pass_on(siginfo_t *info)
{
  info->si_errno = PASSED_ON;
  for (int i = 0; i < VIEW_ENTRIES; i++) {
    pid_t tid = __atomic_load_n(&entries[i].tid, __ATOMIC_ACQUIRE);
    if (tid != 0 && tid != view.tid && !__atomic_load_n(&entries[i].blocked, __ATOMIC_ACQUIRE) &&
        send_to(tid, info) == 0)
      return;
  }
  int free = 0;
  if (__atomic_compare_exchange_n(&process_held, &free, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    process_held_info = *info;
    process_held_info.si_errno = 0;
    __atomic_store_n(&process_held, 1, __ATOMIC_RELEASE);
  }
}

/* SIG in a set, by its bit (glibc's sigismember and sigdelset are calls
 * into libc: these run on every mask change). */
#define SIG_WORD ((SIG - 1) / (8 * sizeof(unsigned long)))
#define SIG_BIT (1UL << ((SIG - 1) % (8 * sizeof(unsigned long))))
static int has_ours(const sigset_t *set)
{
  return (set->__val[SIG_WORD] & SIG_BIT) != 0;
}

static void put_ours(sigset_t *set, int in)
{
  if (in)
    set->__val[SIG_WORD] |= SIG_BIT;
  else
    set->__val[SIG_WORD] &= ~SIG_BIT;
}

/* SET without SIG (in COPY where SET has it). */
static const sigset_t *without_ours(const sigset_t *set, sigset_t *copy)
{
  if (set == NULL || !has_ours(set))
    return set;
  *copy = *set;
  put_ours(copy, 0);
  return copy;
}

/* SIG unblocked in the calling thread's real mask (through REAL). */
static void unblock_ours(col_fn_pthread_sigmask real)
{
  sigset_t sig;
  sigemptyset(&sig);
  sigaddset(&sig, SIG);
  real(SIG_UNBLOCK, &sig, NULL);
}

static void for_program(int sig, siginfo_t *info, void *context);

/* Every signal of SIG: our timers' to the recording handler (the recording
 * path, async-signal-safe), the rest to the program (its own handler runs:
 * the program's code, not ours). */
static void dispatch(int sig, siginfo_t *info, void *context)
{
  if (info->si_code == SI_TIMER && info->si_value.sival_int == COL_TIMER_COOKIE) {
    recording_handler(sig, info, context);
    return;
  }
  int saved_errno = errno;
  for_program(sig, info, context);
  errno = saved_errno;
}

int col_signal_guard_start(void (*handler)(int, siginfo_t *, void *))
{
  /* libc's own: a sanitizer's sigaction (ThreadSanitizer's comes after
   * ours) would hold the timer signal back to its own safe points, and
   * the sample would read a stack that had moved on. */
  real_sigaction = col_own_sigaction();
  if (real_sigaction == NULL)
    real_sigaction = COL_REAL(sigaction);
  recording_handler = handler;
  struct sigaction ours, before;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = dispatch;
  ours.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&ours.sa_mask);
  if (real_sigaction(SIG, &ours, &before) != 0)
    return -errno;
  if (!guarded()) { /* a second start keeps what the program set */
    if (before.sa_sigaction != dispatch)
      program_action = before;
    know_view();
    unblock_ours(col_real_sigmask);
    pthread_atfork(NULL, NULL, forked);
    __atomic_store_n(&guard_on, 1, __ATOMIC_RELEASE);
  }
  return 0;
}

static void for_program(int sig, siginfo_t *info, void *context)
{
  know_view();
  int to_process = info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TIMER ||
                   info->si_code == SI_MESGQ || info->si_code == SI_ASYNCIO;
  if (view.blocked && to_process && info->si_errno != PASSED_ON) {
    pass_on(info);
    return;
  }
  if (info->si_errno == PASSED_ON)
    info->si_errno = 0;
  if (view.blocked) {
    if (!view.held) { /* one is kept, as the kernel keeps one of a standard signal */
      view.held = 1;
      view.held_info = *info;
    }
    return;
  }
  struct sigaction a = program_action;
  if (a.sa_handler == SIG_IGN)
    return;
  if (a.sa_handler == SIG_DFL) {
    /* A real-time signal's default action ends the process: its own
     * disposition back, and the signal again (delivered once this handler
     * returns, SIG being blocked in it). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction(SIG, &dfl, NULL);
    send_to(view.tid, info);
    return;
  }
  if (a.sa_flags & SA_RESETHAND) {
    program_action.sa_handler = SIG_DFL;
    program_action.sa_flags = 0;
  }
  /* Its handler runs under the mask it asked for: its sa_mask, and the
   * signal itself unless SA_NODEFER. */
  sigset_t mask, saved;
  without_ours(&a.sa_mask, &mask);
  col_real_sigmask(SIG_BLOCK, &mask, &saved);
  int was_blocked = view.blocked;
  view.blocked = !(a.sa_flags & SA_NODEFER) || has_ours(&a.sa_mask);
  if (a.sa_flags & SA_SIGINFO)
    a.sa_sigaction(sig, info, context);
  else
    a.sa_handler(sig);
  view.blocked = was_blocked;
  col_real_sigmask(SIG_SETMASK, &saved, NULL);
  give_held(); /* what came for it while its handler ran */
}

/* pthread_sigmask and sigprocmask (the same for one thread): REAL with the
 * set less SIG; the view follows what the program asked; an old mask
 * carries the view it had. */
static int change_mask(col_fn_pthread_sigmask real, int how, const sigset_t *set, sigset_t *old)
{
  know_view();
  int was = view.blocked, asks = set != NULL && has_ours(set);
  sigset_t copy, mine;
  sigset_t *before = old != NULL ? old : &mine; /* (OLD may be SET: ASKS was read first) */
  int rc = real(how, without_ours(set, &copy), before);
  if (rc != 0)
    return rc; /* (EINVAL: a bad HOW; the view stays) */
  if (set != NULL) {
    if (how == SIG_SETMASK)
      set_view(asks);
    else if (asks)
      set_view(how == SIG_BLOCK);
    if (has_ours(before)) /* blocked before the guard (a thread from before an attach) */
      unblock_ours(real);
  }
  put_ours(before, was);
  if (view.held || __atomic_load_n(&process_held, __ATOMIC_RELAXED))
    give_held();
  return 0;
}

int col_wrap_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
  if (!guarded())
    return COL_REAL(pthread_sigmask)(how, set, old);
  return change_mask(COL_REAL(pthread_sigmask), how, set, old);
}

int col_wrap_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
  if (!guarded())
    return COL_REAL(sigprocmask)(how, set, old);
  return change_mask(COL_REAL(sigprocmask), how, set, old);
}

/* SIG's handler stays ours; the program's is kept, and called for its
 * signals (for_program). */
int col_wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  if (sig != SIG || !guarded())
    return COL_REAL(sigaction)(sig, act, old);
  struct sigaction before = program_action;
  if (act != NULL)
    program_action = *act;
  if (old != NULL)
    *old = before;
  return 0;
}

__sighandler_t col_wrap_signal(int sig, __sighandler_t handler)
{
  if (sig != SIG || !guarded())
    return COL_REAL(signal)(sig, handler);
  struct sigaction act, before;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART; /* glibc's signal(): BSD semantics */
  col_wrap_sigaction(sig, &act, &before);
  return before.sa_handler;
}

/* While it waits, the view is the wait's mask; a held signal it lets
 * through ends the wait at once, as a pending one would. */
int col_wrap_sigsuspend(const sigset_t *mask)
{
  if (!guarded())
    return COL_REAL(sigsuspend)(mask);
  know_view();
  int was = view.blocked;
  view.blocked = has_ours(mask);
  if (view.held && !view.blocked) {
    give_held();
    view.blocked = was;
    errno = EINTR;
    return -1;
  }
  sigset_t copy;
  int rc = COL_REAL(sigsuspend)(without_ours(mask, &copy));
  int saved = errno;
  view.blocked = was;
  errno = saved;
  return rc;
}

/* A wait for SET, less SIG. */
static const sigset_t *wait_set(const sigset_t *set, sigset_t *copy)
{
  return guarded() ? without_ours(set, copy) : set;
}

int col_wrap_sigwait(const sigset_t *set, int *sig)
{
  sigset_t copy;
  return COL_REAL(sigwait)(wait_set(set, &copy), sig);
}

int col_wrap_sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
  sigset_t copy;
  return COL_REAL(sigwaitinfo)(wait_set(set, &copy), info);
}

int col_wrap_sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
  sigset_t copy;
  return COL_REAL(sigtimedwait)(wait_set(set, &copy), info, timeout);
}

int col_wrap_signalfd(int fd, const sigset_t *mask, int flags)
{
  sigset_t copy;
  return COL_REAL(signalfd)(fd, wait_set(mask, &copy), flags);
}

COL_PRELOAD_ALIASES(COL_SIGNAL_FUNCTIONS)
