/* What crosses libcollector's folders (libcollector/README.md has the
 * map: core/, shared/, unwind/ run in both the program's runtime and the
 * sampler process; runtime/ and interpose/ only in the program; sampler/
 * only in the sampler process).  Folder-local interfaces live in their
 * folder's own headers (shared/trace_ring.h, interpose/trace_record.h,
 * sampler/sampler_state.h, ...).
 *
 * Data flow: a clock source captures (registers, raw stack bytes) for a
 * thread, a tracing wrapper records an event with its payload; the
 * sampler process (or, in the fallback, the runtime's thread) turns each
 * into a call stack and a packet.  Nothing but capturing happens in a
 * signal handler, and no capture path takes a lock or allocates. */
#ifndef COLLECTOR_INTERNAL_H
#define COLLECTOR_INTERNAL_H

#include <stdio.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "er/er_data_kinds.h"
#include "er/er_gdb_layout.h"
#include "er/er_hwc_events.h"
#include "er/er_datafile.h"
#include "er/er_recordfile.h"

/* ---- time ---------------------------------------------------------------- */

/* The experiment clock (§2.2): CLOCK_MONOTONIC_RAW nanoseconds. */
static inline int64_t col_hrtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- target.c: the process the experiment describes ----------------------- */

/* 0 while it is this process; the sampler process sets the program's pid. */
extern pid_t col_target_pid;
/* The program's command line when known better than /proc says (the
 * sampler process is told it before the exec). */
extern char col_target_command[4096];
pid_t col_target(void);
/* When the run began, if not when the experiment is opened (0). */
extern int64_t col_run_started_at;
/* "/proc/self/LEAF" or "/proc/PID/LEAF". */
void col_target_path(char *out, size_t len, const char *leaf);
struct col_target_ids {
  pid_t pid, ppid, pgrp, sid;
};
void col_target_ids(struct col_target_ids *ids);
int col_target_cwd(char *out, size_t len);
/* The command line, words separated by spaces; its length (0: unknown). */
size_t col_target_cmdline(char *out, size_t len);

/* ---- config.c ------------------------------------------------------------ */

struct col_config {
  char store_dir[PATH_MAX];   /* empty: the process's working directory */
  char experiment_name[NAME_MAX + 1]; /* empty: next test.N.er */
  char descendants[256];      /* on, off or =REGEX (empty: on) */
  char lineage[128];          /* a descendant's ("_f1"): its experiment is
                                 store_dir/LINEAGE.er, store_dir the founder */
  char status_path[PATH_MAX]; /* where the plugin reads our state; may be empty */
  long clock_interval_us;     /* 0: clock profiling off */
  size_t stack_copy_bytes;    /* user stack bytes captured per sample */
  long max_frames;            /* most frames a call stack keeps (collector profile depth) */
  int force_timer_source;     /* GDBCOL_CLOCK_SOURCE=timer: skip perf_event */
  int sampled_outside;        /* GDBCOL_CLOCK_SOURCE=process: the sampler process
                                 owns the experiment; the runtime only posts */
  int check_unwinder;         /* GDBCOL_UNWIND_CHECK=1: cross-check unwinders */
  long sample_period_ms;      /* periodic sample points; 0: manual only */
  long limit_mb;              /* cap on data files; 0: none */
  int archive_mode;           /* enum er_archive_mode, applied at the end */
  char group_path[PATH_MAX];  /* experiment group to join; may be empty */
  char runtime_objects[4096]; /* GDBCOL_RUNTIME_OBJECTS: the runtime's own libraries, ':'-separated */
  uint32_t traced_kinds;      /* 1 << enum er_kind for each traced kind on (its setting, er_data_kinds.h) */
  int n_hwc;                  /* GDBCOL_HWC: the counters profiled (tag = index) */
  struct er_hwc_resolved hwc[ER_HWC_MAX_COUNTERS];
  long sync_threshold_us;     /* waits at least this long; -1: calibrated */
};

/* Reads the GDBCOL_* variables.  Returns 1 when this process is the one the
 * user asked to profile, 0 when the runtime must stay inert (not launched by
 * the plugin, or loaded into a wrapper that execs the real target). */
