/* `collector report mpi`: the MPI view gprofng 2.40 cannot show.  For a
 * job's experiment (its ranks are M_r<rank>.er inside it) or one rank's:
 * per rank the seeds' MPI metrics and mpiP's "MPI %" (the share of the
 * application time, from MPI_Init's return to MPI_Finalize's call, spent
 * in MPI calls), MPI Work (CPU time sampled inside MPI calls) and MPI
 * Wait (the rest of their time); per MPI
 * function over all ranks; and who sent how many bytes to whom. */
#define _GNU_SOURCE
#include "er_mpi_report.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_mpi.h"
#include "er/er_mpi_calls.h"
#include "er/er_naming.h"
#include "er/er_reader.h"

struct rank {
  int rank;
  /* mpiP's application time: from MPI_Init's return to MPI_Finalize's
   * call (without them: the run, from its start to its exit), and the
   * time in MPI calls within it. */
  double app_seconds, mpi_seconds;
  /* The seeds' MPI Work: the CPU time of clock samples taken inside MPI
   * calls (their thread and span); MPI Wait: the rest of the time in them. */
  double work_seconds;
  struct er_mpi_summary s;
};

struct span {
  uint64_t thrid;
  int64_t start, end;
};

static int by_thread_and_start(const void *a, const void *b)
{
  const struct span *x = a, *y = b;
  if (x->thrid != y->thrid)
    return x->thrid < y->thrid ? -1 : 1;
  return (x->start > y->start) - (x->start < y->start);
}

/* The CPU seconds of EXP's clock samples inside one of the N SPANS (sorted;
 * calls of one thread do not overlap). */
static double cpu_inside(const struct er_experiment *exp, const struct span *spans, size_t n)
{
  double seconds = 0, tick = exp->ptimer_us / 1e6;
  for (size_t i = 0; i < exp->n_clock; i++) {
    const struct er_clock_sample *c = &exp->clock[i];
    size_t lo = 0, hi = n; /* the last span of the thread starting at or before the sample */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (spans[mid].thrid < c->thrid || (spans[mid].thrid == c->thrid && spans[mid].start <= c->tstamp))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo > 0 && spans[lo - 1].thrid == c->thrid && c->tstamp <= spans[lo - 1].end)
      seconds += c->ntick * tick;
  }
  return seconds;
}

