/* The sources the sampler process serves, in one table: each cycle they
 * are taken in this order up to the same cutoff (requests first, so that a
 * pause applies to samples still in the rings; traced events after the
 * rings' records, so that their stacks' libraries are known), and at the
 * end each says in log.xml what it recorded and lost.  A counter source
 * (hardware or kernel software events) is one more entry. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/experiment_log.h"
#include "core/recording_cost.h"
#include "core/status_file.h"
#include "core/trace_writer.h"
#include "sampler_descendants.h"
#include "sampler_events.h"
#include "sampler_state.h"
#include "er/er_offcpu.h"
#include "host_steal.h"
#include "offcpu_from_proc.h"
#include "sampler_offcpu.h"
#include "sampler_tails.h"
#include "sampler_writers.h"

struct sampler_source {
  const char *what;
  void (*take)(int64_t newest);
  void (*describe)(void);
};

static void take_requests(int64_t newest)
{
  sampler_take_requests();
}

/* The clock's samples and the kernel's records, all CPUs merged by time
 * (the CPU they cost is timed for log.xml). */
static void take_ring_records(int64_t newest)
{
  double cpu_before = col_thread_cpu_seconds();
  sampler_drain_ring_records(newest);
  col_recording_cost_add_records(col_thread_cpu_seconds() - cpu_before);
}

static void take_end_before_start(int64_t newest)
{
  sampler_take_end_before_start();
}

static void take_traced_events(int64_t newest)
{
  sampler_take_trace(newest);
  sampler_trace_rearm();
}

/* How the events reach the program's threads. */
static const char *events_opened(void)
{
  return !sampler.attached ? "inherited by every thread"
         : sampler.started_by_self || sampler.started_by_rank
             ? "events on every thread before main, inherited by threads created later"
             : "events on every thread at the attach, inherited by threads created later";
}

/* Where the kernel samples user mode only, the periods that ended in
 * its system calls are dropped; the tails put them on the thread's next
 * sample, in its own code: the total is right, its place is where the
 * thread went on, not where it called the kernel (an MPI rank spinning in
 * sched_yield inside MPI_Barrier had a third of that CPU time recorded in
 * MPI, the rest on its computation after).  Said where it is 5 % or more. */
static void describe_kernel_periods(uint64_t periods, uint64_t ticks)
{
  if (!sampler_exclude_kernel || periods == 0)
    return;
  double seconds = (double)periods * col_cfg.clock_interval_us / 1e6;
  col_log_comment("Kernel time: %llu period(s) (%.3f s) of CPU time that ended in the kernel, whose samples it "
                  "drops in user-mode-only sampling, recorded on each thread's next sample, where it ran its own "
                  "code again", (unsigned long long)periods, seconds);
  if (periods * 20 < ticks)
    return;
  col_status_add_note("%.0f %% of the CPU time (%.2f s) ran in the kernel (system calls, page faults), which it "
                      "samples only with kernel.perf_event_paranoid 1 or less, or CAP_PERFMON: recorded where each "
                      "thread next ran its own code, not where it entered the kernel",
                      100.0 * (double)periods / (double)ticks, seconds);
}

/* The thread tails (sampler_tails.c): at ENDS, for CPU time no full UNIT
 * reached, each thread's CPU time from HOW, minus its samples. */
