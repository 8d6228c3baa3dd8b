/* What the sampler process does with each perf record: samples unwound
 * and written, mappings, threads' switches and exits (their tails), forks
 * (descendants), and the exec that starts (or, in a descendant's writer,
 * renews) the experiment. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/capture.h"
#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_writers.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/status_file.h"
#include "core/target.h"
#include "core/thread_names.h"
#include "core/trace_writer.h"
#include "unwind/clock_perf.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "er/er_fileutil.h"
#include "trace_ring.h"
#include <sys/mman.h>

#include "er/er_format.h"
#include "blocked_stack.h"
#include "sampler_descendants.h"
#include "core/job_settings.h"
#include "sampler_events.h"
#include "sampler_spawns.h"
#include "sampler_state.h"
#include "host_steal.h"
#include "offcpu_from_proc.h"
#include "program_stacks.h"
#include "sampler_offcpu.h"
#include "sampler_tails.h"
#include "sampler_writers.h"

struct sampler_state sampler = {.close_reason = "exit", .closing_at = INT64_MAX};

/* TID counted once; 1 the first time. */
static int note_thread(pid_t tid)
{
  if (tid <= 0 || (size_t)tid >= sampler.tid_seen_bits || (sampler.tid_seen[tid / 8] & (1u << (tid % 8))))
    return 0;
  sampler.tid_seen[tid / 8] |= (unsigned char)(1u << (tid % 8));
  sampler.threads_seen++;
  return 1;
}

void sampler_mappings_from_records(void)
{
  if (!sampler.clock_in_program) /* (without perf events, /proc all along) */
    col_modules_use_records();
}

void sampler_start_experiment(void)
{
  if (col_experiment_open_files() != 0 || col_data_writers_start() != 0) {
    sampler.finished = sampler.start_failed = 1; /* the status file says why */
    return;
  }
  sampler.started = 1;
  host_steal_start(col_cfg.check_steal_budget);
  tails_set_steal_estimate(host_steal_on_cpu);
  if (col_control != NULL) { /* where the runtime writes generated code's bytes (dynamic_functions.c) */
    snprintf(col_control->experiment_path, sizeof col_control->experiment_path, "%s", col_exp.path);
    if (col_job_settings_write(col_control->job_settings, sizeof col_control->job_settings, col_exp.path) != 0)
      col_control->job_settings[0] = '\0'; /* ranks elsewhere are not recorded: said by the launcher's runtime */
    __atomic_store_n(&col_control->experiment_run_tstamp, col_exp.run_tstamp, __ATOMIC_RELEASE);
    col_control_wake_waiters();
  }
  col_status_write(&col_cfg, "active", NULL);
}

/* A PERF_RECORD_MMAP2 of the program: an executable mapping. */
static void on_mapping(const unsigned char *rec, uint16_t size)
{
  const unsigned char *p = rec + sizeof(struct perf_event_header);
  uint32_t pid, prot, flags;
  uint64_t addr, len, pgoff, ino;
  if (size < sizeof(struct perf_event_header) + 64)
    return;
  memcpy(&pid, p, 4);
  memcpy(&addr, p + 8, 8);
  memcpy(&len, p + 16, 8);
  memcpy(&pgoff, p + 24, 8);
  memcpy(&ino, p + 40, 8);
  memcpy(&prot, p + 56, 4);
  memcpy(&flags, p + 60, 4);
  char name[PATH_MAX];
  size_t room = size - (sizeof(struct perf_event_header) + 64);
  snprintf(name, sizeof name, "%.*s", (int)strnlen((const char *)p + 64, room), (const char *)p + 64);
  if ((pid_t)pid != col_target_pid || !sampler.started)
    return;
  unsigned modes = (prot & PROT_READ ? 1u : 0) | (prot & PROT_WRITE ? 2u : 0) | (prot & PROT_EXEC ? 4u : 0) |
                   (flags & MAP_SHARED ? 8u : 0);
  int64_t t = 0;
  memcpy(&t, rec + COL_PERF_TRAILER_TIME(size), 8);
  if (col_modules_add(addr, addr + len, pgoff, modes, (unsigned long)ino, name, t))
    col_unwind_forget_modules();
}