int col_config_load(struct col_config *cfg);
/* The settings in the environment, whoever reads them (the sampler process). */
void col_config_from_environment(struct col_config *cfg);
/* The same settings from "NAME=value" lines (gdbcol_attach_start). */
void col_config_parse(struct col_config *cfg, const char *text);
/* Removes what the launcher added to the environment, so the program (and
 * anything it starts) sees the environment the user set. */
void col_config_scrub_environment(void);
/* Whether CFG records data KIND, and the attributes of its <profile> block. */
int col_kind_on(const struct col_config *cfg, enum er_kind kind);
void col_kind_attributes(const struct col_config *cfg, enum er_kind kind, char *out, size_t len);
/* 1 << enum er_kind for each kind the tracing wrappers record that is on. */
uint32_t col_traced_kinds(const struct col_config *cfg);
/* Nonzero when a kind recorded by the tracing wrappers is on. */
int col_tracing_on(const struct col_config *cfg);
/* Those kinds turned off (tracing could not start). */
void col_tracing_off(struct col_config *cfg);
/* Which traced kinds are on, for a message: "Synchronization-wait, I/O and heap tracing". */
void col_tracing_text(const struct col_config *cfg, char *out, size_t len);

/* ---- per-thread captures -------------------------------------------------- */

/* Registers in perf's x86_64 numbering (asm/perf_regs.h), so both clock
 * sources hand the unwinder the same layout. */
#define COL_NREGS 24
struct col_regs {
  uint64_t r[COL_NREGS];
};

/* One captured sample, ready for unwinding. */
struct col_capture {
  pid_t tid;
  uint32_t cpu;
  int64_t tstamp;
  uint32_t weight; /* clock ticks this sample stands for (1 + overruns) */
  uint64_t period; /* perf: the event's period (ns of CPU time); 0 in a counter's samples */
  struct col_regs regs;
  const unsigned char *stack; /* bytes from regs.r[SP] upward */
  size_t stack_len;
  uint64_t event_id; /* perf: the id of the event that took it */
};

typedef void (*col_capture_fn)(const struct col_capture *cap, void *arg);

/* ---- threads.c ----------------------------------------------------------- */

enum col_source_kind { COL_SOURCE_NONE, COL_SOURCE_PERF, COL_SOURCE_TIMER };

struct col_sample_ring;

struct col_thread {
  int in_use;         /* atomic: slot taken */
  int retired;        /* atomic: thread gone, slot waits for a final drain */
  pid_t tid;
  enum col_source_kind source;
  /* perf source */
  int perf_fd;
  void *perf_ring;
  size_t perf_ring_bytes;
  /* timer source */
  timer_t timer;
  struct col_sample_ring *ring;
  uintptr_t stack_lo, stack_hi;
  int64_t timer_cpu_ns; /* the thread's CPU time its samples stand for so far (its handler's) */
  /* statistics, written by the sampler thread */
  uint64_t samples, lost;
  uint64_t ticks; /* the samples' weights: intervals of CPU time */
  uint64_t last_stack_id; /* its last sample's stack (data.frameinfo), for its end's */
  uint64_t cpu_ns_seen;    /* its CPU time at the last check (blocked_signal.c) */
  int blocks_timer_signal; /* seen blocking COL_TIMER_SIGNAL */
};

/* runtime/blocked_signal.c: threads that block the timer signal are not
 * sampled; checked each thread scan, their unsampled CPU counted when they
 * end, said at the experiment's end (log.xml, status unsampled_ms). */
void col_blocked_signal_check(struct col_thread *t);
uint64_t col_blocked_signal_unsampled(const struct col_thread *t);
void col_blocked_signal_describe(void);
extern uint64_t col_unsampled_ns;
extern unsigned col_blocking_threads;

#define COL_MAX_THREADS 4096
extern struct col_thread col_threads[COL_MAX_THREADS];

/* A new slot for TID, or NULL when TID already has one or the table is
 * full.  Not for signal handlers. */
struct col_thread *col_thread_claim(pid_t tid);
void col_thread_release(struct col_thread *t);
/* The published slot of TID, or NULL.  Lock-free: signal handlers use it. */
struct col_thread *col_thread_find(pid_t tid);
/* Nonzero when TID has a slot, published or being set up. */
int col_thread_known(pid_t tid);

/* ---- clock sources -------------------------------------------------------- */

struct col_clock_stats {
  unsigned perf_threads, timer_threads, failed_threads;
  int perf_exclude_kernel; /* perf could only sample user mode */
  int last_perf_errno, last_timer_errno;
};