static void describe_tails(const char *ends, const char *unit, const char *how)
{
  struct tails_stats tails;
  tails_describe(&tails);
  col_log_comment("Thread tails: %llu thread(s); %llu sample(s) recorded at %s or the end for CPU time no full %s "
                  "reached (each thread's %s, minus its samples), %llu of threads never sampled, under "
                  "<Thread-never-sampled> beneath the function they started in; %llu of threads with no stack "
                  "and no start function, %llu passed on to the "
                  "next thread ending with a stack",
                  (unsigned long long)tails.threads_ended, (unsigned long long)tails.samples_added, ends, unit, how,
                  (unsigned long long)tails.at_start_function, (unsigned long long)tails.unattributed,
                  (unsigned long long)tails.passed_on);
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  describe_kernel_periods(tails.kernel_periods, clock.ticks_appended);
  if (tails.beyond_cpu > 0)
    col_log_comment("Samples left out: %llu clock sample(s) that came sooner than their thread ran a period (by "
                    "its context switches): the kernel's timer for them restarts at each switch",
                    (unsigned long long)tails.beyond_cpu);
  /* Said where it changes the picture: a profile of threads shorter than
   * the interval (a thread per request) is their start functions'. */
  if (tails.at_start_function == 0 || tails.at_start_function * 20 < clock.ticks_appended)
    return;
  /* How to get them sampled: a shorter interval, which the program's
   * CPU-time timers cannot give (they fire at the kernel's tick). */
  const char *more = sampler.clock_in_program ? "with perf events allowed, a shorter interval would sample them"
                     : col_cfg.clock_interval_us > 1000 ? "a shorter interval samples them (collector profile timer "
                                                          "hi: 1 ms, or down to 100u)"
                                                        : "a shorter interval samples them (collector profile timer "
                                                          "down to 100u)";
  col_status_add_note("%.0f %% of the CPU time was in threads that ended before their first sample: recorded under "
                      "<Thread-never-sampled> beneath the functions they started in; %s",
                      100.0 * (double)tails.at_start_function / (double)clock.ticks_appended, more);
}

static void describe_clock(void)
{
  if (col_cfg.clock_interval_us <= 0 && sampler.clock_in_program) {
    col_log_comment("Clock profiling off: the kernel refused perf events; the sampler process %d learns of "
                    "threads, mappings and descendants from the runtime in each process and from /proc; %llu "
                    "thread(s) seen", (int)getpid(), (unsigned long long)sampler.threads_seen);
    return;
  }
  if (col_cfg.clock_interval_us <= 0) {
    col_log_comment("Clock profiling off: the sampler process %d outside the program keeps one event per CPU "
                    "(perf_event dummy, %s) for the records of threads, mappings and execs; %llu thread(s) seen",
                    (int)getpid(), events_opened(),
                    (unsigned long long)sampler.threads_seen);
    return;
  }
  if (sampler.clock_in_program) { /* the program's timers, said with the sources' counts (experiment_lifecycle.c) */
    col_log_comment("Clock profiling: the sampler process %d unwound and wrote the samples the program's threads "
                    "took themselves (perf events refused), %zu-byte stack copies through the trace ring; %llu "
                    "thread(s) seen", (int)getpid(), col_cfg.stack_copy_bytes,
                    (unsigned long long)sampler.threads_seen);
    describe_tails("thread ends", "interval", "CPU time read by the thread itself at its end");
    return;
  }
  int sample_rings = 0, switch_rings = 0; /* a ring of each kind per CPU, or one holding both */
  size_t switch_ring_bytes = 0;
  for (int i = 0; i < sampler_n_rings; i++) {
    sample_rings += sampler_rings[i].holds_samples;
    if (!sampler_rings[i].holds_samples && sampler_rings[i].holds_switches) {
      switch_rings++;
      switch_ring_bytes = sampler_rings[i].bytes - (size_t)sysconf(_SC_PAGESIZE);
    }
  }
  char switch_text[96] = "switches and mappings in the same rings";
  if (switch_rings > 0)
    snprintf(switch_text, sizeof switch_text, "%d of %zu KiB for the threads' switches and mappings", switch_rings,
             switch_ring_bytes / 1024);
  col_log_comment("Clock profiling: sampler process %d outside the program (perf_event task-clock, %d ring(s) of "
                  "%zu KiB for samples, %s, %s, no signals, nothing inside the program), interval %ld us, "
                  "%zu-byte stack copies, %s; %llu thread(s) seen",
                  (int)getpid(), sample_rings, sampler_ring_data_bytes / 1024, switch_text,
                  events_opened(),
                  col_cfg.clock_interval_us, col_cfg.stack_copy_bytes,
                  sampler_exclude_kernel ? "user mode only (kernel.perf_event_paranoid >= 2)" : "user and system time",
                  (unsigned long long)sampler.threads_seen);
  describe_tails("thread exits", "period", "on-CPU time from context switches");
  struct col_clock_figures clock;
  col_clock_writer_describe(&clock);
  host_steal_describe((double)clock.ticks_appended * (double)col_cfg.clock_interval_us / 1e6);
  struct sampler_events_figures events;
  sampler_events_describe(&events);
  if (events.unattached_threads > 0)
    col_log_final_warning(COL_WARN_TEXT, "clock sampling could not start on %u of the %u thread(s) running at the attach "
                          "(perf_event_open: %s); their CPU time is not recorded",
                          events.unattached_threads, events.unattached_threads + events.attached_threads,
                          strerror(events.attach_errno));
  uint64_t lost_samples = sampler.lost_records - sampler.lost_switch_records;
  if (lost_samples > 0)
    col_log_final_warning(COL_WARN_TEXT, "the kernel lost %llu sample(s) (a samples ring was full before the sampler process "
                          "drained it); their CPU time is recorded at their threads' ends (thread tails), with the "
                          "threads' last stacks", (unsigned long long)lost_samples);
  if (sampler.lost_switch_records > 0)
    col_log_final_warning(COL_WARN_TEXT, "the kernel lost %llu record(s) of threads' switches, exits or mappings (a ring was "
                          "full before the sampler process drained it); the CPU time of threads running then is "
                          "under-counted", (unsigned long long)sampler.lost_switch_records);
}