/* A clock sample is written (unless it came after the end asked for) and
 * counted for its thread's tail. */
static void on_sample(const unsigned char *rec, uint16_t size)
{
  struct col_capture cap;
  pid_t pid;
  if (col_perf_parse_sample(rec, size, &cap, &pid) != 0)
    return;
  if (pid != col_target_pid) {
    /* (its CPU time only: a fork storm's switch-out samples, counted as
     * periods, made 2000 children of 0.3 s "about 38.73 s") */
    if (!sampler_event_samples_switches(cap.event_id) && sampler_counter_of_event(cap.event_id) < 0)
      descendants_on_sample(pid, cap.weight);
    return;
  }
  sampler.last_record_at = cap.tstamp;
  static uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  note_thread(cap.tid);
  if (cap.tstamp >= sampler.closing_at)
    return; /* after the end asked for, or the program's exec: neither written nor counted in tails */
  if (sampler_event_samples_switches(cap.event_id)) { /* where a thread left its CPU: no CPU time */
    /* (at a breakpoint: one past the trap, col_pc_before_trap) */
    cap.regs.r[PERF_REG_X86_IP] = col_pc_before_trap(cap.regs.r[PERF_REG_X86_IP]);
    offcpu_on_stack(cap.tid, cap.tstamp, pcs, col_unwind_uncounted(&cap, pcs, ER_MAX_STACK_DEPTH + 1));
    return;
  }
  int counter = sampler_counter_of_event(cap.event_id);
  if (counter >= 0) { /* a counter's overflow: its packet, not CPU time */
    size_t n = col_counter_writer_write(&cap, (uint32_t)counter, col_cfg.hwc[counter].interval, pcs);
    tails_on_counter_sample(&cap, (unsigned)counter, pcs, n, sampler_thread_owns_events(cap.tid));
    return;
  }
  if (!host_steal_admits_sample(pid, cap.tid, (uint64_t)col_cfg.clock_interval_us * 1000, cap.tstamp)) {
    tails_on_clock_sample(&cap, pcs, 0); /* a period of its own time is spent all the same */
    return;
  }
  if (tails_sample_beyond_cpu(cap.tid, cap.cpu, cap.tstamp))
    return; /* (more than the thread ran: not a period of its time) */
  if (sampler_exclude_kernel) /* (kernel-mode samples dropped: their periods end here) */
    cap.weight += tails_kernel_periods(cap.tid, cap.cpu, cap.tstamp);
  size_t n = col_clock_writer_write_stack(&cap, pcs);
  tails_on_clock_sample(&cap, pcs, n);
}

/* A record as the kernel writes it with sample_id_all: BODY, then the
 * trailer (pid/tid, time, CPU, id). */
static void as_kernel_record(uint16_t type, uint16_t misc, const void *body, size_t len, pid_t pid, pid_t tid,
                             int64_t tstamp)
{
  unsigned char rec[sizeof(struct perf_event_header) + 64 + COL_PERF_TRAILER_BYTES];
  len = len < 64 ? (len + 7) & ~(size_t)7 : 64;
  uint16_t size = (uint16_t)(sizeof(struct perf_event_header) + len + COL_PERF_TRAILER_BYTES);
  memset(rec, 0, sizeof rec);
  struct perf_event_header h = {type, misc, size};
  memcpy(rec, &h, sizeof h);
  memcpy(rec + sizeof h, body, len);
  uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};
  memcpy(rec + COL_PERF_TRAILER_TID(size), ids, sizeof ids);
  memcpy(rec + COL_PERF_TRAILER_TIME(size), &tstamp, sizeof tstamp);
  sampler_on_record(rec, type, size, RING_SWITCHES);
}

