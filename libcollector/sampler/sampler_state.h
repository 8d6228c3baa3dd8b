/* The sampler process's state and the parts that share it: the main loop
 * (sampler_process.c), the records (sampler_records.c), the rings merged by
 * time (sampler_merge.c), the program's requests (sampler_requests.c) and a
 * descendant's writer (sampler_writer_main.c). */
#ifndef GDBCOL_SAMPLER_STATE_H
#define GDBCOL_SAMPLER_STATE_H

#include <stddef.h>

#include "er/er_follow.h"
#include <stdint.h>
#include <sys/types.h>

#define FLUSH_EVERY_NS 250000000LL

struct sampler_state {
  int attached;                /* started by collector enable after gdb -p */
  int started_by_rank;         /* --rank: started by an MPI rank on another node, for itself */
  int started_by_self;         /* --self: started by the program's runtime before main (a launch without
                                  gdbcol-launch: startup-with-shell off, or the user's exec-wrapper) */
  int started, start_failed, finished;
  int clock_in_program;        /* the kernel refused perf events: the program's timers sample it, their
                                  samples come through the trace ring (sampler_records.c) */
  int exec_pending, exec_count; /* the program exec'd (its runtime said so) */
  int close_requested;         /* the runtime (its exit, _exit, the API) or GDB asked for the end */
  const char *close_reason;
  int64_t closing_at;          /* the end the program asked for: later samples are not written */
  char exec_what[128];
  uint64_t stops_seen;         /* GDB's stop counter, last seen */
  uint64_t lost_records, threads_seen;
  uint64_t forks_told;         /* perf events refused: fork children that said they began */
  uint64_t lost_switch_records; /* of lost_records, from a ring that holds switches */
  uint64_t lost_switch_stacks;  /* samples at switches out (off-CPU stacks) lost: not in lost_records */
  int64_t last_record_at;
  unsigned char *tid_seen;     /* bitmap by thread id */
  size_t tid_seen_bits;
  /* a descendant's writer (sampler_writers.c) */
  int writer_mode;
  unsigned writer_execs;
  int writer_archive_mode; /* a descendant's new image archives as the founder does */
  char writer_lineage[128];
  struct er_follow_rule follow; /* collector descendants */
};

extern struct sampler_state sampler;

/* sampler_records.c */
/* LOST_MAY_BE_SWITCHES: the record's ring holds switches, so a loss it
 * reports may have taken some (the thread tails then drop what spans it). */
void sampler_on_record(const unsigned char *rec, uint16_t type, uint16_t size, int ring_kind);
void sampler_start_experiment(void);
/* Perf events refused: a process's fork (by thread PTID of PPID) or exec
 * (of COMM, its parent PPID) as its runtime told it, handled as the
 * kernel's records are (a spawn's child, seen first at its exec, gets its
 * fork then; the program's first exec starts the experiment). */
void sampler_on_fork_news(pid_t pid, pid_t ppid, pid_t ptid, int64_t tstamp);
void sampler_on_exec_news(pid_t pid, pid_t tid, pid_t ppid, const char *comm, int64_t tstamp);
/* The mappings from the kernel's records from now on (with perf events;
 * without, from /proc all along). */
void sampler_mappings_from_records(void);
/* A clock sample the program took itself (perf events refused), from the
 * trace ring: unwound and written. */
struct col_trace_event;
void sampler_on_program_sample(const struct col_trace_event *e);
/* The threads' accounts of a run beginning at T: their CPU time the
 * samples missed (thread tails) and their time off CPU; FIRST_THREAD_BORN:
 * the program's first thread was not waiting before (launch: GDB stopped
 * it at its exec; a descendant), as threads found at an attach may have
 * been.  _end: the accounts closed at T, their last packets written. */
void sampler_accounts_start(int64_t t, int first_thread_born);
/* Off-CPU time's reads due by now (records in up to UPTO): the
 * nanoseconds until the next is (-1: none waits). */
int64_t sampler_accounts_tick(int64_t upto);
void sampler_accounts_end(int64_t t);
/* sampler_merge.c: the rings' records up to NEWEST, all CPUs merged by
 * time; SAMPLER_ALL_RECORDS: all there is (the program ended or stopped
 * for an exec).  sampler_ring_cutoff(): now, less the time a record may
 * take to be published; read before the control page, it also keeps the
 * records a request announced (a spawn) after the request. */
#define SAMPLER_ALL_RECORDS INT64_MAX
int64_t sampler_ring_cutoff(void);
void sampler_drain_ring_records(int64_t newest);
/* sampler_requests.c: the program's and GDB's requests on the control
 * page, its descendants' too (passed to their writers). */
void sampler_take_requests(void);
/* The program's end, where its request came before the record that
 * starts its experiment: applied once that is read (after the rings). */
void sampler_take_end_before_start(void);
/* Perf events refused: a fork began whose child has not yet said so (the
 * end waits for it, a while at most). */
int sampler_forks_in_flight(void);
/* The threads the program posted it created, with the functions they
 * start in, into the thread tails (and the program's frame for a thread no
 * sample reached). */
void sampler_take_thread_starts(void);
struct col_control_record;
/* sampler_held_requests.c: a descendant's request (or the new image's
 * after an exec) held; those up to time UPTO go to their writers (called
 * as the merged records pass their time). */
void sampler_hold_request(const struct col_control_record *r);
void sampler_release_requests(int64_t upto);
/* sampler_apply.c: a sample point, pause, resume or end asked for, in
 * this experiment. */
void sampler_apply_request(const struct col_control_record *r);
/* A launcher's ranks elsewhere not recorded (any process's): GDB's status
 * says it (the log says it in the launcher's own experiment). */
void sampler_note_job_forwarding(const struct col_control_record *r);
/* sampler_trace.c: the trace ring, made before the program runs when a
 * tracing kind is on (0, or -1 with the reason in ERR); its events up to
 * NEWEST written (the program's) or passed to their writers, in time
 * order with the rings' records (sampler_merge.c); an event from the
 * pipe, in a writer. */
int sampler_trace_begin(char *err, size_t err_len);
/* The ring made for the program's own clock samples, where no tracing kind
 * made it (0, or -errno). */
int sampler_trace_for_clock(void);
void sampler_take_trace(int64_t newest);
/* Process PID's lanes' records from before BEFORE, to its writer: before
 * the exec or the exit that ends its experiment is passed on. */
void sampler_take_lanes_of(pid_t pid, int64_t before);
/* Every lane's records now, the program's threads alive or not (a status
 * GDB asked for at a stop: what they hold is in the files then). */
void sampler_take_all_lanes(void);
void sampler_trace_rearm(void); /* after a round: wake me when the ring fills again */
void sampler_trace_from_pipe(const unsigned char *rec, uint16_t size);
void sampler_trace_describe(void);
/* The program's runtime could not map the trace ring (errno ERR): said. */
void sampler_trace_unmapped(int err);
/* sampler_writer_main.c: never returns (see sampler_writers.h). */
void sampler_run_as_writer(pid_t pid, const char *lineage, int fd, int64_t tstamp, int after_exec,
                           const char *comm);
/* sampler_sources.c: every source taken up to NEWEST, in order; what each
 * recorded, into log.xml. */
void sampler_sources_take(int64_t newest);
void sampler_describe(void);
/* sampler_process.c */

#endif
