/* gdbcol-sampler: clock profiling from outside the program, as `perf
 * record` samples: the program gets no thread, no descriptor and no locked
 * memory, and stays single-threaded if it was.
 *
 *     gdbcol-sampler PID READY_FD PROGRAM [ARGS...]
 *
 * Started by gdbcol-launch (pid PID) before it execs PROGRAM; settings come
 * from the GDBCOL_* environment as for the runtime.  It opens one
 * task-clock event per CPU on PID with `inherit` (threads created later are
 * counted through it) and `enable_on_exec` (counting starts with the
 * program), writes one byte to READY_FD, and the launcher execs.  The exec's
 * COMM record starts the experiment; samples of PID are unwound with the
 * cached frame rules over the files named in /proc/PID/maps and written as
 * the runtime writes them.  When PID ends (also by kill -9) the rings are
 * drained and the experiment closed.  The runtime preloaded in the program
 * keeps no thread and no descriptor: the Collector API's and GDB's requests
 * (samples, pause, resume, the end, an exec) reach us on the control page,
 * as does GDB's stop counter (dbxsample).
 *
 *     gdbcol-sampler --attach PID READY_FD
 *
 * After `gdb -p`: GDB starts it while the process is stopped; it opens
 * events on every thread (sampler_events.c), starts the experiment, says
 * ready, and leaves GDB's process tree, so it outlives a detach. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "collector_internal.h"
#include "er/er_archive.h"
#include "er/er_format.h"
#include "er/er_text.h"
#include "sampler_descendants.h"
#include "sampler_events.h"
#include "sampler_tails.h"
#include "sampler_writers.h"

#define CYCLE_MS 50
#define STATUS_EVERY_NS 1000000000LL
#define FLUSH_EVERY_NS 250000000LL

static volatile sig_atomic_t terminated; /* SIGTERM, SIGINT */
static int writer_mode; /* a descendant's writer (sampler_writers.c) */
static unsigned writer_execs, writer_forks;
static char writer_lineage[128];
static int attached, started, start_failed, finished, exec_pending, exec_count;
static const char *close_reason = "exit";
static uint64_t stops_seen;
static int64_t closing_at = INT64_MAX; /* the end the program asked for */
static char exec_what[128];
static uint64_t lost_records, threads_seen;
static int64_t last_record_at;
static unsigned char *tid_seen; /* bitmap by thread id */
static size_t tid_seen_bits;

int col_collecting(void)
{
  return started && !finished;
}

void col_close_experiment(const char *why)
{
  finished = 1; /* the main loop ends the experiment */
}

static void on_record(const unsigned char *rec, uint16_t type, uint16_t size);

/* The rings are read in time order, all CPUs merged: a mapping recorded on
 * one CPU must be known before a sample taken after it on another, and a
 * sample taken before an exec must not meet the new image's mappings. */
struct pending_record {
  int64_t time;
  uint64_t pos;
  uint16_t size;
  int ring;
};

#define MAX_PENDING 65536
static struct pending_record pending[MAX_PENDING];

static int by_time(const void *a, const void *b)
{
  const struct pending_record *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->ring != y->ring ? x->ring - y->ring : (x->pos < y->pos ? -1 : x->pos > y->pos);
}

/* Every record carries the time: a sample after its pid/tid, the others
 * (sample_id_all) in the trailer, before the CPU. */
static int64_t record_time(struct sampler_ring *r, uint64_t pos, const struct perf_event_header *h)
{
  int64_t t = 0;
  uint64_t at = h->type == PERF_RECORD_SAMPLE ? pos + sizeof *h + 8 : pos + h->size - 16;
  if (h->size >= sizeof *h + 24)
    col_perf_ring_copy(r->ring, r->bytes, at, &t, sizeof t);
  return t;
}