/* PID's parent and name from /proc (0 when it is gone). */
static pid_t parent_in_proc(pid_t pid, char *comm, size_t len)
{
  char path[64], text[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  const char *fields = er_proc_stat_fields(path, text, sizeof text);
  int ppid = 0;
  if (fields == NULL || sscanf(fields, "%*c %d", &ppid) != 1)
    return 0;
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  if (er_read_text(path, comm, len) <= 0)
    comm[0] = '\0';
  comm[strcspn(comm, "\n")] = '\0';
  return (pid_t)ppid;
}

static int shell_news; /* the news being handled is of a shell the sampler learns of from its child */

static int known_process(pid_t pid)
{
  return pid == col_target_pid || writers_has_route(pid);
}

void sampler_on_fork_news(pid_t pid, pid_t ppid, pid_t ptid, int64_t tstamp)
{
  struct {
    uint32_t pid, ppid, tid, ptid;
    int64_t time;
  } fork = {(uint32_t)pid, (uint32_t)ppid, (uint32_t)pid, (uint32_t)ptid, tstamp};
  as_kernel_record(PERF_RECORD_FORK, 0, &fork, sizeof fork, pid, pid, tstamp);
}

void sampler_on_exec_news(pid_t pid, pid_t tid, pid_t ppid, const char *comm, int64_t tstamp)
{
  if (!known_process(pid) && ppid > 0 && !known_process(ppid)) {
    /* Its parent carried no runtime (system's and popen's shell, which
     * passes it on to the command only): the parent first, as the
     * kernel's records would have shown it, when it is a child of ours. */
    char parent_comm[32];
    pid_t grandparent = parent_in_proc(ppid, parent_comm, sizeof parent_comm);
    if (grandparent > 0 && known_process(grandparent)) {
      shell_news = 1; /* a shell's exec: claimed by system or popen */
      sampler_on_exec_news(ppid, ppid, grandparent, parent_comm, tstamp - 1);
      shell_news = 0;
    } else {
      ppid = col_target_pid; /* (gone: the command is taken for the spawn's child itself) */
    }
  }
  /* A spawn's child: no fork handler ran in it, its exec is the first
   * word; its fork's thread unknown: any spawn call of the parent's that
   * fits. */
  if (!known_process(pid) && ppid > 0)
    sampler_on_fork_news(pid, ppid, shell_news ? SPAWNS_ANY_SHELL : SPAWNS_ANY_PROGRAM, tstamp);
  struct {
    uint32_t pid, tid;
    char comm[24];
  } exec = {(uint32_t)pid, (uint32_t)tid, ""};
  snprintf(exec.comm, sizeof exec.comm, "%s", comm);
  as_kernel_record(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, &exec, sizeof exec, pid, tid, tstamp);
}

/* The program's own clock samples (perf events refused): written as
 * perf's are, from the stack copy STACK (LEN bytes: program_stacks.h); a
 * thread's end brings the CPU time its samples do not stand for, into its
 * tail (sampler_tails.c). */
static void write_program_sample(const struct col_trace_event *e, const unsigned char *stack, size_t len)
{
  if (!sampler.started || e->end >= sampler.closing_at)
    return;
  sampler.last_record_at = e->end;
  if (note_thread(e->tid))
    col_clock_source_count_timer(0); /* a thread of the program's timers */
  if (e->ip == 0 && e->sp == 0) { /* a thread's end */
    struct col_thread_end_tail end;
    if (e->payload_len < sizeof end)
      return;
    memcpy(&end, e->payload, sizeof end);
    sampler_take_thread_starts(); /* (a short thread ends before its creator posts where it started) */
    /* (whole intervals of what no sample found; the rest is sampled as a tail) */
    int64_t interval_ns = (int64_t)col_cfg.clock_interval_us * 1000;
    uint32_t unplaced = interval_ns > 0 && end.unplaced_ns > 0 ? (uint32_t)(end.unplaced_ns / interval_ns) : 0;
    col_clock_writer_unplaced(e->tid, e->cpu, e->end, unplaced, end.unplaced_pc);
    tails_on_measured_exit(e->tid, e->cpu, e->end, end.unsampled_ns - (int64_t)unplaced * interval_ns);
    return;
  }
  struct col_capture cap;
  col_trace_event_capture(e, &cap);
  cap.stack = stack;
  cap.stack_len = len;
  struct col_clock_sample_payload sample; /* (every sample's handler sends one whole) */
  if (e->payload_len >= sizeof sample) {
    memcpy(&sample, e->payload, sizeof sample);
    cap.weight = sample.weight;
    cap.beyond = &sample.beyond;
    cap.unplaced = sample.unplaced;
    cap.unplaced_pc = sample.unplaced_pc;
    cap.omp_regions = sample.omp_regions;
  }
  static uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  tails_on_program_sample(e->tid, pcs, col_clock_writer_write_stack(&cap, pcs));
}

void sampler_on_program_sample(const struct col_trace_event *e)
{
  program_stacks_on_event(e, write_program_sample);
}

/* A thread's switch onto or off a CPU, or its exit (sample_id_all: pid,
 * tid, time and CPU end the record). */
static void on_thread_record(const unsigned char *rec, uint16_t type, uint16_t size)
{
  const struct perf_event_header *h = (const void *)rec;
  uint32_t ids[2], cpu;
  int64_t t;
  memcpy(ids, rec + COL_PERF_TRAILER_TID(size), 8);
  memcpy(&t, rec + COL_PERF_TRAILER_TIME(size), 8);
  memcpy(&cpu, rec + COL_PERF_TRAILER_CPU(size), 4);
  if ((pid_t)ids[0] != col_target_pid || (sampler.finished && t >= sampler.closing_at))
    return;
  sampler.last_record_at = t;
  uint64_t totals[ER_HWC_MAX_COUNTERS];
  /* A short thread can end before its creator posts the function it
   * starts in (pthread_create returns after the thread ran): the posts
   * that came since the cycle's start, before its tail is placed. */
  if (type == PERF_RECORD_EXIT)
    sampler_take_thread_starts();
  if (type == PERF_RECORD_EXIT) { /* its counts are in its parent events' now */
    tails_on_thread_exit((pid_t)ids[1], cpu, t, sampler_counter_totals(totals, t) == 0 ? totals : NULL);
    offcpu_on_thread_exit((pid_t)ids[1]);
    host_steal_forget_thread((pid_t)ids[1]);
    return;
  }
  int out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
  tails_on_switch((pid_t)ids[1], out, cpu, t);
  if (col_cfg.offcpu)
    offcpu_on_switch((pid_t)ids[1], out, (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0, cpu, t);
}

/* Threads off their CPU are read from outside where this process may:
 * their stops, and their stacks where the kernel gives none (said once). */
static void read_waiting_threads(void)
{
  static int said;
  if (!col_cfg.offcpu)
    return;
  int err = blocked_stack_access(col_target_pid);
  if (err == 0)
    offcpu_read_from_outside(col_target_pid);
  struct sampler_events_figures events;
  sampler_events_describe(&events);
  if (said || events.switch_stacks_opened > 0)
    return;
  said = 1;
  if (err == 0)
    col_status_add_note("off-CPU stacks read from the waiting threads: waits shorter than a few milliseconds are "
                        "recorded without theirs (the kernel gives every one with kernel.perf_event_paranoid 1 or "
                        "less, or CAP_PERFMON)");
  else
    col_status_add_note("off-CPU time recorded without the stacks where threads waited (the kernel gives them "
                        "with kernel.perf_event_paranoid 1 or less, or CAP_PERFMON, and reading them from the "
                        "waiting threads was refused: %s)",
                        err == EPERM || err == EACCES
                            ? "the program may not be traced by this user (kernel.yama.ptrace_scope, or a program "
                              "that is not dumpable)"
                            : strerror(err));
}

/* After an attach: the threads that wait, or are stopped, are off their
 * CPU from the run's start (GDB's attach stops them all, and they switch
 * in when it lets them go; a rank's own sampler process finds them
 * waiting, and one may wait to the end without a switch). */
static void threads_off_at_start(int64_t t)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)col_target_pid);
  DIR *dir = opendir(path);
  for (struct dirent *d; dir != NULL && (d = readdir(dir)) != NULL;) {
    pid_t tid = (pid_t)atoi(d->d_name);
    struct blocked_thread now = {BLOCKED_GONE, -2, FAULT_NONE, 0};
    if (tid > 0)
      blocked_stack_read(col_target_pid, tid, 0, NULL, 0, &now);
    if (now.state == BLOCKED_WAITS || now.state == BLOCKED_STOPPED)
      offcpu_on_switch(tid, 1, 0, 0, t);
  }
  if (dir != NULL)
    closedir(dir);
}

