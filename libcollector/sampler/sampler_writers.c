/* Descendant processes as sub-experiments.
 *
 * The founder's sampler sees every descendant's records in its rings (the
 * events are inherited across fork).  Each descendant process gets a
 * writer: a process forked from the sampler, so that every per-experiment
 * part of the runtime (files, map, writer, unwinder caches, thread tails)
 * stays one per process, as in gprofng's collector.  The sampler merges
 * the rings by time and writes each descendant's records, whole and in
 * order, to its writer's pipe; the writer turns them into
 * FOUNDER/LINEAGE.er.  Lineages are gprofng's: the k-th fork of a process
 * whose lineage is L is L_fk (the counter restarts in each process image),
 * its exec L_fk_x1, a clone() that makes a process L_Ck; the child of a
 * spawn call (system, popen, posix_spawn) is an exec of the caller, L_xk,
 * sharing the exec counter, and gets its
 * writer at its exec (before it, it only runs the caller's code for an
 * instant, which gprofng does not record either).  A writer ends when the
 * last thread of its process has exited (EXIT records), so nothing it needs
 * can still be on the way.  Where the kernel lost that record (its rings
 * overflow in a fork storm: 571 records lost of 2000 forks, measured), the
 * process is found gone from /proc instead, and its writer ends a cycle
 * later, after the rings were drained once more (writers_end_vanished);
 * before, such writers and the sampler waiting for them ran for ever. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unwind/clock_perf.h"
#include "core/job_rank.h"
#include "sampler_writers.h"

#define BUCKETS 1024
#define PIPE_BYTES (1 << 20)
#define WAIT_LIMIT_NS 30000000000LL

struct route {
  struct route *next;
  pid_t pid, writer;
  int fd;          /* -1 once the process ended (or before its writer starts) */
  int gone;        /* its process was seen gone from /proc, its EXIT record not come */
  int awaiting_exec; /* a spawn's child: its writer starts at its exec */
  int threads;
  unsigned forks, execs, clones;
  char lineage[128];
};

static struct writers_figures figures;
static struct route *buckets[BUCKETS];
static pid_t founder_pid;
static unsigned founder_forks, founder_execs, founder_clones;
static writer_main_fn run_writer;
static before_end_fn before_end;

static int follow_none;

void writers_init(pid_t founder, writer_main_fn fn, before_end_fn before, int follow_nothing)
{
  before_end = before;
  founder_pid = founder;
  follow_none = follow_nothing;
  run_writer = fn;
  signal(SIGPIPE, SIG_IGN); /* a writer that died: its records are dropped */
}

static struct route *route_of(pid_t pid)
{
  for (struct route *r = buckets[(unsigned)pid % BUCKETS]; r != NULL; r = r->next)
    if (r->pid == pid)
      return r;
  return NULL;
}

void writers_forget(void)
{
  memset(&figures, 0, sizeof figures); /* the counts are the founder sampler's */
  for (int b = 0; b < BUCKETS; b++)
    for (struct route *r = buckets[b]; r != NULL; r = r->next)
      if (r->fd >= 0)
        close(r->fd);
}

static void end_route(struct route *r)
{
  if (r->fd >= 0) {
    close(r->fd); /* the writer reads to the end, then closes its experiment */
    r->fd = -1;
  }
}

/* Process PID, recorded under LINEAGE (its writer not started yet). */
static struct route *new_route(pid_t pid, const char *lineage)
{
  struct route *r = calloc(1, sizeof *r);
  if (r == NULL) {
    figures.failed++;
    return NULL;
  }
  r->pid = pid;
  r->fd = -1;
  r->threads = 1;
  snprintf(r->lineage, sizeof r->lineage, "%s", lineage);
  r->next = buckets[(unsigned)pid % BUCKETS];
  buckets[(unsigned)pid % BUCKETS] = r;
  return r;
}

/* R's writer: a pipe, then the fork.  COMM: the program after an exec. */
static int launch_writer(struct route *r, int64_t tstamp, int after_exec, const char *comm)
{
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    figures.failed++;
    return -1;
  }
  fcntl(fds[1], F_SETPIPE_SZ, PIPE_BYTES);
  pid_t writer = fork();
  if (writer == 0) {
    close(fds[1]);
    writers_forget();
    run_writer(r->pid, r->lineage, fds[0], tstamp, after_exec, comm); /* never returns */
    _exit(0);
  }
  close(fds[0]);
  if (writer < 0) {
    close(fds[1]);
    figures.failed++;
    return -1;
  }
  r->writer = writer;
  r->fd = fds[1];
  figures.started++;
  return 1;
}