static void drain_ring_records(void)
{
  static unsigned char record[65536];
  size_t n = 0;
  uint64_t heads[SAMPLER_MAX_CPUS];
  for (int i = 0; i < sampler_n_rings; i++) {
    struct sampler_ring *ring = &sampler_rings[i];
    struct perf_event_mmap_page *meta = ring->ring;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), pos = meta->data_tail;
    while (pos < head && n < MAX_PENDING) {
      struct perf_event_header h;
      col_perf_ring_copy(ring->ring, ring->bytes, pos, &h, sizeof h);
      if (h.size < sizeof h)
        break;
      pending[n++] = (struct pending_record){record_time(ring, pos, &h), pos, h.size, i};
      pos += h.size;
    }
    heads[i] = pos;
  }
  qsort(pending, n, sizeof pending[0], by_time);
  for (size_t k = 0; k < n; k++) {
    struct sampler_ring *r = &sampler_rings[pending[k].ring];
    const unsigned char *rec = col_perf_ring_record(r->ring, r->bytes, pending[k].pos, pending[k].size, record);
    const struct perf_event_header *h = (const void *)rec;
    on_record(rec, h->type, h->size);
  }
  for (int i = 0; i < sampler_n_rings; i++)
    __atomic_store_n(&((struct perf_event_mmap_page *)sampler_rings[i].ring)->data_tail, heads[i], __ATOMIC_RELEASE);
}

/* An exec request's text: "VARIANT:WHAT". */
static const char *exec_variant(const char *text, char *variant, size_t len)
{
  const char *colon = strchr(text, ':');
  if (colon == NULL) {
    snprintf(variant, len, "execve");
    return text;
  }
  snprintf(variant, len, "%.*s", (int)(colon - text), text);
  return colon + 1;
}

/* The program's and GDB's requests, at the times they carry. */
static void on_request(const struct col_control_record *r, void *unused)
{
  static char reason[sizeof r->text];
  char variant[32];
  const char *what;
  switch (r->kind) {
  case COL_CTL_SAMPLE:
    col_log_sample_at(r->text, r->tstamp);
    break;
  case COL_CTL_PAUSE:
    col_pause_at(r->text, r->tstamp);
    break;
  case COL_CTL_RESUME:
    col_resume_at(r->tstamp);
    break;
  case COL_CTL_CLOSE:
    snprintf(reason, sizeof reason, "%s", r->text);
    close_reason = reason;
    closing_at = r->tstamp; /* samples taken before it are still written */
    finished = 1;
    break;
  case COL_CTL_EXEC_START:
    /* The new image is not profiled (descendants are not followed yet);
     * what the old one left in the rings is written before the end. */
    sampler_events_enable(0);
    drain_ring_records();
    tails_finish(r->tstamp); /* the old image's threads end here */
    col_clock_writer_flush();
    what = exec_variant(r->text, variant, sizeof variant);
    col_experiment_exec_event("exec_start", variant, what, ++exec_count);
    col_log_final_sample("suspend_for_exec");
    col_status_write(&col_cfg, "exec", what);
    snprintf(exec_what, sizeof exec_what, "%s", what);
    exec_pending = 1;
    break;
  case COL_CTL_STATUS_FILE:
    /* A later GDB session adopted the experiment: report to it. */
    snprintf(col_cfg.status_path, sizeof col_cfg.status_path, "%s", r->text);
    col_status_write(&col_cfg, "active", NULL);
    break;
  case COL_CTL_EXEC_FAILED:
    what = exec_variant(r->text, variant, sizeof variant);
    col_experiment_exec_event("exec_error", variant, what, exec_count);
    col_log_warning(200, "%s of %s failed (%s); the experiment goes on", variant, what, strerror(r->err));
    col_status_write(&col_cfg, "active", NULL);
    exec_pending = 0;
    sampler_events_enable(1);
    break;
  }
}

static void take_requests(void)
{
  if (col_control == NULL)
    return;
  col_control_take_thread_starts(tails_on_thread_start);
  col_control_take(on_request, NULL);
  uint64_t stops = __atomic_load_n(&col_control->debugger_stops, __ATOMIC_ACQUIRE);
  if (stops != stops_seen) {
    stops_seen = stops;
    col_log_sample("gdb_stop");
  }
}