/* Off-CPU time by reason, as log.xml says it for either source. */
static int offcpu_reasons_text(const struct offcpu_figures *off, char *out, size_t len)
{
  return snprintf(out, len,
                  "%.3f s waiting for a CPU, %.3f s asleep, %.3f s in I/O, %.3f s on a lock, %.3f s blocked "
                  "otherwise, %.3f s stopped (by GDB or a signal), %.3f s in page faults on code, %.3f s on data; "
                  "one packet each time all threads' time off CPU crosses a multiple of the interval",
                  off->seconds[ER_OFFCPU_RUNNABLE], off->seconds[ER_OFFCPU_SLEEP], off->seconds[ER_OFFCPU_IO],
                  off->seconds[ER_OFFCPU_LOCK], off->seconds[ER_OFFCPU_BLOCKED], off->seconds[ER_OFFCPU_STOPPED],
                  off->seconds[ER_OFFCPU_TEXT_FAULT], off->seconds[ER_OFFCPU_DATA_FAULT]);
}

static void warn_reads_refused(uint64_t refused)
{
  col_log_final_warning(COL_WARN_TEXT, "reading %llu waiting thread(s) for their stacks was refused (the program made "
                        "itself not dumpable, or changed who may trace it): their waits have no stack",
                        (unsigned long long)refused);
  col_status_add_note("off-CPU stacks: reading %llu waiting thread(s) was refused (the program made itself not "
                      "dumpable, or changed who may trace it), their waits are recorded without a stack",
                      (unsigned long long)refused);
}

/* Where perf events were refused: from /proc (offcpu_from_proc.c). */
static void describe_offcpu_from_proc(const struct offcpu_figures *off, const char *reasons)
{
  struct offcpu_from_proc_figures proc;
  offcpu_from_proc_describe(&proc);
  col_log_comment("Off-CPU time (numstates 10), from /proc (the kernel refused perf events, whose context-switch "
                  "records it is otherwise measured by): each thread's time run and queued "
                  "(/proc/PID/task/TID/schedstat) every %lld ms, %llu poll(s), %llu read(s); %s; waiting threads "
                  "read from outside while they waited (%llu read(s), %llu dropped as the thread ran meanwhile): "
                  "%.3f s of waits with a stack so read, %.3f s with none (waits that began and ended between two "
                  "polls, or whose reading failed); time waiting for a CPU with the thread's newest clock sample's "
                  "stack",
                  (long long)(proc.interval_ns / 1000000), (unsigned long long)proc.polls,
                  (unsigned long long)proc.thread_reads, reasons, (unsigned long long)proc.stack_reads,
                  (unsigned long long)proc.stack_reads_torn, off->seconds_stack_read, off->seconds_without_stack);
  if (proc.stacks_not_read > 0 && (proc.read_errno == EACCES || proc.read_errno == EPERM))
    warn_reads_refused(proc.stacks_not_read);
  col_status_add_note("off-CPU time measured from /proc every %lld ms (the kernel refused perf events): waits "
                      "shorter than that are recorded without their stacks",
                      (long long)(proc.interval_ns / 1000000));
}

