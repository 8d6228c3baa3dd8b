/* The control page (control_page.c): the small shared file through which
 * the program's runtime posts its requests (sample points, pause, resume,
 * the end, an exec, a spawn, new threads) to the sampler process, and GDB
 * bumps its stop counter and asks for a status (the head's layout:
 * er/er_gdb_layout.h). */
#ifndef GDBCOL_CONTROL_PAGE_H
#define GDBCOL_CONTROL_PAGE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "er/er_gdb_layout.h"

enum col_control_kind { COL_CTL_SAMPLE = 1, COL_CTL_PAUSE, COL_CTL_RESUME, COL_CTL_CLOSE, COL_CTL_EXEC_START,
                        COL_CTL_EXEC_FAILED, COL_CTL_STATUS_FILE, COL_CTL_SPAWN, COL_CTL_SPAWN_DONE,
                        COL_CTL_INTERPOSED /* after an attach: "SLOTS OBJECTS UNREADABLE FIRST-UNREADABLE" */,
                        COL_CTL_FUNC_LOAD /* collector_func_load: "VADDR(hex) SIZE TSTAMP NAME" */,
                        COL_CTL_FUNC_UNLOAD /* collector_func_unload: "VADDR(hex)" */,
                        COL_CTL_UNLOADED /* dlclose unmapped an object: its code's start, "VADDR(hex)" */,
                        COL_CTL_TRACE_UNMAPPED /* the runtime could not map the trace ring: err */,
                        COL_CTL_JOB_FORWARDING /* an MPI launcher: its name, err = enum col_job_forwarding */,
                        COL_CTL_JOB_RANK /* the founder sampler to a writer: its process's MPI rank (err) */,
                        COL_CTL_RANK_SELF /* a descendant's runtime: its MPI rank (err), after its exec */,
                        COL_CTL_HEAP_ELSEWHERE /* at launch: the program's malloc is another object's, preloaded
                                                  before the runtime (a sanitizer's): "OBJECT" */,
                        COL_CTL_CLOCK_IN_PROGRAM /* the runtime's timers sample the program from now on (perf
                                                    events refused): the experiment starts */,
                        COL_CTL_FORKED_UNFOLLOWED /* a fork's child, where the sampler has no perf events to
                                                     follow it by: counted, said */,
                        /* Perf events refused, the program sampling itself: what the kernel's records would
                         * have said, from the runtime in each process (sampler_requests.c) */
                        COL_CTL_FORKED /* a fork's child: "PPID PTID" (the parent, its forking thread) */,
                        COL_CTL_EXECED /* a new image's runtime: "PPID COMM" (its parent, the new program) */,
                        COL_CTL_BLOCKED_THREADS /* after an attach: err threads block the timer signal (said) */,
                        COL_CTL_CHILDREN_CPU /* at the program's end: its waited-for descendants' CPU, "MS" */,
                        COL_CTL_UNLOADING /* perf events refused: a dlclose is about to run, its caller waiting
                                             until the samples before it are taken and the mappings read */,
                        COL_CTL_THREAD_NAME /* a thread that named itself, as it ends: "NAME" (tid: the
                                               thread) */,
                        COL_CTL_KINDS /* (their number, plus one) */ };
/* What an MPI launcher's runtime did for the ranks on other nodes
 * (runtime/job_forwarding.c). */
enum col_job_forwarding { COL_JOB_FORWARDED, COL_JOB_NEEDS_EXPORTS, COL_JOB_NO_SETTINGS, COL_JOB_NO_ROOM };

/* 64: more lets a no-perf fork storm announce more children than their
 * writers can serve (512 slots: 2000 forks recorded 2.5 times as many,
 * whose writers outlived GDB's wait); an unload waits for a slot instead
 * (docs/measurements.md, the 64-rank check). */
