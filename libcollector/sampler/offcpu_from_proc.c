/* Off-CPU time without the kernel's context-switch records.
 *
 * Where perf events are refused there is no record of a thread leaving or
 * reaching its CPU.  The kernel still keeps, per thread, in
 * /proc/PID/task/TID/schedstat: the time it ran, the time it waited on a
 * run queue (runnable, preempted), and how many times it reached a CPU.
 * So every poll (OFFCPU_READ_MS, longer with many threads) each thread's
 * wall time since the last poll, less the time it ran, is its time off
 * its CPU; the run-queue part is "waiting for a CPU", the rest a wait.
 *
 * Whose wait: a thread found waiting (or stopped) at a poll is read from
 * outside (blocked_stack.h: state, system call, stack).  The read stands
 * for that wait while the thread has not reached a CPU again (the count
 * unchanged: a thread cannot leave a wait, or stop, without running); a
 * count that changed during the read means the thread ran while its stack
 * was read, and the read is dropped.  The time off CPU between two polls
 * goes to the wait read at the first (it went on), or, where the thread
 * ran in between, half to that wait and half to the one read at the
 * second; waits begun and ended between two polls have no stack (said in
 * log.xml and GDB's line).  Run-queue time goes with the thread's newest
 * clock sample's stack: where it was running when it was preempted.
 *
 * Every nanosecond so measured enters the same sampled stream as with
 * switch records (sampler_offcpu.c): each recorded with probability
 * 1/period. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hrtime.h"
#include "core/module_map.h"
#include "er/er_format.h"
#include "unwind/unwind.h"
#include "blocked_stack.h"
#include "offcpu_from_proc.h"
#include "sampler_offcpu.h"
#include "sampler_tails.h"

#define BUCKETS 1024
#define NS_PER_THREAD 50000 /* a poll's interval grows by this for each thread (its files' reads cost ~5 us) */

struct wait_read {
  int known;       /* read while the thread waited, and not torn */
  uint64_t slices; /* the thread's count of arrivals on a CPU then: the same wait while it holds */
  struct blocked_thread read;
  uint64_t *pcs;
  size_t depth;
};

/* A thread's figures as /proc/.../schedstat gives them, read AT. */
struct sched_figures {
  uint64_t run_ns, queued_ns, slices; /* on a CPU, on a run queue; arrivals on a CPU */
  int64_t at;
};

struct proc_thread {
  struct proc_thread *next;
  pid_t tid;
  unsigned generation; /* the last poll that found it */
  struct sched_figures last; /* its figures at that poll (at 0: never read) */
  struct wait_read wait;     /* the wait it was in then */
};

static struct proc_thread *buckets[BUCKETS];
static pid_t process; /* 0: not polling */
static unsigned generation;
static int64_t last_poll, interval_ns;
static int64_t boot_minus_raw; /* CLOCK_BOOTTIME less col_hrtime's clock: threads' start times are on the first */
static struct offcpu_from_proc_figures figures;
static int rescanned_this_poll;

static struct proc_thread **slot_of(pid_t tid)
{
  struct proc_thread **p = &buckets[(unsigned)tid % BUCKETS];
  while (*p != NULL && (*p)->tid != tid)
    p = &(*p)->next;
  return p;
}

static void forget_slot(struct proc_thread **p)
{
  struct proc_thread *t = *p;
  *p = t->next;
  free(t->wait.pcs);
  free(t);
}