static void describe_offcpu(void)
{
  if (!col_cfg.offcpu)
    return;
  struct offcpu_figures off;
  offcpu_describe(&off);
  char reasons[600];
  offcpu_reasons_text(&off, reasons, sizeof reasons);
  if (sampler.clock_in_program) {
    describe_offcpu_from_proc(&off, reasons);
    return;
  }
  struct sampler_events_figures events;
  sampler_events_describe(&events);
  col_log_comment("Off-CPU time (numstates 10): %llu period(s) off a CPU from the kernel's context switches, %s; "
                  "stacks from a sample at each switch out (%u event(s), in rings of their own; %llu of those "
                  "samples lost by the kernel), and read from %llu thread(s) while they waited (%.3f s of waits "
                  "with a stack so read, %.3f s with none)",
                  (unsigned long long)off.periods, reasons, events.switch_stacks_opened,
                  (unsigned long long)sampler.lost_switch_stacks, (unsigned long long)off.reads,
                  off.seconds_stack_read, off.seconds_without_stack);
  if (off.reads_failed > 0 && (off.read_errno == EACCES || off.read_errno == EPERM))
    warn_reads_refused(off.reads_failed);
  if (events.switch_stacks_opened == 0 && off.seconds_without_stack >= 0.0005)
    col_log_final_warning(COL_WARN_TEXT, "%.3f s off CPU recorded per thread and reason without the call stacks where threads "
                          "waited (waits too short to be read from outside while they lasted, or where reading was "
                          "refused): the kernel shows a thread's stack at each context switch only where samples in "
                          "its context are allowed (%s); with kernel.perf_event_paranoid 1 or less, or CAP_PERFMON, "
                          "every wait has its stack",
                          off.seconds_without_stack,
                          events.switch_stacks_errno == EACCES || events.switch_stacks_errno == EPERM
                              ? "kernel.perf_event_paranoid is 2 or more here"
                              : strerror(events.switch_stacks_errno));
}

static void describe_counters(void)
{
  if (col_cfg.n_hwc == 0)
    return;
  char list[ER_HWC_MAX_COUNTERS * 80];
  size_t at = 0;
  for (int i = 0; i < col_cfg.n_hwc && at < sizeof list; i++) {
    int n = snprintf(list + at, sizeof list - at, "%s%s every %llu event(s)", i > 0 ? ", " : "",
                     col_cfg.hwc[i].name, (unsigned long long)col_cfg.hwc[i].interval);
    at += n > 0 ? (size_t)n : 0;
  }
  struct col_trace_figures written;
  col_trace_writer_describe(&written);
  struct tails_stats tails;
  tails_describe(&tails);
  col_log_comment("Counters: %s; perf_event overflow samples into the clock's per-CPU rings (registers and "
                  "stack copies, no signals, nothing inside the program); %llu overflow(s) written, %llu not "
                  "written; %llu of them for threads' tails (each ended thread's count, read by the kernel, "
                  "less its overflows: %llu read(s))", list, (unsigned long long)written.written[ER_KIND_HWC],
                  (unsigned long long)written.not_written[ER_KIND_HWC], (unsigned long long)tails.counter_samples_added,
                  (unsigned long long)tails.counter_reads);
  struct sampler_events_figures events;
  sampler_events_describe(&events);
  if (events.counters_refused > 0)
    col_log_final_warning(COL_WARN_TEXT, "the kernel refused %u counter event(s) (perf_event_open: %s); those counts are "
                          "missing", events.counters_refused, strerror(events.counter_errno));
}