#define COL_CONTROL_SLOTS 64
struct col_control_record {
  uint32_t ready; /* atomic: filled, not yet taken */
  uint32_t kind;  /* enum col_control_kind */
  int64_t tstamp; /* when the program asked (the experiment clock) */
  int32_t err;    /* EXEC_FAILED: errno */
  int32_t pid, tid; /* who asked */
  char text[108]; /* label, pause reason, program exec'd or spawned, why it closed */
};
/* A thread the program created, and the function it starts in: the
 * sampler's stack for a thread too short for any sample (sampler_tails.c). */
#define COL_THREAD_STARTS 4096
struct col_thread_start {
  uint32_t ready; /* atomic */
  int32_t tid;
  uint64_t start;
};
struct col_control_page {
  uint64_t magic;
  uint64_t write_index, read_index; /* atomic */
  uint64_t dropped;                 /* posts refused: the ring was full */
  uint64_t debugger_stops;          /* GDB adds one at each stop (dbxsample) */
  uint64_t status_asked;            /* GDB adds one to ask for a status current to now (collector status) */
  char stop_label[ER_STOP_LABEL_BYTES]; /* where GDB stopped: the stop's sample point label */
  struct col_control_record slots[COL_CONTROL_SLOTS];
  uint64_t starts_written, starts_read, starts_dropped; /* atomic */
  struct col_thread_start starts[COL_THREAD_STARTS];
  /* The founder's experiment, once the sampler opened it: where the
   * runtime writes dyntext (collector_func_load's code bytes). */
  char experiment_path[PATH_MAX];
  int64_t experiment_run_tstamp; /* its run event's time (dyntext's times are relative to it) */
  /* What a rank this sampler cannot follow (on another node) records with
   * (core/job_settings.h): written before experiment_run_tstamp, read by
   * an MPI launcher's runtime (runtime/job_forwarding.c). */
  char job_settings[8192];
  /* Set by the sampler before it says it is ready, where the kernel
   * refused it perf events: the program samples itself with CPU-time
   * timers at this interval, and its samples come through the trace ring
   * (core/soft_clock.h); -1: refused, and no clock profiling (the
   * runtime still says what the kernel's records would: the experiment's
   * start, forks, execs); 0: the sampler's events sample it. */
  int64_t clock_in_program_us;
  /* With it: the stack bytes each of those samples copies (the user's
   * `collector profile stack`; a descendant's runtime has no settings of
   * its own, only this page). */
  int64_t stack_bytes_in_program;
  /* Perf events refused: the latest time stamp of the news the runtime
   * waits for the sampler to take, as no kernel record orders them with
   * the samples (an exec's start: everything the old image left is
   * written; a fork's child, a new image: its route is there before its
   * samples, and a short program's mappings are read while it lives). */
  int64_t news_taken_tstamp;
  /* Set by the founder's runtime: the address of its <Thread-never-sampled>
   * pseudo-function (runtime/never_sampled_frame.c), the frame a thread's
   * CPU time goes under when no sample reached it; 0: not known. */
  uint64_t never_sampled_pc;
  /* Perf events refused: the forks the runtimes began (atomic), each
   * child posting FORKED or FORKED_UNFOLLOWED at its start.  The sampler
   * does not end while a fork's child has yet to say so (a daemon's
   * grandchild, whose parent exits at once). */
  uint64_t forks_begun;
  /* The posts refused, by kind (atomic): what a storm's loss was, for the
   * words that say it (a descendant's end is also its exit; a fork's news
   * may be all that finds its child). */
  uint64_t dropped_of_kind[COL_CTL_KINDS];
  /* The fork() children whose runtime began while descendants are
   * followed (atomic), each adding one in its fork handler: against the
   * forks the sampler saw, what a storm lost (the kernel's fork records,
   * or the children's news) is counted, never silent. */
  uint64_t forked_children;
  uint64_t spawned_children; /* atomic: children that spawn calls and clone() reported (a request can be lost) */
  /* A futex word the sampler bumps, waking every waiter, each time it moves
   * news_taken_tstamp or experiment_run_tstamp: a process waiting for
   * either sleeps until then (before, each polled every millisecond, and
   * the 2000 children of a fork storm, all waiting, took both CPUs). */
  uint32_t waiters_seq;
  /* The founder's end request, in a slot of its own (ready: posted, not
   * yet taken): a fork storm's children, whose news and ends fill the 64
   * slots, must never crowd it out.  Before, it waited up to 2 s for a
   * free slot; in a loaded CI run the sampler took none in that time and
   * the founder's experiment said it was killed. */
  struct col_control_record founder_end;
  /* The sampler process, woken (shared/sampler_wake.h) when half of the
   * requests' slots or of the thread starts' are used (one signal, then
   * none until it re-arms WAKE_ARMED as it takes them) and when the
   * founder posts its end: its cycle is long (sampler_process.c). */
  int32_t sampler_pid;
  uint32_t wake_armed; /* atomic */
};

