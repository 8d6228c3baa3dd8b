/* Hypervisor steal beside perf's clock.
 *
 * Measured in clean-clone CI runs: with 2.74 s of steal during one GDB run,
 * offcpu_mix's compute phase was recorded as 1.45 s of CPU where the thread's
 * own CPU clock said 1.00 s (and 1.61 s in another).  perf's task-clock
 * samples come from a timer on the guest's clock while the thread is
 * scheduled in, so time the host took from the virtual CPU under the
 * thread counts as its own; the thread's CPU clock (and getrusage, and
 * gprofng's statistics) leave it out.
 *
 * A sample cannot be told apart from the others, but a thread's own CPU
 * time can be read at any time (/proc/PID/task/TID/schedstat, the clock
 * that leaves steal out).  So while the host steals, each thread's samples
 * are held to its own CPU time: a sample that would take the thread's
 * recorded time beyond what it ran (plus a period) is left out.  The
 * host takes time at moments unrelated to the program's code, so the
 * samples left out are a random choice and each function keeps its share.
 * Without steal a thread's clock is read once, at its first sample (its
 * account's start); then only while the host steals, or while its samples
 * are still ahead of its clock, and only when they are ahead of its last
 * read. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blocked_stack.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/status_file.h"
#include "host_steal.h"

#define STEAL_SAID_SECONDS 0.1 /* below this, nothing worth a word */
#define STEAL_SAID_SHARE 0.02  /* of the recorded CPU */
#define STEAL_READ_EVERY_NS 100000000LL /* /proc/stat, at most this often */
#define STEAL_RECENT_NS 1000000000LL   /* samples are held to their threads' CPU this long after steal grew */
#define BUCKETS 1024
#define SCHEDSTAT_LAG_NS 10000000ULL

/* A thread's account from the first of its samples in a stretch of steal. */
struct thread_budget {
  struct thread_budget *next;
  pid_t tid;
  uint64_t base_ns;     /* its own CPU time then */
  uint64_t admitted_ns; /* the periods of its samples recorded since */
  uint64_t known_ns;    /* its own CPU time since base at the last read */
  int ahead;            /* its samples were ahead of its clock at the last read: held until they are not */
};

/* Each CPU's steal at the last polls, for the time a thread's stretch on
 * a CPU lost (sampler_tails.c counts those stretches from switch records). */
#define POLLS 32
#define MAX_CPUS 1024
struct steal_poll {
  int64_t at;      /* the experiment's clock */
  uint64_t *ticks; /* per CPU, in clock ticks; [all_cpus]: all of them */
};

static struct thread_budget *buckets[BUCKETS];
static struct steal_poll polls[POLLS];
static unsigned all_cpus;  /* the CPUs configured (at most MAX_CPUS): each poll's slots, then the sum's */
static unsigned n_polls, newest_poll, n_cpus;
static uint64_t ticks_at_start; /* all CPUs' steal when the run began */
static int64_t steal_until;
static int always_held;            /* the check (tests): held whether the host steals or not */
static uint64_t held_out, held_out_ns, clock_reads;

static void forget_all(void)
{
  for (int b = 0; b < BUCKETS; b++)
    while (buckets[b] != NULL) {
      struct thread_budget *t = buckets[b];
      buckets[b] = t->next;
      free(t);
    }
}

/* Each CPU's steal now into POLL, and all CPUs' (the "cpu" line); the
 * number of CPUs listed, 0 when /proc/stat gives no sum. */
static unsigned read_cpus_steal(struct steal_poll *poll)
{
  FILE *f = fopen("/proc/stat", "re");
  if (f == NULL)
    return 0;
  char line[512];
  unsigned n = 0;
  int sum_read = 0;
  while (fgets(line, sizeof line, f) != NULL && strncmp(line, "cpu", 3) == 0) {
    unsigned cpu = all_cpus;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
    const char *figures = line + 3;
    if (line[3] != ' ' && sscanf(line + 3, "%u", &cpu) != 1)
      break;
    figures += strcspn(figures, " ");
    if (sscanf(figures, "%llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle, &iowait, &irq,
               &softirq, &steal) != 8 || (line[3] != ' ' && cpu >= all_cpus))
      continue;
    poll->ticks[cpu] = steal;
    if (cpu == all_cpus)
      sum_read = 1;
    else if (cpu + 1 > n)
      n = cpu + 1;
  }
  fclose(f);
  return sum_read ? (n > 0 ? n : 1) : 0;
}