static void note_thread(pid_t tid)
{
  if (tid <= 0 || (size_t)tid >= tid_seen_bits)
    return;
  if (!(tid_seen[tid / 8] & (1u << (tid % 8)))) {
    tid_seen[tid / 8] |= (unsigned char)(1u << (tid % 8));
    threads_seen++;
  }
}

static void start_experiment(void)
{
  if (col_experiment_open_files() != 0 || col_clock_writer_start() != 0) {
    finished = start_failed = 1; /* the status file says why */
    return;
  }
  started = 1;
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
  if ((pid_t)pid != col_target_pid || !started)
    return;
  unsigned modes = (prot & PROT_READ ? 1u : 0) | (prot & PROT_WRITE ? 2u : 0) | (prot & PROT_EXEC ? 4u : 0) |
                   (flags & MAP_SHARED ? 8u : 0);
  int64_t t = 0;
  memcpy(&t, rec + size - 16, 8);
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
    descendants_on_sample(pid);
    return;
  }
  last_record_at = cap.tstamp;
  static uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  size_t n = 0;
  note_thread(cap.tid);
  if (!finished || cap.tstamp < closing_at)
    n = col_clock_writer_write_stack(&cap, pcs);
  tails_on_clock_sample(&cap, pcs, n);
}

/* A thread's switch onto or off a CPU, or its exit (sample_id_all: pid,
 * tid, time and CPU end the record). */