extern struct col_control_page *col_control;

/* The program samples itself for the sampler process (clock_in_program_us). */
static inline int col_control_clock_in_program(void)
{
  return col_control != NULL && __atomic_load_n(&col_control->clock_in_program_us, __ATOMIC_ACQUIRE) > 0;
}
/* The kernel refused the sampler process perf events: the runtime says
 * what their records would (with clock profiling or not). */
static inline int col_control_perf_refused(void)
{
  return col_control != NULL && __atomic_load_n(&col_control->clock_in_program_us, __ATOMIC_ACQUIRE) != 0;
}
/* Its path, in the sampler process (the status file names it). */
extern char col_control_file[];
/* Where the page lives for the status file STATUS_PATH. */
void col_control_path(char *out, size_t len, const char *status_path);
/* The sampler process creates it; the runtime maps it (no descriptor kept). */
int col_control_create(const char *status_path);
int col_control_attach(const char *status_path);
/* A new thread TID starting in START (pthread_create, outside mode). */
void col_control_post_thread_start(pid_t tid, uint64_t start);
/* Until *FIELD (a field of the page) is AT_LEAST or more, up to LIMIT_MS,
 * asleep between the sampler's wakes; SAMPLER (when > 0) checked now and
 * then, not waited for once gone. */
void col_control_wait_for(const int64_t *field, int64_t at_least, int limit_ms, pid_t sampler);
/* The sampler process, having moved a field waited for: every waiter wakes. */
void col_control_wake_waiters(void);
/* The sampler process: FN for every thread start posted, in order. */
size_t col_control_take_thread_starts(void (*fn)(pid_t tid, uint64_t start));
/* Async-signal-safe.  0, or -ENOSPC when the ring is full (counted). */
int col_control_post(enum col_control_kind kind, const char *text, int err);
/* ... waiting up to LIMIT_MS for a free slot where all are taken (never in
 * a signal handler: it sleeps): what a busy start of many processes posts
 * at once (64 MPI ranks' dlcloses) and must not be lost. */
int col_control_post_waiting(enum col_control_kind kind, const char *text, int err, int limit_ms);
/* The sample point label of a GDB stop from the field GDB WROTE it in
 * (the page's stop_label, or the runtime's own where it samples itself),
 * copied into COPY and ended there; the bare prefix where the field does
 * not hold one of GDB's labels. */
const char *col_stop_label(const char *wrote, char copy[ER_STOP_LABEL_BYTES]);
/* The founder's end (COL_CTL_CLOSE, WHY), in its own slot: never lost,
 * taken after the requests before it (col_control_take). */
void col_control_post_founder_end(const char *why);
/* The same with "VARIANT:WHAT" as the text (exec, spawn); safe in a child
 * between fork and exec. */
int col_control_post_variant(enum col_control_kind kind, const char *variant, const char *what, int err);
/* The sampler process: FN for every complete record, in order. */
size_t col_control_take(void (*fn)(const struct col_control_record *r, void *arg), void *arg);

#endif