int writers_on_fork(pid_t pid, pid_t ppid, pid_t tid, int64_t tstamp, enum descendant_kind kind, char *lineage,
                    size_t lineage_len)
{
  struct route *parent = route_of(ppid);
  if (follow_none || pid != tid || pid == ppid || route_of(pid) != NULL || (ppid != founder_pid && parent == NULL))
    return 0;
  const char *base = parent != NULL ? parent->lineage : "";
  unsigned *counter = kind == DESCENDANT_SPAWN   ? (parent != NULL ? &parent->execs : &founder_execs)
                      : kind == DESCENDANT_CLONE ? (parent != NULL ? &parent->clones : &founder_clones)
                                                 : (parent != NULL ? &parent->forks : &founder_forks);
  char letter = kind == DESCENDANT_SPAWN ? 'x' : kind == DESCENDANT_CLONE ? 'C' : 'f';
  snprintf(lineage, lineage_len, "%.*s_%c%u", (int)sizeof parent->lineage - 16, base, letter, ++*counter);
  if (kind == DESCENDANT_FORK)
    figures.forks++; /* (seen: recorded, or counted as failed) */
  struct route *r = new_route(pid, lineage);
  if (r == NULL)
    return -1;
  if (kind == DESCENDANT_SPAWN) {
    r->awaiting_exec = 1;
    return 1;
  }
  int launched = launch_writer(r, tstamp, 0, NULL);
  if (launched == 1 && kind == DESCENDANT_CLONE)
    figures.spawned++;
  return launched;
}

int writers_on_founder_exec(int64_t tstamp, const char *comm, char *lineage, size_t lineage_len)
{
  snprintf(lineage, lineage_len, "_x%u", ++founder_execs);
  founder_forks = founder_execs = founder_clones = 0; /* the new image counts its own */
  struct route *r = new_route(founder_pid, lineage);
  int rc = r != NULL ? launch_writer(r, tstamp, 1, comm) : -1;
  if (rc == 1)
    figures.founder_exec = 1;
  return rc;
}

void writers_describe(struct writers_figures *out)
{
  *out = figures;
  for (size_t b = 0; b < BUCKETS; b++) /* (still waiting for an exec that will not be seen now) */
    for (const struct route *r = buckets[b]; r != NULL; r = r->next)
      out->spawned_unstarted += r->awaiting_exec != 0;
}

static int write_whole(int fd, const void *p, size_t len)
{
  const unsigned char *b = p;
  while (len > 0) {
    ssize_t n = write(fd, b, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    b += n, len -= (size_t)n;
  }
  return 0;
}

/* The process a record is about: its first word, or (context switches)
 * the sample_id trailer's.  0 for records of the ring itself. */
static pid_t record_pid(const unsigned char *rec, uint16_t type, uint16_t size)
{
  uint32_t pid;
  size_t at;
  switch (type) {
  case PERF_RECORD_SAMPLE:
    at = COL_PERF_SAMPLE_TID_AT;
    break;
  case PERF_RECORD_MMAP2:
  case PERF_RECORD_COMM:
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
    at = sizeof(struct perf_event_header);
    break;
  case PERF_RECORD_SWITCH:
    at = COL_PERF_TRAILER_TID(size);
    break;
  default:
    return 0;
  }
  if (size < at + 4)
    return 0;
  memcpy(&pid, rec + at, 4);
  return (pid_t)pid;
}

/* The time in a record's sample_id_all trailer. */
static int64_t record_time(const unsigned char *rec, uint16_t size)
{
  int64_t t = 0;
  if (size >= sizeof(struct perf_event_header) + COL_PERF_TRAILER_BYTES)
    memcpy(&t, rec + COL_PERF_TRAILER_TIME(size), 8);
  return t;
}

/* A new image: its MPI rank, read now from the environment
 * its exec received, goes to its writer ahead of the exec's record (the
 * writer names the experiment M_r<rank>.er there; a rank that ends within
 * a few milliseconds may be gone by the time the writer could look). */
static void forward_rank(struct route *r)
{
  int rank = col_job_rank(r->pid); /* -1: none (the writer looks again, in vain or not) */
  struct sampler_request_record rec = {.header = {SAMPLER_RECORD_REQUEST, 0, sizeof rec},
                                       .request = {.kind = COL_CTL_JOB_RANK, .err = rank, .pid = r->pid}};
  if (write_whole(r->fd, (const unsigned char *)&rec, sizeof rec) != 0)
    end_route(r);
}

int writers_route(const unsigned char *rec, uint16_t type, uint16_t size)
{
  struct route *r = route_of(record_pid(rec, type, size));
  if (r == NULL)
    return 0;
  const struct perf_event_header *h = (const void *)rec;
  if (r->awaiting_exec) {
    /* A spawn's child: its exec starts its experiment; if it ends first
     * (the program could not be run), there is nothing to record. */
    if (type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) && size > sizeof *h + 8) {
      char comm[32];
      snprintf(comm, sizeof comm, "%.*s", (int)strnlen((const char *)rec + sizeof *h + 8, size - sizeof *h - 8),
               (const char *)rec + sizeof *h + 8);
      r->awaiting_exec = 0;
      if (launch_writer(r, record_time(rec, size), 1, comm) == 1)
        figures.spawned++;
    } else if (type == PERF_RECORD_EXIT) {
      r->awaiting_exec = 0;
      figures.spawned_unstarted++;
    }
    return 1;
  }
  if (r->fd < 0)
    return 1; /* after its end: nothing more to write */
  if (type == PERF_RECORD_FORK && size >= sizeof *h + 16) {
    uint32_t ids[2];
    memcpy(ids, rec + sizeof *h, 8);
    if (ids[0] == ids[1])
      r->threads++; /* a new thread of the process */
  } else if (type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
    forward_rank(r);
    before_end(r->pid, record_time(rec, size)); /* the old image's last events, in its experiment */
    char next[sizeof r->lineage];
    snprintf(next, sizeof next, "%.*s_x%u", (int)sizeof next - 16, r->lineage, ++r->execs);
    snprintf(r->lineage, sizeof r->lineage, "%s", next);
    r->forks = r->execs = r->clones = 0; /* counters restart in each process image */
    r->threads = 1;           /* the exec ended the others */
  }
  if (type == PERF_RECORD_EXIT && r->threads <= 1)
    before_end(r->pid, INT64_MAX);
  if (write_whole(r->fd, rec, size) != 0)
    end_route(r);
  else if (type == PERF_RECORD_EXIT && --r->threads <= 0)
    end_route(r);
  return 1;
}