static int by_rank(const void *a, const void *b)
{
  const struct rank *x = a, *y = b;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Reads one rank's experiment; 0, or -1 with the reason printed. */
static int read_rank(const char *path, int number, struct rank *r)
{
  struct er_experiment exp;
  char err[512];
  if (er_experiment_open(path, &exp, err, sizeof err) != 0) {
    fprintf(stderr, "gdbcol-report: %s: %s\n", path, err);
    return -1;
  }
  r->rank = number;
  /* (the exit and the pauses are relative to the run; calls absolute) */
  int64_t start = exp.run_tstamp, end = exp.has_exit ? exp.run_tstamp + exp.exit_tstamp : 0;
  for (size_t i = 0; i < exp.n_mpi_calls; i++)
    if (exp.mpi_calls[i].end > end)
      end = exp.mpi_calls[i].end;
  for (size_t i = 0; i < exp.n_mpi_calls; i++) {
    const struct er_mpi_call *c = &exp.mpi_calls[i];
    if (c->func == ER_MPI_Init || c->func == ER_MPI_Init_thread)
      start = c->end;
    else if (c->func == ER_MPI_Finalize)
      end = c->start;
  }
  /* A pause (MPI_Pcontrol(0), collector pause) recorded no MPI call: not
   * application time either. */
  int64_t paused = 0;
  for (size_t i = 0; i < exp.n_pauses; i++) {
    int64_t pause_start = exp.run_tstamp + exp.pauses[i].start, pause_end = exp.run_tstamp + exp.pauses[i].end;
    int64_t from = pause_start > start ? pause_start : start;
    int64_t to = exp.pauses[i].end < 0 || pause_end > end ? end : pause_end;
    paused += to > from ? to - from : 0;
  }
  r->app_seconds = end - start > paused ? (end - start - paused) / 1e9 : 0;
  r->mpi_seconds = r->work_seconds = 0;
  struct span *spans = malloc((exp.n_mpi_calls + 1) * sizeof *spans);
  size_t n_spans = 0;
  for (size_t i = 0; i < exp.n_mpi_calls; i++) {
    const struct er_mpi_call *c = &exp.mpi_calls[i];
    if (c->part == 0 && c->iotype != ER_MPI_AS_CHANNEL && c->start >= start && c->end <= end) {
      r->mpi_seconds += (c->end - c->start) / 1e9;
      if (spans != NULL)
        spans[n_spans++] = (struct span){c->thrid, c->start, c->end};
    }
  }
  if (spans != NULL) {
    qsort(spans, n_spans, sizeof *spans, by_thread_and_start);
    r->work_seconds = cpu_inside(&exp, spans, n_spans);
    free(spans);
  }
  /* A sample stands for the CPU time since the one before: one inside a
   * short call brings time from before it (at the kernel's tick, where
   * perf events are refused: 4 ms a sample), so a rank with few samples
   * in MPI was said to work 0.038 s in 0.028 s of MPI calls.  Its CPU time
   * there is at most that long, and that is nearer the truth. */
  if (r->work_seconds > r->mpi_seconds)
    r->work_seconds = r->mpi_seconds;
  er_mpi_summarize(&exp, &r->s);
  int declared = exp.declared[ER_KIND_MPI];
  er_experiment_close(&exp);
  return declared ? 0 : 1;
}

/* The ranks under PATH (M_r<N>.er), or PATH itself as rank -1. */
static size_t find_ranks(const char *path, struct rank **out)
{
  struct rank *ranks = NULL;
  size_t n = 0;
  DIR *dir = opendir(path);
  struct dirent *d;
  while (dir != NULL && (d = readdir(dir)) != NULL) {
    size_t prefix = strlen(ER_RANK_PREFIX), len = strlen(d->d_name);
    char *end;
    if (strncmp(d->d_name, ER_RANK_PREFIX, prefix) != 0 || len < prefix + 4 || strcmp(d->d_name + len - 3, ".er") != 0)
      continue;
    long number = strtol(d->d_name + prefix, &end, 10);
    if (end != d->d_name + len - 3 || number < 0)
      continue;
    char child[4096];
    struct rank *more = realloc(ranks, (n + 1) * sizeof *more);
    if (more == NULL || snprintf(child, sizeof child, "%s/%s", path, d->d_name) >= (int)sizeof child) {
      ranks = more != NULL ? more : ranks;
      continue;
    }
    ranks = more;
    if (read_rank(child, (int)number, &ranks[n]) >= 0)
      n++;
  }
  if (dir != NULL)
    closedir(dir);
  if (n == 0) { /* one rank's experiment, or a process that is no rank */
    ranks = realloc(ranks, sizeof *ranks);
    if (ranks != NULL && read_rank(path, -1, &ranks[0]) == 0)
      n = 1;
  }
  if (n > 1)
    qsort(ranks, n, sizeof *ranks, by_rank);
  *out = ranks;
  return n;
}

static void print_total(const char *label, const struct er_mpi_total *t, double app_seconds, double mpi_seconds,
                        double work_seconds, unsigned long long other)
{
  double wait = mpi_seconds > work_seconds ? mpi_seconds - work_seconds : 0;
  printf("%-10s %10.3f %10.3f %6.2f %10.3f %10.3f %8llu %12llu %8llu %12llu %8llu\n", label, app_seconds,
         mpi_seconds, app_seconds > 0 ? 100 * mpi_seconds / app_seconds : 0.0, work_seconds, wait, t->sends,
         t->sbytes, t->receives, t->rbytes, other);
}

int er_mpi_report(const char *path, size_t rows)
{
  struct rank *ranks;
  size_t n = find_ranks(path, &ranks);
  if (n == 0) {
    fprintf(stderr, "gdbcol-report: no MPI data in %s: record with `collector mpitrace on` (each rank of a job "
                    "launched under GDB is M_r<rank>.er inside its experiment)\n", path);
    free(ranks);
    return 1;
  }
  printf("MPI per rank (App: from MPI_Init's return to MPI_Finalize, pauses left out; MPI: the time in MPI calls "
         "within it; Work: the CPU time sampled in them, spinning included; Wait: the rest, off CPU):\n");
  printf("%-10s %10s %10s %6s %10s %10s %8s %12s %8s %12s %8s\n", "Rank", "App sec.", "MPI sec.", "MPI %",
         "Work sec.", "Wait sec.", "Sends", "Bytes sent", "Receives", "Bytes recv.", "Other");
  struct er_mpi_summary *all = calloc(1, sizeof *all);
  double app_total = 0, mpi_total = 0, work_total = 0;
  int max_peer = -1;
  for (size_t i = 0; i < n; i++) {
    char label[32];
    snprintf(label, sizeof label, ranks[i].rank >= 0 ? "%d" : "(this)", ranks[i].rank);
    print_total(label, &ranks[i].s.all, ranks[i].app_seconds, ranks[i].mpi_seconds, ranks[i].work_seconds,
                ranks[i].s.other_calls);
    app_total += ranks[i].app_seconds;
    mpi_total += ranks[i].mpi_seconds;
    work_total += ranks[i].work_seconds;
    for (int p = 0; p < ER_MPI_MAX_PEERS; p++)
      if (ranks[i].s.peers[p].sends + ranks[i].s.peers[p].receives > 0 && p > max_peer)
        max_peer = p;
    if (all == NULL)
      continue;
    all->other_calls += ranks[i].s.other_calls;
    for (int f = 0; f < ER_MPI_N_FUNCTIONS; f++) {
      struct er_mpi_total *t = &all->functions[f];
      const struct er_mpi_total *r = &ranks[i].s.functions[f];
      t->calls += r->calls, t->seconds += r->seconds, t->sends += r->sends, t->sbytes += r->sbytes;
      t->receives += r->receives, t->rbytes += r->rbytes;
      all->all.calls += r->calls, all->all.seconds += r->seconds, all->all.sends += r->sends;
      all->all.sbytes += r->sbytes, all->all.receives += r->receives, all->all.rbytes += r->rbytes;
    }
  }
  if (all != NULL) {
    if (n > 1)
      print_total("<Total>", &all->all, app_total, mpi_total, work_total, all->other_calls);
    printf("\nMPI functions%s, by time in them (MPI_Init and MPI_Finalize included):\n", n > 1 ? ", all ranks" : "");
    printf("%-24s %10s %10s %8s %12s %8s %12s\n", "Function", "Calls", "MPI sec.", "Sends", "Bytes sent", "Receives",
           "Bytes recv.");
    size_t shown = 0;
    for (int done = 0; done < ER_MPI_N_FUNCTIONS && shown < rows; done++) {
      int best = -1;
      for (int f = 0; f < ER_MPI_N_FUNCTIONS; f++)
        if (all->functions[f].calls > 0 && (best < 0 || all->functions[f].seconds > all->functions[best].seconds))
          best = f;
      if (best < 0)
        break;
      const struct er_mpi_total *t = &all->functions[best];
      printf("%-24s %10llu %10.6f %8llu %12llu %8llu %12llu\n", er_mpi_function_name(best), t->calls, t->seconds,
             t->sends, t->sbytes, t->receives, t->rbytes);
      all->functions[best].calls = 0; /* shown */
      shown++;
    }
  }
  if (max_peer >= 0 && ranks[0].rank >= 0) {
    printf("\nBytes sent, by sender (rows) and receiver (columns), in MPI_COMM_WORLD:\n%-8s", "");
    for (int p = 0; p <= max_peer; p++)
      printf(" %10d", p);
    printf("\n");
    for (size_t i = 0; i < n; i++) {
      printf("%-8d", ranks[i].rank);
      for (int p = 0; p <= max_peer; p++)
        printf(" %10llu", ranks[i].s.peers[p].sbytes);
      printf("\n");
    }
  }
  free(all);
  free(ranks);
  return 0;
}