/* Requests the program could not post (the control page's slots all
 * taken, as in a fork storm where the sampler reads /proc for mappings):
 * never a silent count, and said by what was lost.  Where perf events are
 * refused a fork's news is how its child is found (300 forks recorded 296
 * with "0 could not be"); a descendant's end is also its process's exit,
 * which ends its experiment all the same (300 forks with perf events: 157
 * ends lost, 300 experiments whole). */
static uint64_t dropped_of(const enum col_control_kind *kinds, size_t n)
{
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += __atomic_load_n(&col_control->dropped_of_kind[kinds[i]], __ATOMIC_RELAXED);
  return sum;
}

/* ", COUNT TEXT" onto WHAT where COUNT is not 0. */
static void append_lost(char *what, size_t size, uint64_t count, const char *text)
{
  size_t used = strlen(what);
  if (count > 0 && used < size)
    snprintf(what + used, size - used, "%s%llu %s", used > 0 ? ", " : "", (unsigned long long)count, text);
}

static void describe_requests(void)
{
  uint64_t dropped = col_control != NULL ? __atomic_load_n(&col_control->dropped, __ATOMIC_RELAXED) : 0;
  if (dropped == 0)
    return;
  static const enum col_control_kind news[] = {COL_CTL_EXEC_START, COL_CTL_EXEC_FAILED, COL_CTL_SPAWN,
                                               COL_CTL_SPAWN_DONE,  COL_CTL_FORKED,      COL_CTL_EXECED,
                                               COL_CTL_FORKED_UNFOLLOWED};
  static const enum col_control_kind ends[] = {COL_CTL_CLOSE};
  static const enum col_control_kind asked[] = {COL_CTL_SAMPLE, COL_CTL_PAUSE, COL_CTL_RESUME};
  static const enum col_control_kind unloads[] = {COL_CTL_UNLOADED, COL_CTL_UNLOADING, COL_CTL_FUNC_UNLOAD};
  static const enum col_control_kind ranks[] = {COL_CTL_RANK_SELF, COL_CTL_JOB_FORWARDING};
  uint64_t lost_news = dropped_of(news, sizeof news / sizeof news[0]);
  uint64_t lost_ends = dropped_of(ends, 1);
  uint64_t lost_asked = dropped_of(asked, sizeof asked / sizeof asked[0]);
  uint64_t lost_unloads = dropped_of(unloads, sizeof unloads / sizeof unloads[0]);
  uint64_t lost_ranks = dropped_of(ranks, sizeof ranks / sizeof ranks[0]);
  uint64_t named = lost_news + lost_ends + lost_asked + lost_unloads + lost_ranks;
  uint64_t lost_other = dropped > named ? dropped - named : 0;
  char what[768] = "";
  append_lost(what, sizeof what, lost_news, "news of forks, execs or spawns (up to that many descendants may be missing)");
  append_lost(what, sizeof what, lost_ends, "ends of descendants (taken from their processes' exits instead)");
  append_lost(what, sizeof what, lost_asked, "sample points, pauses or resumes the program asked for");
  append_lost(what, sizeof what, lost_unloads, "unloads of libraries or generated code (a library loaded later at "
                                               "the same address may be named after the one unloaded)");
  append_lost(what, sizeof what, lost_ranks, "MPI ranks' own words (their rank or their launcher's forwarding: "
                                             "taken from their environment instead)");
  append_lost(what, sizeof what, lost_other, "other requests");
  col_log_final_warning(COL_WARN_TEXT, "%llu request(s) of the program's runtime were lost to a full control page "
                        "(%d slots): %s", (unsigned long long)dropped, COL_CONTROL_SLOTS, what);
  col_status_add_note("%llu of the runtime's requests lost to a full control page: %s", (unsigned long long)dropped,
                      what);
}