static void poll_now(int64_t now)
{
  unsigned next = n_polls == 0 ? 0 : (newest_poll + 1) % POLLS;
  struct steal_poll *poll = &polls[next];
  if (poll->ticks == NULL && (poll->ticks = calloc(all_cpus + 1, sizeof *poll->ticks)) == NULL)
    return;
  unsigned n = read_cpus_steal(poll);
  if (n == 0)
    return;
  poll->at = now;
  if (n_polls > 0 && poll->ticks[all_cpus] > polls[newest_poll].ticks[all_cpus])
    steal_until = now + STEAL_RECENT_NS;
  n_cpus = n > n_cpus ? n : n_cpus;
  newest_poll = next;
  n_polls += n_polls < POLLS;
}

void host_steal_start(int hold_always)
{
  always_held = hold_always;
  forget_all(); /* a writer forked from the sampler starts with none */
  if (all_cpus == 0) { /* once: the polls' slots are sized by it */
    long configured = sysconf(_SC_NPROCESSORS_CONF);
    all_cpus = configured < 1 ? 1 : configured > MAX_CPUS ? MAX_CPUS : (unsigned)configured;
  }
  n_polls = newest_poll = 0;
  steal_until = 0;
  held_out = held_out_ns = clock_reads = 0;
  poll_now(col_hrtime());
  ticks_at_start = n_polls > 0 ? polls[newest_poll].ticks[all_cpus] : 0;
}

/* The host has taken time lately (polled at most every STEAL_READ_EVERY_NS). */
static int stealing_now(void)
{
  int64_t now = col_hrtime();
  if (n_polls == 0 || now - polls[newest_poll].at >= STEAL_READ_EVERY_NS)
    poll_now(now);
  return now < steal_until || always_held;
}

/* The I-th poll from the oldest. */
static const struct steal_poll *poll_from_oldest(unsigned i)
{
  return &polls[(newest_poll + POLLS - (n_polls - 1) + i) % POLLS];
}

/* CPU's steal ticks at time AT, interpolated between the polls around it;
 * after the newest, at the pace of the newest two; before the oldest, the
 * oldest's (at least two polls). */
static double ticks_at(unsigned cpu, int64_t at)
{
  const struct steal_poll *a = poll_from_oldest(0), *b = a;
  if (at <= a->at)
    return (double)a->ticks[cpu];
  for (unsigned i = 1; i < n_polls; i++) {
    a = poll_from_oldest(i - 1);
    b = poll_from_oldest(i);
    if (at <= b->at)
      break;
  }
  double span = (double)(b->at - a->at);
  double pace = span > 0 ? ((double)b->ticks[cpu] - (double)a->ticks[cpu]) / span : 0;
  return (double)a->ticks[cpu] + pace * (double)(at - a->at);
}

uint64_t host_steal_on_cpu(uint32_t cpu, int64_t from, int64_t to)
{
  if (to <= from)
    return 0;
  stealing_now(); /* the polls reach the present */
  if (n_polls < 2 || poll_from_oldest(0)->ticks[all_cpus] == polls[newest_poll].ticks[all_cpus])
    return 0; /* none taken in the polls' span (each switch record asks) */
  unsigned which = cpu < n_cpus ? cpu : all_cpus;
  double ns = (ticks_at(which, to) - ticks_at(which, from)) * 1e9 / (double)sysconf(_SC_CLK_TCK);
  if (which == all_cpus && n_cpus > 0)
    ns /= n_cpus; /* the CPU not known: the CPUs' average */
  if (ns <= 0)
    return 0;
  return ns < (double)(to - from) ? (uint64_t)ns : (uint64_t)(to - from);
}

/* Thread TID's own CPU time so far (0: not readable, e.g. it has ended). */
static uint64_t own_cpu_ns(pid_t pid, pid_t tid)
{
  uint64_t ran, queued, slices;
  clock_reads++;
  return task_schedstat_read(pid, tid, &ran, &queued, &slices) ? ran : 0;
}