static void on_thread_record(const unsigned char *rec, uint16_t type, uint16_t size)
{
  const struct perf_event_header *h = (const void *)rec;
  uint32_t ids[2], cpu;
  int64_t t;
  memcpy(ids, rec + size - 24, 8);
  memcpy(&t, rec + size - 16, 8);
  memcpy(&cpu, rec + size - 8, 4);
  if ((pid_t)ids[0] != col_target_pid || (finished && t >= closing_at))
    return;
  last_record_at = t;
  if (type == PERF_RECORD_EXIT)
    tails_on_thread_exit((pid_t)ids[1], cpu, t);
  else
    tails_on_switch((pid_t)ids[1], (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0, t);
}

static void start_experiment(void);

/* A descendant's writer: its process exec'd COMM at T.  The pre-exec
 * experiment ends as gprofng ends one (exec_start, suspend_for_exec, no
 * exit event), and LINEAGE_xN.er begins with the new image, whose mappings
 * the kernel's records bring. */
static void start_after_exec(const char *comm, int64_t t)
{
  char next[sizeof writer_lineage];
  if (snprintf(next, sizeof next, "%.*s_x%u", (int)sizeof next - 16, writer_lineage, ++writer_execs) < 0)
    next[0] = '\0';
  tails_finish(t);
  col_clock_writer_flush();
  col_experiment_descendant_event("exec_start", "exec", next, comm, t, 1);
  col_log_final_sample("suspend_for_exec");
  col_experiment_finish_after_exec(comm);
  snprintf(writer_lineage, sizeof writer_lineage, "%s", next);
  snprintf(col_cfg.lineage, sizeof col_cfg.lineage, "%s", next);
  writer_forks = writer_execs = 0; /* counters restart in each process image */
  col_unwind_forget_modules();
  col_modules_restart();
  col_run_started_at = t;
  tails_init((uint64_t)col_cfg.clock_interval_us * 1000, t);
  started = 0;
  start_experiment();
  col_modules_use_records();
}

/* A new process (or thread): a descendant of the founder gets a writer and
 * a desc_start in its parent's log (the founder's here; a writer's for its
 * own children, which learns of them from the same record). */
static void on_fork(const unsigned char *rec, uint16_t size)
{
  uint32_t ids[4]; /* pid, ppid, tid, ptid */
  int64_t t;
  memcpy(ids, rec + sizeof(struct perf_event_header), 16);
  memcpy(&t, rec + sizeof(struct perf_event_header) + 16, 8);
  pid_t pid = (pid_t)ids[0], ppid = (pid_t)ids[1];
  char lineage[128], msg[48];
  snprintf(msg, sizeof msg, "pid=%d", (int)pid);
  if (writer_mode) {
    if (ppid == col_target_pid && pid != ppid) {
      snprintf(lineage, sizeof lineage, "%.*s_f%u", (int)sizeof lineage - 16, writer_lineage, ++writer_forks);
      col_experiment_descendant_event("desc_start", "fork", lineage, msg, t, 1);
    }
    return;
  }
  int followed = writers_on_fork(pid, ppid, (pid_t)ids[2], t, lineage, sizeof lineage);
  if (followed == 1 && ppid == col_target_pid)
    col_experiment_descendant_event("desc_start", "fork", lineage, msg, t, 1);
  else if (followed == 1)
    writers_forward(ppid, rec, size);
  else
    descendants_on_fork(pid, ppid, (pid_t)ids[2], t);
}

static void on_record(const unsigned char *rec, uint16_t type, uint16_t size)
{
  const struct perf_event_header *h = (const void *)rec;
  if (!writer_mode && started && writers_route(rec, type, size))
    return; /* a followed descendant's: its writer's */
  if (type == PERF_RECORD_MMAP2) {
    on_mapping(rec, size);
  } else if (type == PERF_RECORD_FORK && started && !finished && size >= sizeof *h + 24) {
    on_fork(rec, size);
  } else if (type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) && size >= sizeof *h + 8) {
    uint32_t pid;
    memcpy(&pid, rec + sizeof *h, 4);
    if ((pid_t)pid == col_target_pid && writer_mode && started) {
      char comm[32];
      snprintf(comm, sizeof comm, "%.*s", (int)strnlen((const char *)rec + sizeof *h + 8, size - sizeof *h - 8),
               (const char *)rec + sizeof *h + 8);
      int64_t t;
      memcpy(&t, rec + size - 16, 8);
      start_after_exec(comm, t);
    }
    if ((pid_t)pid != col_target_pid) {
      char comm[32];
      snprintf(comm, sizeof comm, "%.*s", (int)strnlen((const char *)rec + sizeof *h + 8, size - sizeof *h - 8),
               (const char *)rec + sizeof *h + 8);
      descendants_on_exec((pid_t)pid, comm);
    }
    if ((pid_t)pid == col_target_pid && !started && !finished) {
      memcpy(&col_run_started_at, rec + size - 16, 8); /* the exec's time */
      tails_init((uint64_t)col_cfg.clock_interval_us * 1000, col_run_started_at);
      start_experiment();
    }
  } else if (type == PERF_RECORD_SAMPLE && started) {
    on_sample(rec, size);
  } else if ((type == PERF_RECORD_SWITCH || type == PERF_RECORD_EXIT) && started && size >= sizeof *h + 24) {
    on_thread_record(rec, type, size);
  } else if (type == PERF_RECORD_LOST && size >= sizeof *h + 16) {
    uint64_t lost;
    memcpy(&lost, rec + sizeof *h + 8, 8);
    lost_records += lost;
  }
}

static int64_t last_status, last_periodic, last_flush;

/* Data reach the files every FLUSH_EVERY_NS (and at the end), not every
 * cycle: the program's crash cannot lose them (they are in this process),
 * and each flush costs system calls (measured with strace at 1 ms: the
 * per-cycle writes and their file-size checks were 72 % of the sampler's
 * system calls). */
static void drain_rings(int force_flush)
{
  if (started && !finished)
    take_requests(); /* first: a pause applies to samples still in the rings */
  drain_ring_records();
  if (!started)
    return;
  int64_t now = col_hrtime();
  col_clock_writer_wants_rescan(); /* mappings come from the kernel's records */
  if (force_flush || now - last_flush >= FLUSH_EVERY_NS) {
    col_clock_writer_flush();
    last_flush = now;
  }
  col_limit_note();
  if (col_cfg.sample_period_ms > 0 && now - last_periodic >= col_cfg.sample_period_ms * 1000000LL) {
    col_log_sample("periodic");
    last_periodic = now;
  }
  col_progress_refresh();
  if (now - last_status > STATUS_EVERY_NS) {
    col_status_write(&col_cfg, "active", NULL);
    last_status = now;
  }
}