void sampler_accounts_start(int64_t t, int first_thread_born)
{
  uint64_t period_ns = (uint64_t)col_cfg.clock_interval_us * 1000;
  tails_init(period_ns, t);
  offcpu_init(period_ns, t);
  if (col_cfg.offcpu && sampler.clock_in_program) { /* no switch records: /proc's figures */
    offcpu_from_proc_start(col_target_pid);
    return;
  }
  if (first_thread_born)
    offcpu_on_thread_born(col_target_pid);
  else if (col_cfg.offcpu)
    threads_off_at_start(t);
  read_waiting_threads();
}

int64_t sampler_accounts_tick(int64_t upto)
{
  if (!col_cfg.offcpu || !sampler.started)
    return -1;
  return sampler.clock_in_program ? offcpu_from_proc_poll(col_hrtime()) : offcpu_read_waits(upto);
}

void sampler_accounts_end(int64_t t)
{
  program_stacks_flush(write_program_sample); /* (before the tails: their stacks) */
  offcpu_from_proc_finish();
  offcpu_finish(t);
  tails_finish(t);
}

/* A descendant's writer: its process exec'd COMM at T.  The pre-exec
 * experiment ends as gprofng ends one (exec_start, suspend_for_exec, no
 * exit event), and LINEAGE_xN.er begins with the new image, whose mappings
 * the kernel's records bring. */