static void describe_descendants(void)
{
  struct writers_figures writers;
  writers_describe(&writers);
  if (writers.started > 0)
    col_log_comment("Descendants: %u process(es) recorded as sub-experiments of this one (%u could not be)",
                    writers.started, writers.failed);
  /* fork()s' children the runtime counted that the sampler never saw (a
   * storm of 2000: 1231 recorded, the rest silent before) */
  uint64_t children = col_control != NULL ? __atomic_load_n(&col_control->forked_children, __ATOMIC_RELAXED) : 0;
  if (children > writers.forks) {
    unsigned long long unseen = (unsigned long long)(children - writers.forks);
    const char *why = sampler.clock_in_program
                          ? "their news was lost to a full control page (the kernel refused perf events, whose fork "
                            "records would have found them)"
                          : "the kernel lost their fork records (its ring was full before the sampler process "
                            "drained it: a fork storm)";
    col_log_final_warning(COL_WARN_TEXT, "%llu of the %llu process(es) the program's processes forked were not "
                          "recorded: %s", unseen, (unsigned long long)children, why);
    col_status_add_note("%llu of %llu forked process(es) not recorded (%s)", unseen, (unsigned long long)children,
                        sampler.clock_in_program ? "their news lost to a full control page"
                                                 : "the kernel lost their fork records in the storm");
  }
  /* The children of spawn calls and clone() the runtime told of that got
   * no experiment (a storm of 250 posix_spawns: 30 not recorded, GDB
   * silent), where every descendant is followed. */
  unsigned told = col_control != NULL ? (unsigned)__atomic_load_n(&col_control->spawned_children, __ATOMIC_RELAXED) : 0;
  /* (a spawn's child whose call's news was lost is recorded as a fork:
   * the forks seen beyond those fork() made) */
  unsigned as_forks = writers.forks > children ? writers.forks - (unsigned)children : 0;
  if (sampler.follow.mode == ER_FOLLOW_ALL && told > writers.spawned + as_forks) {
    unsigned unseen = told - writers.spawned - as_forks;
    const char *why = sampler.clock_in_program
                          ? "their news was lost to a full control page"
                          : "the kernel lost their fork or exec records (its ring was full before the sampler "
                            "process drained it: a storm of processes)";
    col_log_final_warning(COL_WARN_TEXT, "%u of the %u process(es) the program's spawn calls (posix_spawn, "
                          "pidfd_spawn, clone) started were not recorded%s: %s", unseen, told,
                          writers.spawned_unstarted > 0 ? " (those announced in this log have no experiment)" : "",
                          why);
    col_status_add_note("%u of %u spawned process(es) not recorded (%s)", unseen, told,
                        sampler.clock_in_program ? "their news lost to a full control page"
                                                 : "the kernel lost their records in the storm");
  }
  descendants_warn();
}

static const struct sampler_source sources[] = {
    {"the program's and GDB's requests (control page)", take_requests, describe_requests},
    {"clock samples and the kernel's records (per-CPU rings)", take_ring_records, describe_clock},
    {"the program's end, asked before the record that starts its experiment was read", take_end_before_start, NULL},
    {"traced events (trace ring)", take_traced_events, sampler_trace_describe},
    {"counter overflows (in the per-CPU rings, taken with the clock's records)", NULL, describe_counters},
    {"threads' time off their CPU (from the switch records, taken with the clock's; else from /proc)", NULL,
     describe_offcpu},
    {"descendants (their writers)", NULL, describe_descendants},
};
#define N_SOURCES (sizeof sources / sizeof sources[0])

void sampler_sources_take(int64_t newest)
{
  for (size_t i = 0; i < N_SOURCES; i++)
    if (sources[i].take != NULL)
      sources[i].take(newest);
}

void sampler_describe(void)
{
  for (size_t i = 0; i < N_SOURCES; i++)
    if (sources[i].describe != NULL)
      sources[i].describe();
}