static int64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Process PID has ended: no such process, or a zombie (its exit done, its
 * parent not told yet).  (A pid used again since is taken as the process:
 * its writer then waits as before.) */
static int process_gone(pid_t pid)
{
  if (kill(pid, 0) != 0 && errno == ESRCH)
    return 1;
  char path[48], text[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0)
    return 0;
  text[n] = '\0';
  const char *state = strrchr(text, ')'); /* the command may hold any byte but the last ')' */
  return state != NULL && (state[2] == 'Z' || state[2] == 'X');
}

/* (where perf events are refused, every descendant's end is found so) */
#define VANISHED_CHECK_NS 250000000LL

unsigned writers_end_gone(void)
{
  unsigned ended = 0;
  for (int b = 0; b < BUCKETS; b++)
    for (struct route *r = buckets[b]; r != NULL; r = r->next) {
      if (r->fd < 0 || !r->gone)
        continue;
      before_end(r->pid, INT64_MAX);
      struct perf_event_header unseen = {SAMPLER_RECORD_END_UNSEEN, 0, sizeof unseen};
      write_whole(r->fd, &unseen, sizeof unseen); /* its log says so */
      end_route(r);
      ended++;
    }
  return ended;
}

unsigned writers_end_vanished(void)
{
  static int64_t last_check;
  int64_t now = now_ns();
  if (now - last_check < VANISHED_CHECK_NS)
    return 0;
  last_check = now;
  unsigned ended = writers_end_gone(); /* gone at the last check, the rings drained since */
  writers_note_gone();
  return ended;
}

void writers_note_gone(void)
{
  for (int b = 0; b < BUCKETS; b++)
    for (struct route *r = buckets[b]; r != NULL; r = r->next)
      if (r->fd >= 0 && !r->gone)
        r->gone = process_gone(r->pid);
}

unsigned writers_live(void)
{
  unsigned n = 0;
  for (int b = 0; b < BUCKETS; b++)
    for (struct route *r = buckets[b]; r != NULL; r = r->next)
      n += r->fd >= 0;
  return n;
}


void writers_wait(int all)
{
  int64_t deadline = now_ns() + WAIT_LIMIT_NS;
  for (int b = 0; b < BUCKETS; b++)
    for (struct route *r = buckets[b]; r != NULL; r = r->next) {
      if (all)
        end_route(r);
      if (r->fd >= 0 || r->writer <= 0)
        continue;
      while (waitpid(r->writer, NULL, WNOHANG) == 0 && now_ns() < deadline) {
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
      }
      r->writer = 0;
    }
}

int writers_forward(pid_t pid, const unsigned char *rec, uint16_t size)
{
  struct route *r = route_of(pid);
  if (r == NULL || r->fd < 0)
    return 0;
  if (write_whole(r->fd, rec, size) != 0)
    end_route(r);
  return 1;
}

int writers_has_route(pid_t pid)
{
  return route_of(pid) != NULL;
}
