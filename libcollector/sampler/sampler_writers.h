/* Descendant processes recorded as sub-experiments (sampler_writers.c):
 * the founder's sampler routes each descendant's records to a writer
 * process of its own. */
#ifndef GDBCOL_SAMPLER_WRITERS_H
#define GDBCOL_SAMPLER_WRITERS_H

#include <linux/perf_event.h>

#include "control_page.h"
#include <stdint.h>
#include <sys/types.h>

/* How a descendant process came to be, as gprofng names it: fork (and
 * vfork) _fN; a spawn call (system, popen, posix_spawn) _xN, an exec of
 * the caller; clone() without CLONE_THREAD _CN. */
enum descendant_kind { DESCENDANT_FORK, DESCENDANT_SPAWN, DESCENDANT_CLONE };

/* A record of the sampler's own, sent to a writer: a descendant of its
 * process started (the writer logs it; a spawn also advances the writer's
 * exec counter, which the router's mirrors). */
#define SAMPLER_RECORD_DESCENDANT 0x7f01
struct sampler_descendant_record {
  struct perf_event_header header;
  int64_t tstamp;
  int32_t kind; /* enum descendant_kind */
  char variant[16];
  char lineage[128];
  char msg[100];
};

/* A request a descendant's runtime posted (the Collector API), for its
 * writer. */
#define SAMPLER_RECORD_REQUEST 0x7f02
struct sampler_request_record {
  struct perf_event_header header;
  uint32_t pad;
  struct col_control_record request;
};

/* A traced event of a descendant (trace_ring.h's event, its stack copy
 * cut to its length), for its writer. */
#define SAMPLER_RECORD_TRACE 0x7f03
/* The writer's last record where its process's end record never came (the
 * kernel lost it; writers_end_vanished): a header only. */
#define SAMPLER_RECORD_END_UNSEEN 0x7f04

/* Runs in a new writer process and never returns: records of process PID
 * (lineage LINEAGE, created at TSTAMP, or exec'd then into program COMM)
 * arrive on FD until it closes. */
typedef void (*writer_main_fn)(pid_t pid, const char *lineage, int fd, int64_t tstamp, int after_exec,
                               const char *comm);

/* Called before a descendant's exec or last exit is passed to its writer,
 * with the record's time: what the process still holds (its threads'
 * lanes of traced events) goes first. */
typedef void (*before_end_fn)(pid_t pid, int64_t tstamp);

/* FOLLOW_NOTHING: collector descendants off (none gets a writer). */
void writers_init(pid_t founder, writer_main_fn run_writer, before_end_fn before_end, int follow_nothing);
/* A PERF_RECORD_FORK: a new process whose parent is the founder or a
 * followed descendant gets a writer (a spawn's child: at its exec), named
 * by its KIND.  1 with its LINEAGE
 * when it is followed, 0 when the record is not about a new process of the
 * tree, -1 when the writer could not start. */
int writers_on_fork(pid_t pid, pid_t ppid, pid_t tid, int64_t tstamp, enum descendant_kind kind, char *lineage,
                    size_t lineage_len);
/* The program itself exec'd into COMM (it is followed): its new image gets
 * a writer (lineage _xN).  1, or -1 when the writer could not start. */
int writers_on_founder_exec(int64_t tstamp, const char *comm, char *lineage, size_t lineage_len);
/* A record of a followed descendant goes to its writer: 1; else 0. */
int writers_route(const unsigned char *rec, uint16_t type, uint16_t size);
/* Also gives the record to PID's writer (a fork: the parent's log tells). */
int writers_forward(pid_t pid, const unsigned char *rec, uint16_t size);
/* Process PID is recorded by a writer (or will be, at its exec). */
int writers_has_route(pid_t pid);
/* Writers still running (their process has a thread left). */
unsigned writers_live(void);
/* Once a second, after a drain of the rings: ends the writers of processes
 * that were gone from /proc at the last check although their EXIT record
 * never came (the kernel lost it); how many it ended. */
unsigned writers_end_vanished(void);
/* At the founder's end, at once: which writers' processes are gone now
 * (before the last drain of the rings), then the end of those writers
 * (after it), so that their experiments are closed and counted. */
void writers_note_gone(void);
unsigned writers_end_gone(void);
/* For log.xml and the status: writers started, writers that could not
 * be (no memory, no pipe, no fork), and whether the program's own exec got
 * one (its new image recorded as _x1.er).  A writer's process starts from 0. */
struct writers_figures {
  unsigned started, failed;
  unsigned forks; /* fork()s' children seen (DESCENDANT_FORK), recorded or not */
  unsigned spawned; /* children of spawn calls and clone() whose writer started (after a spawn's exec) */
  unsigned spawned_unstarted; /* spawn calls' children announced (desc_start) that got no experiment: their
                                 exec never seen (the kernel lost its record, or the program could not run) */
  int founder_exec;
};
void writers_describe(struct writers_figures *out);
/* Waits (bounded) until the writers whose process ended have closed their
 * experiments; with ALL, ends every writer first. */
void writers_wait(int all);
/* In a new writer: the other writers' pipes are not its own. */
void writers_forget(void);

#endif