static void start_after_exec(const char *comm, int64_t t)
{
  char next[sizeof sampler.writer_lineage];
  if (snprintf(next, sizeof next, "%.*s_x%u", (int)sizeof next - 16, sampler.writer_lineage, ++sampler.writer_execs) < 0)
    next[0] = '\0';
  int follow = er_follow_matches(&sampler.follow, next, comm);
  if (sampler.started) {
    sampler_accounts_end(t);
    col_data_writers_flush();
    col_experiment_descendant_event("exec_start", "exec", next, comm, t, follow);
    col_log_final_sample("suspend_for_exec");
    col_experiment_finish_after_exec(comm);
  }
  snprintf(sampler.writer_lineage, sizeof sampler.writer_lineage, "%s", next);
  snprintf(col_cfg.lineage, sizeof col_cfg.lineage, "%s", next);
  col_cfg.archive_mode = sampler.writer_archive_mode; /* its new objects, into the founder's archives/ */
  sampler.writer_execs = 0; /* the counter restarts in each process image */
  col_unwind_forget_modules();
  col_modules_restart();
  col_run_started_at = t;
  sampler_accounts_start(t, 0);
  sampler.started = sampler.finished = 0;
  sampler.closing_at = INT64_MAX; /* an end the old image asked for was its own */
  sampler.close_reason = "exit";
  if (follow) /* else (collector descendants =REGEX) nothing is written until an exec that matches */
    sampler_start_experiment();
  sampler_mappings_from_records();
}

/* A descendant of this experiment's process started: desc_start in its
 * log, with the lineage the router gave it (a spawn's child is an exec of
 * this image, so it advances the image's exec counter as the router's). */
static void on_descendant_record(const struct sampler_descendant_record *d)
{
  if (d->kind == DESCENDANT_SPAWN && sampler.writer_mode)
    sampler.writer_execs++;
  if (!sampler.started)
    return;
  const char *program = d->kind == DESCENDANT_SPAWN ? d->msg : NULL;
  char first_word[100];
  if (program != NULL) { /* gprofng's rule matches the command's program */
    snprintf(first_word, sizeof first_word, "%.*s", (int)strcspn(program, " "), program);
    const char *slash = strrchr(first_word, '/');
    program = slash != NULL ? slash + 1 : first_word;
  }
  col_experiment_descendant_event("desc_start", d->variant, d->lineage, d->msg, d->tstamp,
                                  er_follow_matches(&sampler.follow, d->lineage, program));
}

/* A new process (or thread): a descendant of the founder gets a writer and
 * a desc_start in its parent's log (the founder's here; a writer's, for
 * its own children, through a record of ours: the router names them). */