static void describe_sampling(void)
{
  col_log_comment("Clock profiling: sampler process %d outside the program (perf_event task-clock, one ring of "
                  "%zu KiB per CPU on %d CPU(s), %s, no signals, nothing inside the program), interval %ld us, "
                  "%zu-byte stack copies, %s; %llu thread(s) seen",
                  (int)getpid(), sampler_ring_data_bytes / 1024, sampler_n_rings,
                  attached ? "events on every thread at the attach, inherited by threads created later"
                           : "inherited by every thread",
                  col_cfg.clock_interval_us, col_cfg.stack_copy_bytes,
                  sampler_exclude_kernel ? "user mode only (kernel.perf_event_paranoid >= 2)" : "user and system time",
                  (unsigned long long)threads_seen);
  col_log_comment("Thread tails: %llu thread(s); %llu sample(s) recorded at thread exits or the end for CPU time "
                  "no full period reached (each thread's on-CPU time from context switches, minus its samples), "
                  "%llu of threads never sampled, at the function they started in; %llu of threads with no stack "
                  "and no start function, %llu passed on to the next thread ending with a stack",
                  (unsigned long long)tails_stats.threads_ended, (unsigned long long)tails_stats.samples_added,
                  (unsigned long long)tails_stats.at_start_function, (unsigned long long)tails_stats.unattributed,
                  (unsigned long long)tails_stats.passed_on);
  if (writers_started > 0)
    col_log_comment("Descendants: %u process(es) recorded as sub-experiments of this one (%u could not be)",
                    writers_started, writers_failed);
  descendants_describe();
  if (sampler_unattached_threads > 0)
    col_log_final_warning(200, "clock sampling could not start on %u of the %u thread(s) running at the attach "
                          "(perf_event_open: %s); their CPU time is not recorded",
                          sampler_unattached_threads, sampler_unattached_threads + sampler_attached_threads,
                          strerror(sampler_attach_errno));
  if (lost_records > 0)
    col_log_final_warning(200, "the kernel lost %llu sample record(s) (a CPU ring was full before the sampler "
                          "process drained it); CPU time is under-counted by that much",
                          (unsigned long long)lost_records);
}

static void finish(void)
{
  if (writers_live() == 0)
    sampler_events_enable(0); /* else descendants still run: they are sampled on */
  drain_rings(1);
  if (closing_at == INT64_MAX)
    closing_at = last_record_at + 1; /* later records of the founder are not written */
  writers_wait(0); /* descendants that ended have closed their experiments */
  if (started && !exec_pending) { /* the threads still there: their tails up to the end */
    tails_finish(closing_at != INT64_MAX ? closing_at : last_record_at);
    col_clock_writer_flush();
  }
  if (!started) {
    if (!start_failed) /* else the status file already says why */
      col_status_write(&col_cfg, "error", "the program ended before it started (the exec did not happen)");
    return;
  }
  struct timespec cpu;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
  col_sampler_cpu_seconds = cpu.tv_sec + cpu.tv_nsec / 1e9;
  describe_sampling();
  if (exec_pending) {
    col_experiment_finish_after_exec(exec_what);
  } else {
    col_experiment_finish(close_reason);
  }
  finished = 1;
}

/* ---- descendants ------------------------------------------------------------ */

static int epoll_fd = -1, pidfd = -1;

#define WRITER_BUFFER (1 << 20)

/* One read from the founder sampler's pipe: the whole records in it are
 * handled, a partial one waits for the rest.  0 at the end of the pipe. */