static struct thread_budget **slot_of(pid_t tid)
{
  struct thread_budget **p = &buckets[(unsigned)tid % BUCKETS];
  while (*p != NULL && (*p)->tid != tid)
    p = &(*p)->next;
  return p;
}

int host_steal_admits_sample(pid_t pid, pid_t tid, uint64_t period_ns, int64_t sampled_at)
{
  struct thread_budget **p = slot_of(tid), *t = *p;
  int stealing = stealing_now();
  if (t == NULL) {
    /* Every thread's account starts at its first sample, stealing or not
     * (one read of its clock): samples taken in a stretch of steal before
     * a poll saw it are then held back later, while the host steals or the
     * thread is still ahead (a daemon's 1.000 s read 1.051 s in a CI run
     * with 1.3 s of steal, its account started only once steal was seen). */
    uint64_t ran = own_cpu_ns(pid, tid);
    if (ran == 0 || (t = calloc(1, sizeof *t)) == NULL)
      return 1; /* ended already, or no room: not judged */
    /* Its CPU time when it was sampled: at most the wall time since less
     * (samples are read late, by varying amounts: a base read late made
     * the next samples look ahead, and 6 of 100 were left out). */
    int64_t since = col_hrtime() - sampled_at;
    t->tid = tid;
    t->base_ns = since > 0 && (uint64_t)since < ran ? ran - (uint64_t)since : 0;
    *p = t;
    return 1; /* the period before the base: this sample's */
  }
  /* A period, and at least 10 ms: schedstat's sum lags a running thread
   * by up to a scheduler tick (4 ms at 250 Hz). */
  uint64_t slack = period_ns > SCHEDSTAT_LAG_NS ? period_ns : SCHEDSTAT_LAG_NS;
  if ((stealing || t->ahead) && t->admitted_ns + period_ns > t->known_ns + slack) {
    uint64_t ran = own_cpu_ns(pid, tid);
    if (ran > t->base_ns)
      t->known_ns = ran - t->base_ns;
    t->ahead = ran != 0 && t->admitted_ns + period_ns > t->known_ns + slack;
    if (t->ahead) {
      held_out++;
      held_out_ns += period_ns;
      return 0;
    }
  }
  t->admitted_ns += period_ns;
  return 1;
}

void host_steal_forget_thread(pid_t tid)
{
  struct thread_budget **p = slot_of(tid), *t = *p;
  if (t != NULL) {
    *p = t->next;
    free(t);
  }
}

void host_steal_describe(double recorded_cpu)
{
  poll_now(col_hrtime());
  double stolen = n_polls > 0 ? (double)(polls[newest_poll].ticks[all_cpus] - ticks_at_start) /
                                    (double)sysconf(_SC_CLK_TCK)
                              : 0;
  if (always_held)
    col_log_comment("Steal check: every clock sample held to its thread's own CPU clock as where the host takes "
                    "time from this machine, %" PRIu64 " read(s) of those clocks, %" PRIu64 " sample(s) left out",
                    clock_reads, held_out);
  else if (held_out > 0)
    col_log_comment("Host steal: %" PRIu64 " clock sample(s) (%.3f s) left out where they took their threads' "
                    "recorded CPU beyond the threads' own CPU clocks (/proc/.../schedstat) while the host took time "
                    "from this machine", held_out, (double)held_out_ns / 1e9);
  if (stolen < STEAL_SAID_SECONDS || stolen < STEAL_SAID_SHARE * recorded_cpu)
    return;
  col_log_final_warning(COL_WARN_TEXT, "the host took %.2f s of this machine's CPU time during the run (hypervisor steal, "
                        "/proc/stat): perf's clock counts what it took from the program's threads as theirs; "
                        "%.2f s of such samples were left out where the threads' own CPU clocks could be read, the "
                        "rest (threads' last moments, their tails) may read up to that much high",
                        stolen, (double)held_out_ns / 1e9);
  col_status_add_note("the host took %.2f s of this machine's CPU during the run (hypervisor steal): %.2f s of "
                      "samples beyond the threads' own CPU clocks left out", stolen, (double)held_out_ns / 1e9);
}