static void on_fork(const unsigned char *rec, uint16_t size)
{
  uint32_t ids[4]; /* pid, ppid, tid, ptid */
  int64_t t;
  memcpy(ids, rec + sizeof(struct perf_event_header), 16);
  memcpy(&t, rec + sizeof(struct perf_event_header) + 16, 8);
  if (ids[0] == ids[1] && (pid_t)ids[0] == col_target_pid)
    offcpu_on_thread_born((pid_t)ids[2]); /* a new thread: never off its CPU before it ran */
  if (sampler.writer_mode)
    return;
  pid_t pid = (pid_t)ids[0], ppid = (pid_t)ids[1];
  if (pid == ppid && pid == col_target_pid)
    sampler_events_split_contexts(pid); /* a new thread: no context swaps with the older ones */
  struct sampler_descendant_record d = {.header = {SAMPLER_RECORD_DESCENDANT, 0, sizeof d}, .tstamp = t};
  d.kind = DESCENDANT_FORK;
  if (pid != ppid && spawns_claim(pid, ppid, (pid_t)ids[3], t, d.variant, sizeof d.variant, d.msg, sizeof d.msg))
    d.kind = strcmp(d.variant, "clone") == 0 ? DESCENDANT_CLONE : DESCENDANT_SPAWN;
  if (d.kind == DESCENDANT_CLONE)
    snprintf(d.msg, sizeof d.msg, "pid=%d", (int)pid);
  if (d.kind == DESCENDANT_FORK) {
    snprintf(d.variant, sizeof d.variant, "fork");
    snprintf(d.msg, sizeof d.msg, "pid=%d", (int)pid);
  }
  /* The founder's log takes what happened before its end (a request to
   * end may be taken before records older than it); descendants that
   * outlive it are followed on. */
  int founder_open = t < sampler.closing_at;
  int followed = writers_on_fork(pid, ppid, (pid_t)ids[2], t, (enum descendant_kind)d.kind, d.lineage, sizeof d.lineage);
  if (followed == 1 && ppid == col_target_pid && founder_open)
    on_descendant_record(&d);
  else if (followed == 1)
    writers_forward(ppid, (const unsigned char *)&d, sizeof d);
  else if (followed != 1 && founder_open)
    descendants_on_fork(pid, ppid, (pid_t)ids[2], t);
}

/* A COMM record's name (after its pid and tid; the record holds it
 * NUL-padded, then sample_id_all) into NAME. */
static void comm_of(const unsigned char *rec, uint16_t size, char *name, size_t len)
{
  const size_t at = sizeof(struct perf_event_header) + 8;
  snprintf(name, len, "%.*s", (int)strnlen((const char *)rec + at, size - at), (const char *)rec + at);
}

/* A COMM record without MISC_COMM_EXEC: a thread of the program named
 * itself (pid, tid, the name, then sample_id_all). */
static void on_rename(const unsigned char *rec, uint16_t size)
{
  const size_t body = sizeof(struct perf_event_header);
  uint32_t pid, tid;
  char name[32];
  memcpy(&pid, rec + body, 4);
  memcpy(&tid, rec + body + 4, 4);
  if ((pid_t)pid != col_target_pid)
    return;
  comm_of(rec, size, name, sizeof name);
  col_thread_names_note((pid_t)tid, name);
}

/* A COMM record with MISC_COMM_EXEC: an exec, of the program or a
 * descendant (pid, tid, the new program's name, then sample_id_all). */
static void on_exec(const unsigned char *rec, uint16_t size)
{
  const size_t body = sizeof(struct perf_event_header);
  uint32_t pid;
  int64_t t;
  char comm[32];
  memcpy(&pid, rec + body, 4);
  memcpy(&t, rec + COL_PERF_TRAILER_TIME(size), 8);
  comm_of(rec, size, comm, sizeof comm);
  if ((pid_t)pid != col_target_pid) {
    descendants_on_exec((pid_t)pid, comm);
  } else if (sampler.writer_mode) {
    start_after_exec(comm, t);
  } else if (sampler.started) {
    /* The program exec'd (the kernel's record is the proof; the runtime's
     * request may be taken after it): its new image goes to a writer. */
    char lineage[32];
    if (sampler.follow.mode != ER_FOLLOW_NONE && er_follow_matches(&sampler.follow, NULL, comm) &&
        writers_on_founder_exec(t, comm, lineage, sizeof lineage) == 1) {
      /* the program's new image: _x1.er (writers_describe tells the status) */
      if (sampler.exec_pending) /* GDB may read the status as soon as the new program ends */
        col_status_write(&col_cfg, "exec", sampler.exec_what);
    }
  } else if (!sampler.finished) {
    col_run_started_at = t; /* launch: the run begins at the exec */
    sampler_accounts_start(col_run_started_at, 1); /* stopped by GDB at its exec, then let go */
    sampler_start_experiment();
  }
}