static int take_from_pipe(int fd, unsigned char *buf, size_t *held)
{
  ssize_t n;
  while ((n = read(fd, buf + *held, WRITER_BUFFER - *held)) < 0 && errno == EINTR)
    ;
  if (n <= 0)
    return 0;
  *held += (size_t)n;
  size_t at = 0;
  while (*held - at >= sizeof(struct perf_event_header)) {
    struct perf_event_header h;
    memcpy(&h, buf + at, sizeof h);
    if (h.size < sizeof h)
      return 0; /* never from the sampler: give up rather than loop */
    if (*held - at < h.size)
      break;
    on_record(buf + at, h.type, h.size);
    at += h.size;
  }
  memmove(buf, buf + at, *held - at);
  *held -= at;
  return 1;
}

/* A descendant's writer (sampler_writers.c): experiments FOUNDER/LINEAGE.er
 * for process PID, from the records the founder sampler sends on FD. */
static void run_as_writer(pid_t pid, const char *lineage, int fd, int64_t tstamp)
{
  static unsigned char buf[WRITER_BUFFER];
  sampler_events_forget();
  close(epoll_fd);
  close(pidfd);
  col_calls_set_runtime_thread(gettid(), NULL); /* the files are this process's own now */
  writer_mode = 1;
  attached = started = finished = start_failed = exec_pending = 0;
  closing_at = INT64_MAX;
  lost_records = threads_seen = 0;
  memset(tid_seen, 0, tid_seen_bits / 8);
  col_control = NULL; /* requests are the founder's */
  col_target_pid = pid;
  col_target_command[0] = '\0';
  snprintf(writer_lineage, sizeof writer_lineage, "%s", lineage);
  snprintf(col_cfg.lineage, sizeof col_cfg.lineage, "%s", lineage);
  snprintf(col_cfg.store_dir, sizeof col_cfg.store_dir, "%s", col_exp.path); /* the founder */
  col_cfg.status_path[0] = col_cfg.group_path[0] = '\0';
  col_cfg.archive_mode = ER_ARCHIVE_OFF; /* the founder's archives/ serve its descendants */
  col_cfg.sample_period_ms = 0;
  col_unwind_forget_modules();
  if (strchr(lineage + 1, '_') == NULL)
    col_modules_inherit(); /* a child of the program: the mappings it had at the fork */
  else
    col_modules_restart(); /* a grandchild: what /proc says when the writer starts */
  col_run_started_at = tstamp;
  tails_init((uint64_t)col_cfg.clock_interval_us * 1000, tstamp);
  start_experiment();
  col_modules_use_records();
  size_t held = 0;
  int64_t last = col_hrtime();
  while (take_from_pipe(fd, buf, &held)) { /* read to the end: the sampler never waits on us */
    if (col_hrtime() - last >= FLUSH_EVERY_NS) {
      col_clock_writer_flush();
      last = col_hrtime();
    }
  }
  if (started) {
    tails_finish(last_record_at);
    col_clock_writer_flush();
    describe_sampling();
    col_experiment_finish("exit");
  }
  _exit(0);
}

/* After the founder's end: its descendants' records still come through the
 * rings until the last of them has ended (or the sampler is told to end). */
static void serve_descendants(void)
{
  struct epoll_event events[64];
  while (writers_live() > 0 && !terminated) {
    epoll_wait(epoll_fd, events, 64, CYCLE_MS);
    drain_ring_records();
    writers_wait(0);
  }
}

static void quiet_standard_descriptors(int keep)
{
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; fd++)
    if (fd != keep && null >= 0)
      dup2(null, fd);
  if (null > 2)
    close(null);
}

static void on_terminate(int sig)
{
  terminated = sig;
}

/* SIGTERM or SIGINT (GDB's plugin when the runtime could not join us, or a
 * user) ends the experiment properly; the program runs on. */
static void close_on_termination_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_terminate;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

static void usage(void)
{
  fprintf(stderr, "usage: gdbcol-sampler PID READY_FD PROGRAM [ARGS...]   (started by gdbcol-launch)\n"
                  "       gdbcol-sampler --attach PID READY_FD          (started by GDB's collector enable)\n");
}