extern struct col_clock_stats col_clock_stats;

/* clock_source.c: start sampling the calling thread (or TID) with the best
 * available source.  Returns 0 or -errno. */
int col_clock_start_thread(pid_t tid);
void col_clock_stop_thread(struct col_thread *t);
void col_clock_stop_all(void);

/* clock_perf.c */
int col_perf_open(struct col_thread *t, long interval_us, size_t stack_bytes);
void col_perf_close(struct col_thread *t);
/* Frees the ring and descriptor; sampler only, after the final drain. */
void col_perf_release(struct col_thread *t);
/* Reads everything the kernel wrote; returns the number of captures. */
size_t col_perf_drain(struct col_thread *t, col_capture_fn fn, void *arg);
/* The clock event's attributes (task-clock, registers and stack copy).
 * Every event's records carry its id (PERF_SAMPLE_IDENTIFIER): a sample
 * begins with it, the others end with it, after the sample_id_all
 * trailer's pid/tid, time and CPU.  The ids tell the clock's samples from
 * each counter's where several events share a ring. */
#define COL_PERF_SAMPLE_TID_AT 16  /* header (8), IDENTIFIER (8) */
#define COL_PERF_SAMPLE_TIME_AT 24
#define COL_PERF_TRAILER_BYTES 32  /* pid/tid, time, CPU, id */
#define COL_PERF_TRAILER_TID(size) ((size)-32)
#define COL_PERF_TRAILER_TIME(size) ((size)-24)
#define COL_PERF_TRAILER_CPU(size) ((size)-16)
struct perf_event_attr;
void col_perf_clock_attr(struct perf_event_attr *attr, long interval_us, size_t stack_bytes, int exclude_kernel);
/* Any perf ring: FN gets every record (type, size) in order. */
typedef void (*col_record_fn)(const unsigned char *rec, uint16_t type, uint16_t size, void *arg);
size_t col_perf_ring_drain(void *ring, size_t ring_bytes, col_record_fn fn, void *arg);
/* LEN bytes at data position POS of a ring (wrapping at its end). */
void col_perf_ring_copy(void *ring, size_t ring_bytes, uint64_t pos, void *out, size_t len);
/* The record of LEN bytes at POS: in place, or copied into SCRATCH (64 KiB)
 * when it wraps around the ring's end. */
const unsigned char *col_perf_ring_record(void *ring, size_t ring_bytes, uint64_t pos, size_t len,
                                          unsigned char *scratch);
/* One sample record of the clock event's layout; 0 or -1. */
int col_perf_parse_sample(const unsigned char *rec, size_t len, struct col_capture *out, pid_t *pid);

/* clock_timer.c */
int col_timer_install_handler(void);
int col_timer_open(struct col_thread *t, long interval_us);
void col_timer_close(struct col_thread *t);
size_t col_timer_drain(struct col_thread *t);
/* On an ending thread (its timer deleted): its CPU time since its last
 * sample, as one more sample at its last stack. */
void col_timer_finish_thread(struct col_thread *t);
/* The real-time signal the fallback uses; the plugin tells GDB to pass it. */
#define COL_TIMER_SIGNAL 61

/* sample_ring.c: single producer (a thread's signal handler), single
 * consumer (the sampler thread). */
struct col_sample_ring *col_ring_create(size_t bytes);
/* Rings are never unmapped: a late signal handler may still be writing to
 * one after its slot was released.  A slot keeps its ring for reuse. */
void col_ring_reset(struct col_sample_ring *ring);
/* Producer side, async-signal-safe.  Returns 0, or -1 when full. */
int col_ring_push(struct col_sample_ring *ring, const struct col_capture *cap);
size_t col_ring_drain(struct col_sample_ring *ring, col_capture_fn fn, void *arg);

/* ---- unwind_walk.c / unwind_rules.c / unwind_copy.c ------------------------ */

/* Unwinds CAP into PCS (leaf first; callers as call-site addresses).  Adds
 * the truncated or unwind-failed marker when the walk ends early.  Cached
 * frame rules first, libunwind for what they cannot follow. */