/* A descendant's thread ended: its counts joined the parent events'
 * (the founder's), where they are no tail of this experiment. */
static void absorb_descendant_counts(const unsigned char *rec, uint16_t size)
{
  uint32_t pid;
  int64_t t;
  uint64_t totals[ER_HWC_MAX_COUNTERS];
  memcpy(&pid, rec + COL_PERF_TRAILER_TID(size), 4);
  memcpy(&t, rec + COL_PERF_TRAILER_TIME(size), 8);
  if ((pid_t)pid != col_target_pid && sampler_counter_totals(totals, t) == 0)
    tails_absorb_counters(totals);
}

void sampler_on_record(const unsigned char *rec, uint16_t type, uint16_t size, int ring_kind)
{
  const struct perf_event_header *h = (const void *)rec;
  if (type == PERF_RECORD_EXIT && col_cfg.n_hwc > 0 && !sampler.writer_mode && sampler.started &&
      size >= sizeof *h + COL_PERF_TRAILER_BYTES)
    absorb_descendant_counts(rec, size);
  if (!sampler.writer_mode && sampler.started && writers_route(rec, type, size))
    return; /* a followed descendant's: its writer's */
  if (type == PERF_RECORD_MMAP2) {
    on_mapping(rec, size);
  } else if (type == PERF_RECORD_FORK && sampler.started && size >= sizeof *h + 24) {
    on_fork(rec, size);
  } else if (type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
             size >= sizeof *h + 8 + COL_PERF_TRAILER_BYTES) {
    on_exec(rec, size);
  } else if (type == PERF_RECORD_COMM && size >= sizeof *h + 8 + COL_PERF_TRAILER_BYTES) {
    on_rename(rec, size);
  } else if (type == PERF_RECORD_SAMPLE && sampler.started) {
    on_sample(rec, size);
  } else if ((type == PERF_RECORD_SWITCH || type == PERF_RECORD_EXIT) && sampler.started &&
             size >= sizeof *h + COL_PERF_TRAILER_BYTES) {
    on_thread_record(rec, type, size);
  } else if (type == SAMPLER_RECORD_DESCENDANT && size == sizeof(struct sampler_descendant_record)) {
    struct sampler_descendant_record d;
    memcpy(&d, rec, sizeof d);
    on_descendant_record(&d);
  } else if (type == SAMPLER_RECORD_REQUEST && sampler.writer_mode && size == sizeof(struct sampler_request_record)) {
    struct sampler_request_record req;
    memcpy(&req, rec, sizeof req);
    sampler_apply_request(&req.request);
  } else if (type == SAMPLER_RECORD_TRACE && sampler.writer_mode && sampler.started) {
    sampler_trace_from_pipe(rec, size);
  } else if (type == SAMPLER_RECORD_END_UNSEEN && sampler.writer_mode && sampler.started && sampler.clock_in_program) {
    col_log_comment("This process's end was found in /proc (perf events refused: the kernel gives no end records)");
  } else if (type == SAMPLER_RECORD_END_UNSEEN && sampler.writer_mode && sampler.started) {
    col_log_warning(COL_WARN_TEXT, "The kernel lost this process's end record (its rings overflowed: many processes "
                    "started or ended at once); its end was found in /proc, and its last records may be missing");
  } else if (type == PERF_RECORD_LOST && size >= sizeof *h + 16) {
    uint64_t lost;
    memcpy(&lost, rec + sizeof *h + 8, 8);
    if (ring_kind == RING_SWITCH_STACKS) { /* stacks of off-CPU periods: the periods keep their time */
      sampler.lost_switch_stacks += lost;
      return;
    }
    sampler.lost_records += lost;
    if (ring_kind == RING_SWITCHES) { /* else samples only: the tails recover their time */
      sampler.lost_switch_records += lost;
      tails_on_records_lost();
    } else {
      tails_on_samples_lost();
    }
  }
}