static int64_t now_on(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int read_figures(pid_t tid, struct sched_figures *out)
{
  figures.thread_reads++;
  if (!task_schedstat_read(process, tid, &out->run_ns, &out->queued_ns, &out->slices))
    return 0;
  out->at = col_hrtime();
  return 1;
}

/* When thread TID began (the kernel keeps it in clock ticks since boot:
 * within one tick), on col_hrtime's clock; 0 where not read. */
static int64_t started_at(pid_t tid)
{
  char buf[1024];
  if (task_file_read(process, tid, "stat", buf, sizeof buf) <= 0)
    return 0;
  const char *p = strrchr(buf, ')'); /* its name may hold any byte */
  for (int field = 2; p != NULL && field < 22; field++)
    p = strchr(p + 1, ' ');
  if (p == NULL)
    return 0;
  long tick_ns = 1000000000L / sysconf(_SC_CLK_TCK);
  return (int64_t)strtoull(p + 1, NULL, 10) * tick_ns + tick_ns / 2 - boot_minus_raw;
}

/* Thread TID's state and stack now, into PCS. */
static void read_thread(pid_t tid, uint64_t *pcs, size_t max, struct blocked_thread *read)
{
  errno = 0;
  blocked_stack_read(process, tid, 1, pcs, max, read);
  if (read->depth > 0 && read->depth <= 2 && pcs[read->depth - 1] == ER_PC_UNWIND_FAILED && !rescanned_this_poll) {
    /* Stopped at its first frame: code the mappings may not hold yet
     * (they come from /proc here, once a second and when a clock sample
     * meets unknown code: a thread that waits takes no samples).  Read
     * again where they changed, once per poll at most. */
    rescanned_this_poll = 1;
    if (col_modules_rescan()) {
      col_unwind_forget_modules();
      errno = 0;
      blocked_stack_read(process, tid, 1, pcs, max, read);
    }
  }
}

/* The wait thread T is in now (its figures NOW): the one read before while
 * it has not reached a CPU since (shared, not copied), else read now; not
 * known where it runs, or ran while it was read. */
static struct wait_read wait_now(const struct proc_thread *t, const struct sched_figures *now)
{
  struct wait_read w = {0};
  if (t->wait.known && t->wait.slices == now->slices)
    return t->wait;
  static uint64_t pcs[ER_MAX_STACK_DEPTH + 1];
  read_thread(t->tid, pcs, ER_MAX_STACK_DEPTH + 1, &w.read);
  if (w.read.state != BLOCKED_WAITS && w.read.state != BLOCKED_STOPPED)
    return w;
  figures.stack_reads++;
  if (w.read.depth == 0) {
    figures.stacks_not_read++;
    figures.read_errno = errno;
  }
  struct sched_figures after;
  if (!read_figures(t->tid, &after) || after.slices != now->slices) {
    figures.stack_reads_torn++; /* it ran while being read */
    return (struct wait_read){0};
  }
  w.known = 1;
  w.slices = now->slices;
  w.depth = offcpu_keep_stack(&w.pcs, pcs, w.read.depth);
  return w;
}

static void record_wait(pid_t tid, int64_t ns, int64_t end, const struct wait_read *w)
{
  if (w != NULL && w->known)
    offcpu_on_measured(tid, ns, end, 0, &w->read, w->pcs, w->depth);
  else
    offcpu_on_measured(tid, ns, end, 0, NULL, NULL, 0);
}

/* T's time off its CPU from its last figures to NOW, in wait NOW_WAIT. */
static void account(const struct proc_thread *t, const struct sched_figures *now, const struct wait_read *now_wait)
{
  int64_t off = (now->at - t->last.at) - (int64_t)(now->run_ns - t->last.run_ns);
  if (off <= 0)
    return;
  int64_t on_queue = (int64_t)(now->queued_ns - t->last.queued_ns);
  if (on_queue > off)
    on_queue = off;
  if (on_queue > 0) {
    const uint64_t *pcs = NULL;
    size_t depth = tails_newest_stack(t->tid, &pcs);
    offcpu_on_measured(t->tid, on_queue, now->at, 1, NULL, pcs, depth);
  }
  int64_t waited = off - (on_queue > 0 ? on_queue : 0);
  if (waited <= 0)
    return;
  const struct wait_read *before = t->wait.known ? &t->wait : NULL, *after = now_wait->known ? now_wait : NULL;
  if (now->slices == t->last.slices || after == NULL || before == NULL) { /* one wait, or one known */
    record_wait(t->tid, waited, now->at, before != NULL ? before : after);
    return;
  }
  record_wait(t->tid, waited / 2, now->at, before);
  record_wait(t->tid, waited - waited / 2, now->at, after);
}

static void poll_thread(pid_t tid, int at_start)
{
  struct proc_thread **p = slot_of(tid), *t = *p;
  if (t == NULL) {
    if ((t = *p = calloc(1, sizeof *t)) == NULL)
      return;
    t->tid = tid;
  }
  t->generation = generation;
  struct sched_figures now;
  if (!read_figures(tid, &now))
    return;
  /* (at the start only the figures: the experiment's mappings are not
   * read yet, and a walk without them is kept as failed) */
  struct wait_read now_wait = at_start ? (struct wait_read){0} : wait_now(t, &now);
  if (t->last.at == 0 && !at_start) {
    /* Made since the last poll: off its CPU from its start (nothing run
     * nor queued before). */
    int64_t born = started_at(tid);
    t->last = (struct sched_figures){0, 0, 0, born > last_poll && born < now.at ? born : last_poll};
  }
  if (t->last.at != 0)
    account(t, &now, &now_wait);
  if (t->wait.pcs != now_wait.pcs)
    free(t->wait.pcs);
  t->wait = now_wait;
  t->last = now;
}

static void poll_all(int at_start)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)process);
  DIR *dir = opendir(path);
  if (dir == NULL)
    return;
  generation++;
  figures.polls++;
  rescanned_this_poll = 0;
  boot_minus_raw = now_on(CLOCK_BOOTTIME) - col_hrtime();
  unsigned threads = 0;
  for (struct dirent *d; (d = readdir(dir)) != NULL;) {
    pid_t tid = (pid_t)atoi(d->d_name);
    if (tid > 0) {
      poll_thread(tid, at_start);
      threads++;
    }
  }
  closedir(dir);
  for (int b = 0; b < BUCKETS; b++) /* threads that ended: their last interval is not known */
    for (struct proc_thread **p = &buckets[b]; *p != NULL;)
      if ((*p)->generation != generation)
        forget_slot(p);
      else
        p = &(*p)->next;
  int64_t grown = (int64_t)threads * NS_PER_THREAD;
  interval_ns = grown > OFFCPU_READ_MS * 1000000LL ? grown : OFFCPU_READ_MS * 1000000LL;
  figures.interval_ns = interval_ns;
}

void offcpu_from_proc_start(pid_t pid)
{
  offcpu_from_proc_finish();
  memset(&figures, 0, sizeof figures);
  process = pid;
  last_poll = col_hrtime();
  poll_all(1);
}

int64_t offcpu_from_proc_poll(int64_t now)
{
  if (process == 0)
    return -1;
  if (now - last_poll < interval_ns)
    return interval_ns - (now - last_poll);
  poll_all(0);
  last_poll = now;
  return interval_ns;
}

void offcpu_from_proc_finish(void)
{
  for (int b = 0; b < BUCKETS; b++)
    while (buckets[b] != NULL)
      forget_slot(&buckets[b]);
  process = 0;
}

void offcpu_from_proc_describe(struct offcpu_from_proc_figures *out)
{
  *out = figures;
}