/* Opens the events; after an attach also starts the experiment, whose run
 * begins now (at launch, the exec's COMM record begins it). */
static int begin(int epoll_fd, char *err, size_t err_len)
{
  if (!attached)
    return sampler_open_for_launch(col_target_pid, err, err_len);
  if (sampler_open_for_attach(col_target_pid, err, err_len) != 0)
    return -1;
  col_run_started_at = col_hrtime();
  tails_init((uint64_t)col_cfg.clock_interval_us * 1000, col_run_started_at);
  start_experiment(); /* the mappings: /proc/PID/maps now, records later */
  col_modules_use_records();
  if (start_failed) {
    snprintf(err, err_len, "%s", ""); /* the status file says why */
    return -1;
  }
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  col_log_comment("Collection started in a running process at %s: GDB attached; the sampler process opened "
                  "events on its %u thread(s)", when, sampler_attached_threads);
  sampler_events_enable(1);
  return 0;
}

int main(int argc, char **argv)
{
  attached = argc == 4 && strcmp(argv[1], "--attach") == 0;
  if (argc < 4 || (!attached && argv[1][0] == '-')) {
    usage();
    return 2;
  }
  col_target_pid = (pid_t)atoi(argv[attached ? 2 : 1]);
  int ready_fd = atoi(argv[attached ? 3 : 2]);
  if (attached && fork() != 0)
    _exit(0); /* GDB reaps this one; the sampler is no child of GDB's */
  setsid(); /* the terminal's signals are the program's, not ours */
  quiet_standard_descriptors(ready_fd);
  close_on_termination_signals();
  size_t used = 0;
  for (int i = 3; !attached && i < argc && used < sizeof col_target_command - 1; i++)
    used += (size_t)snprintf(col_target_command + used, sizeof col_target_command - used, "%s%s",
                             i > 3 ? " " : "", argv[i]);
  col_config_from_environment(&col_cfg);
  if (!attached)
    col_modules_use_records();
  col_calls_set_runtime_thread(gettid(), NULL);
  col_private_descriptors = 1; /* a process of its own */
  tid_seen_bits = 1u << 22;
  tid_seen = calloc(tid_seen_bits / 8, 1);
  if (col_cfg.status_path[0] != '\0')
    col_control_create(col_cfg.status_path); /* before "ready": the runtime maps it at start */
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  pidfd = (int)syscall(SYS_pidfd_open, col_target_pid, 0);
  writers_init(col_target_pid, run_as_writer);
  char err[300];
  if (tid_seen == NULL || epoll_fd < 0 || pidfd < 0 || col_unwind_init() != 0 ||
      begin(epoll_fd, err, sizeof err) != 0) {
    if (pidfd < 0 || epoll_fd < 0 || tid_seen == NULL)
      snprintf(err, sizeof err, "the sampler process could not start: %s", strerror(errno));
    if (err[0] != '\0')
      col_status_write(&col_cfg, "error", err);
    if (write(ready_fd, "E", 1) < 0) {
    }
    return 1;
  }
  sampler_events_watch(epoll_fd);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = pidfd};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, pidfd, &ev);
  if (write(ready_fd, "R", 1) < 0) {
  }
  close(ready_fd);
  last_status = last_periodic = col_hrtime();
  struct epoll_event events[64];
  int ended = 0;
  while (!ended && !finished) {
    int n = epoll_wait(epoll_fd, events, 64, CYCLE_MS);
    if (terminated) {
      close_reason = "the sampler process was asked to end";
      closing_at = col_hrtime();
      finished = 1;
    }
    for (int i = 0; i < n; i++)
      if (events[i].data.fd == pidfd)
        ended = 1; /* the program is gone (exit, kill -9, exec failure) */
    drain_rings(0);
  }
  finish();
  if (ended)
    serve_descendants(); /* the program exited: its descendants run on */
  writers_wait(1);       /* else (disable, a signal) theirs end with it */
  return 0;
}