size_t col_unwind(const struct col_capture *cap, uint64_t *pcs, size_t max);
/* Nonzero: also unwind every sample with libunwind and count disagreements. */
void col_unwind_check_mode(int enabled);
struct col_unwind_stats {
  uint64_t by_rules, by_libunwind, disagreements;
  uint64_t truncated; /* stacks cut where the stack copy ended */
  uint64_t truncated_depth; /* stacks cut at the frame limit (col_cfg.max_frames) */
  uint64_t stopped; /* another process's stacks the rules could not finish */
};
extern struct col_unwind_stats col_unwind_stats;

/* How to find the caller's frame from one code address (x86_64). */
enum col_rule_kind { COL_RULE_COMPLEX, COL_RULE_SIMPLE, COL_RULE_OUTERMOST };
enum col_cfa_base { COL_CFA_FROM_SP, COL_CFA_FROM_BP };
enum col_bp_rule { COL_BP_SAME, COL_BP_SAVED, COL_BP_LOST };
struct col_frame_rule {
  unsigned char kind, cfa_base, bp; /* enums above */
  int32_t cfa_offset;               /* CFA = base register + offset */
  int32_t bp_offset;                /* COL_BP_SAVED: caller's RBP at CFA + offset */
};
/* Where a walk (walk_rules.h) gets each frame's rule: 1 with *OUT filled, 0 when unknown. */
typedef int (*col_rule_source)(uint64_t lookup_pc, struct col_frame_rule *out, void *arg);
/* The rule at LOOKUP_PC (a leaf PC or a call site), cached. */
const struct col_frame_rule *col_frame_rule_for(uint64_t lookup_pc);
void col_frame_rules_forget(void);

int col_unwind_init(void);
/* Drops cached unwind info after the set of loaded objects changed. */
void col_unwind_forget_modules(void);
/* The libunwind walk (DWARF CFI interpreted at every step). */
size_t col_unwind_libunwind(const struct col_capture *cap, uint64_t *pcs, size_t max);

/* ---- module_map.c -------------------------------------------------------- */

int col_modules_open(int expdir_fd, int64_t run_tstamp);
/* Rereads /proc/self/maps and records new mappings and unmaps in map.xml;
 * returns nonzero when executable mappings changed (what the unwinder's
 * caches depend on).  Only the sampler thread (or the opener, before the
 * sampler starts) calls this. */
int col_modules_rescan(void);
/* PCS, a stack just recorded: a library of the runtime's it runs in is
 * listed from now on (the program uses it too). */
void col_modules_note_stack(const uint64_t *pcs, size_t n);
/* The sampler process: mappings come from the kernel's records
 * (col_modules_add), never from /proc.  */
void col_modules_use_records(void);
/* Another process's (a descendant writer's): nothing known; the next open
 * reads /proc/PID/maps. */
void col_modules_restart(void);
/* Or: what is known now is the descendant's too (a fork of the program). */
void col_modules_inherit(void);
/* A mapping the kernel reported at TSTAMP (absolute), recorded in map.xml;
 * returns nonzero when it replaced a mapping (cached unwind data is stale). */
int col_modules_add(uint64_t start, uint64_t end, uint64_t offset, unsigned modes, unsigned long inode,
                    const char *name, int64_t tstamp);
/* Nonzero when PC lies in an executable mapping seen by the last scan. */
int col_modules_knows_pc(uint64_t pc);
/* The bounds of the mapping (any kind) containing ADDR; 0 or -1. */
int col_modules_range_at(uint64_t addr, uint64_t *start, uint64_t *end);
/* The executable file mapping (or the vDSO) containing PC in the last scan:
 * 0, or -1.  NAME stays valid until the next rescan. */
struct col_mapped_object {
  uint64_t start, end, offset;
  unsigned long inode;
  const char *name;
};
int col_modules_object_at(uint64_t pc, struct col_mapped_object *out);
/* The inode of the file mapped at ADDR, 0 when unknown or anonymous. */
unsigned long col_modules_inode_at(uint64_t addr);
void col_modules_close(void);
/* The load objects map.xml names, each once (N of them). */
const char *const *col_modules_objects(size_t *n);

/* ---- experiment_log.c ----------------------------------------------------- */

struct col_experiment {
  int dirfd;
  char path[PATH_MAX];
  struct er_recordfile log, overview;
  int64_t run_tstamp;
  int next_sample_id;
  uint64_t samples_dropped; /* sample points that could not be written */
  struct er_datafile frameinfo;
  struct er_datafile data[ER_N_KINDS]; /* each data kind's file (er_data_kinds.h) */
};

extern struct col_experiment col_exp;

int col_log_open(const struct col_config *cfg, char *err, size_t err_len);
/* KIND's <profile> block, with ATTRIBUTES in its opening tag. */
void col_log_kind_block(enum er_kind kind, const char *attributes);
void col_log_settings(const struct col_config *cfg);
/* These run on the runtime's thread (handed to it from elsewhere).  FINAL
 * records close the experiment and may use the files' closing reserve. */
void col_log_sample(const char *label);
void col_log_sample_at(const char *label, int64_t tstamp);
void col_log_final_sample(const char *label);
/* A sample preceded by an event line (pause, resume) with the same time:
 * EVENT_XML is a format with one %s for the timestamp. */
void col_log_sample_with_event_at(const char *label, const char *event_xml, int64_t tstamp);
void col_log_comment(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void col_log_warning(int id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void col_log_final_warning(int id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ENDED_EARLY: why the collection ended while the program ran on, or NULL. */
void col_log_exit(const char *ended_early);
void col_log_close(void);
/* Removes what a failed col_log_open created. */
void col_log_discard(void);
/* The status file the plugin reads ("key=value" lines), replaced atomically. */
void col_status_write(const struct col_config *cfg, const char *state, const char *detail);
/* The last of GDB's requests for a current status (control page's
 * status_asked) the file answers: written as status_answer. */
extern uint64_t col_status_answer;
/* What the user gets less of, said in the status file (note=) for GDB's
 * closing line: a trace ring or control page that could not be made. */
extern char col_status_note[512];
/* One more such point, after those already there ("; " between them). */
void col_status_add_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- clock_writer.c / trace_writer.c: packets and their stacks ----------- */

/* Nonzero when data stamped TSTAMP is to be written (not paused, within
 * the limit; counted when kept out). */
int col_writer_wanted_at(int64_t tstamp);
/* ---- stack_store.c, data_writers.c: what every data writer shares --------- */

/* Anonymous zeroed memory for a writer's state (no malloc in a signal
 * handler's reach). */
void *col_map_zeroed(size_t bytes);
int col_stack_store_start(void);
/* The FRINFO of stack PCS[0..N) in data.frameinfo (0: not recorded). */
uint64_t col_writer_stack_id(const uint64_t *pcs, size_t n);
/* data.frameinfo flushed; 0 when a stack was lost (the packets not yet
 * written are given up). */
int col_writer_stacks_on_disk(void);
struct er_cursor;
/* Whether a packet of SIZE bytes using stack FRINFO may go to CURSOR now:
 * not when its stack was not recorded at the data limit, nor when it would
 * close a block before its stack reached the disk. */
int col_writer_may_append(struct er_cursor *cursor, uint64_t frinfo, size_t size);
/* Every data writer (clock packets, traced events) at once: started with an
 * experiment after the stack store, flushed after their stacks (and their
 * counts updated), given up when a stack could not be written. */
int col_data_writers_start(void);
void col_data_writers_flush(void);
void col_data_writers_abandon(int err);
struct col_trace_event;
/* A traced event unwound and written: its kind's packet, the common header
 * then its payload. */
void col_trace_writer_write(const struct col_trace_event *e);
int col_trace_writer_start(void);
void col_trace_writer_flush(void);
void col_trace_writer_count(void);
void col_trace_writer_abandon(int err);
/* Events of a traced kind, or counter overflows, written so far. */
uint64_t col_kind_events_written(enum er_kind kind);
/* Per data kind written here: packets written and not written (the latter
 * counted as they happen; the former updated by col_trace_writer_count). */
extern uint64_t col_kind_written[ER_N_KINDS], col_kind_not_written[ER_N_KINDS];
/* trace_writer.c, counter overflows (hwcounters): CAP's overflow of
 * counter TAG, standing for EVENTS events, unwound into PCS (room for
 * ER_MAX_STACK_DEPTH + 2); returns the stack's depth.  The packet alone:
 * a thread tail's, with a stack known already. */
size_t col_counter_writer_write(const struct col_capture *cap, uint32_t tag, uint64_t events, uint64_t *pcs);
void col_counter_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t tag, uint64_t events,
                               const uint64_t *pcs, size_t n);
/* How traced events' stacks came: walked on the program's thread, or unwound here from a copy. */
extern uint64_t col_trace_stacks_walked_here, col_trace_stacks_from_copies;

/* ---- sampler_thread.c ----------------------------------------------------- */

/* Starts the runtime's thread: it takes a descriptor table of its own, runs
 * START there (opening the experiment) and reports START's result; FINISH
 * runs there after the final drain (closing the experiment). */
int col_sampler_start(int (*start)(void), void (*finish)(void));
/* Nonzero when the runtime's thread has a descriptor table of its own. */
extern int col_private_descriptors;
/* The sampler's own thread id (never sampled). */
pid_t col_sampler_tid(void);
/* Drains every thread's captures and writes them now (runtime thread). */
void col_sampler_drain_now(void);
/* Nonzero after an injection: the sampler keeps GOT slots of objects loaded
 * later pointed at our wrappers. */
extern int col_patch_got;
/* Wakes the sampler (a thread ended) without waiting. */
void col_sampler_poke(void);
/* Final drain and join; bounded wait.  Returns 0 when the thread finished. */
int col_sampler_stop(void);
/* Perf descriptors are watched with epoll so the sampler wakes on data. */
void col_sampler_watch_fd(int fd);
/* ---- clock_writer.c: captures -> data.frameinfo + profile ------------------ */

int col_clock_writer_start(void);
/* A col_capture_fn: unwinds CAP and appends its packet (and new stack). */
void col_clock_writer_write(const struct col_capture *cap, void *arg);
/* The same, giving the stack it wrote in PCS (room for
 * ER_MAX_STACK_DEPTH + 2 frames); its depth, 0 when nothing was written. */
size_t col_clock_writer_write_stack(const struct col_capture *cap, uint64_t *pcs);
/* The same, giving the id of the stack it wrote (data.frameinfo's), 0
 * when nothing was written. */
uint64_t col_clock_writer_write_id(const struct col_capture *cap);
/* A packet of TICKS clock ticks for a stack already unwound (PCS), or
 * recorded already (FRINFO): the stack's id, 0 when nothing was written. */
uint64_t col_clock_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, const uint64_t *pcs,
                                 size_t n);
uint64_t col_clock_writer_packet_id(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t ticks, uint64_t frinfo);
/* Writes what was appended; the counts below; gives up what was not
 * written (its stacks were lost). */
void col_clock_writer_flush(void);
void col_clock_writer_count(void);
void col_clock_writer_abandon(int err);
/* Nonzero (once) when a sample's PC was outside every known mapping. */
int col_clock_writer_wants_rescan(void);
/* Clock packets on disk; captures lost to a write error. */
extern uint64_t col_samples_written, col_samples_not_written;
/* The intervals of CPU time the packets appended stand for (their NTICK). */
extern uint64_t col_ticks_appended;
extern uint64_t col_lost_samples;
/* CPU time the sampler thread itself used (set when it finishes). */
extern double col_sampler_cpu_seconds, col_sampler_system_share;
extern double col_sampler_record_seconds; /* of it: reading, unwinding and storing the records */
double col_thread_cpu_seconds(void);
void col_sampler_measure_cost(int rusage_who, clockid_t cpu_clock);

/* ---- runtime_calls.c ------------------------------------------------------- */

/* Runs FN(ARG) on the runtime's thread and waits for it (directly when
 * called there).  Returns 0, -ESRCH when that thread is not serving calls,
 * -ETIMEDOUT when it did not take the call in time (FN never ran). */
int col_on_runtime_thread(void (*fn)(void *), void *arg);
/* Nonzero while the calling thread waits for a call (a signal handler that
 * interrupted it must not queue another: the queue's lock is held). */
int col_in_runtime_call(void);
/* The thread that owns the runtime's files (0: none) and how to wake it. */
void col_calls_set_runtime_thread(pid_t tid, void (*wake)(void));
/* The runtime thread: start or stop taking calls; run the queued ones. */
void col_calls_accept(int yes);
void col_calls_serve(void);

/* ---- experiment_lifecycle.c ------------------------------------------------ */

/* On the thread that owns the files: create the experiment (0, or -1 with
 * the reason in the status file); end it (closing records, archive,
 * status "closed" with WHY). */
int col_experiment_open_files(void);
/* Whether WHY, an experiment's close reason, is the program's own end
 * (exit, _exit, _Exit, killed); any other (collector disable, the API's
 * terminate, the sampler told to end) ended it while the program ran on. */
int col_close_is_program_end(const char *why);
void col_experiment_finish(const char *why);
/* Set before col_experiment_finish when the program ended without exiting
 * (killed, crashed): said in log.xml (a warning, the exit event's
 * how="killed") and in the status file (detail "killed"). */
extern int col_end_without_exit;
/* The end after exec_start (no exit event; status "exec" with WHAT). */
void col_experiment_finish_after_exec(const char *what);
void col_experiment_archive(void);
/* exec_start or exec_error in log.xml. */
void col_experiment_exec_event(const char *kind, const char *variant, const char *what, int exec_count);
void col_experiment_descendant_event(const char *kind, const char *variant, const char *lineage, const char *what,
                                     int64_t tstamp, int follow);
/* Descendant processes the sampler process could not record, and their
 * samples (sampler_descendants.c), and those recorded as sub-experiments
 * (sampler_writers.c); 0 elsewhere. */
extern uint64_t col_descendants_seen, col_descendant_samples, col_descendant_experiments;
/* The program exec'd and its new image is recorded (_x1.er): the sampler. */
extern int col_exec_followed;
/* log.xml comments naming the clock source(s) that ran. */
void col_describe_clock_sources(void);

/* ---- collector_main.c (in the program) / sampler_process.c (outside) ------- */

/* Nonzero while an experiment is open in this process (not a fork child). */
int col_collecting(void);
void col_close_experiment(const char *why);
extern struct col_config col_cfg;

/* ---- runtime/data_sources.c: the sources that run in the program ----------- */

enum col_start_how { COL_START_LAUNCH, COL_START_ATTACH, COL_START_DESCENDANT };
/* Starts the sources the settings (col_cfg) ask for. */
void col_sources_start(enum col_start_how how);
/* A program thread starts (on itself): nonzero when it must report its end. */
int col_sources_thread_start(pid_t tid);
void col_sources_thread_stop(pid_t tid);
void col_sources_pause(void);
void col_sources_resume(void);
/* The experiment ends (the program may run on). */
void col_sources_stop(void);

/* ---- core/experiment_control.c: pause state where the files are written -- */

/* Where the files are written: pause or resume as of TSTAMP. */
void col_pause_at(const char *reason, int64_t tstamp);
void col_resume_at(int64_t tstamp);
/* Nonzero in a program whose experiment the sampler process writes: the
 * runtime posts requests on the control page instead. */
int col_outside(void);
/* Collecting, in this process or the one it was forked from (no system
 * call: for the wrappers' fast paths). */
int col_active(void);
int col_is_paused(void);
/* Nonzero when a capture taken at TSTAMP fell in a paused interval. */
int col_paused_at(int64_t tstamp);
/* A new experiment starts unpaused. */
void col_pause_reset(void);

/* ---- runtime/program_requests.c: the program's and GDB's requests -------- */

void col_pause(const char *reason);
void col_resume(void);
void col_sample(const char *name);
/* A new experiment: unpaused, GDB's stops counted from now. */
void col_requests_reset(void);
/* The runtime's thread: a sample when GDB stopped the process since the
 * last cycle. */
void col_control_note_stops(void);

/* ---- data_limit.c ---------------------------------------------------------- */

/* Charges the experiment's data files to one budget of LIMIT_MB (0: none). */
void col_limit_start(long limit_mb);
/* Nonzero once the budget is spent: profile data stops, samples go on. */
int col_limit_reached(void);
uint64_t col_data_bytes(void);
/* A write error stops the data files for good (ERR: ENOSPC ...). */
void col_data_stop(int err);
/* The error that stopped the data files, 0 when none (or only the limit). */
int col_data_stop_errno(void);
/* The first write error of any of the experiment's files, 0 when none. */
int col_write_errno(void);
/* Sampler: logs (once) that the limit was reached. */
void col_limit_note(void);

/* What `collector status` reads from a stopped process with a plain memory
 * read (no inferior call); the sampler refreshes it every cycle. */
/* The runtime's counters GDB reads at a stop (er/er_gdb_layout.h). */
extern struct er_progress gdbcol_progress;
void col_progress_refresh(void);
/* For the end-of-run summary: threads seen and records the kernel lost
 * (the sampler process counts them). */
extern uint64_t col_threads_seen, col_records_lost;

/* ---- runtime/dynamic_functions.c: the Collector API for generated code --- */

/* Oracle's Lineno: a code offset and its source line. */
struct col_lineno {
  unsigned int offset, lineno;
};
/* collector_func_load: SIZE bytes of code at VADDR named NAME (NULL: its
 * address), from SOURCE with N_LINES line entries: a map.xml function
 * record (the sampler's, or the runtime thread's) and a dyntext entry with
 * the code bytes.  collector_func_unload: its unmap record. */
void col_func_load(const char *name, const char *source, const void *vaddr, int size, int n_lines,
                   const struct col_lineno *lines);
void col_func_unload(const void *vaddr);
/* module_map.c: the records themselves, at TSTAMP (the experiment clock). */
void col_modules_function(uint64_t vaddr, uint64_t size, const char *name, int64_t tstamp);
void col_modules_function_gone(uint64_t vaddr, int64_t tstamp);
/* An object's code mapped at START is gone (dlclose): its unmap record at
 * TSTAMP, in the sampler's records mode. */
void col_modules_unloaded(uint64_t start, int64_t tstamp);

/* ---- interpose.c ---------------------------------------------------------- */

/* The real pthread_create, for the runtime's own thread. */
int col_real_pthread_create(void *thread, const void *attr, void *(*start)(void *), void *arg);

/* ---- exec_interpose.c / collector_main.c ----------------------------------- */

/* ---- descendant_carrier.c ------------------------------------------------- */

/* This process passes the runtime on to what it execs or spawns; it is
 * itself a descendant that received it. */
extern int col_carrier_active, col_is_descendant;
/* The founder, descendants followed: carry the session STATUS_PATH on. */
void col_carrier_start(const char *status_path);
/* In a descendant's runtime at start: the carried session's status file
 * into STATUS_PATH, the carrier removed from the environment; 0 if none. */
int col_carrier_adopt(char *status_path, size_t len);
/* The environment an exec passes on: ENVP with the carrier (ENVP itself
 * when nothing is carried).  SLOTS: col_carrier_slots(ENVP) pointers. */
struct col_carrier {
  char preload[2 * PATH_MAX + 16];
  char descendant[PATH_MAX + 32];
};
size_t col_carrier_slots(char *const envp[]);
char *const *col_carrier_env(char *const envp[], const char **slots, size_t n_slots, struct col_carrier *c);
/* Declares ENV: ENVP with the runtime carried on (on the caller's stack:
 * exec wrappers may run between vfork and exec). */
#define CARRIED(env, envp)                          \
  struct col_carrier carrier_;                      \
  size_t n_slots_ = col_carrier_slots(envp);        \
  const char *slots_[n_slots_];                     \
  char *const *env = col_carrier_env(envp, slots_, n_slots_, &carrier_)
/* For system and popen, whose shell gets the program's own environment:
 * "export LD_PRELOAD=... GDBCOL_DESCENDANT=...; " to put before the
 * command.  0 when nothing is carried (or it does not fit). */
int col_carrier_shell_prefix(char *out, size_t len);

/* Before an exec of WHAT: the experiment is written up to now and ends
 * with exec_start.  Returns nonzero when it did (this is the profiled
 * process), so that a failed exec is recorded by col_exec_failed. */
int col_exec_starting(const char *variant, const char *what);
void col_exec_failed(const char *variant, const char *what, int err);

/* ---- got_patch.c ---------------------------------------------------------- */

/* Zero when our exported wrappers already win symbol lookup (preloaded). */
int col_got_interposition_needed(void);
/* Points the GOT slots of every loaded object at our wrappers: how many
 * slots changed, in how many objects, and the objects whose dynamic
 * tables could not be read (their calls stay as they are). */
struct col_got_report {
  unsigned slots, objects, unreadable;
  char first_unreadable[64];
};
void col_got_patch_all(struct col_got_report *report);
/* The same for objects loaded since the last walk (cheap when none were). */
void col_got_patch_new_objects(void);
/* Puts the original addresses back (collection ends, process goes on). */
void col_got_restore_all(void);

/* ---- thread_scan.c -------------------------------------------------------- */

/* Arms every thread of /proc/self/task that has no slot (except SKIP_TID)
 * and stops slots whose thread is gone; returns the number armed. */
unsigned col_scan_threads(pid_t skip_tid);

#endif
