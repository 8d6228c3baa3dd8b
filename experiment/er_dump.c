/* er-dump: prints what an experiment holds, read with the project's own
 * reader (not gprofng), for tests and for humans.
 *
 *   er-dump EXPERIMENT.er        summary, threads, functions
 *
 * Function lines are "excl_seconds incl_seconds name", sorted by exclusive
 * time; the summary lines are "key: value" so scripts can grep them
 * ("packets_in_pauses" counts clock packets stamped inside a pause). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_archive.h"
#include "er/er_format.h"
#include "er/er_reader.h"

struct func_total {
  char name[256];
  double excl, incl;
};

struct thread_total {
  uint64_t thrid;
  size_t samples;
  double seconds;
};

static struct func_total *funcs;
static size_t n_funcs;

static struct func_total *func_named(const char *name)
{
  for (size_t i = 0; i < n_funcs; i++)
    if (strcmp(funcs[i].name, name) == 0)
      return &funcs[i];
  funcs = realloc(funcs, (n_funcs + 1) * sizeof *funcs);
  memset(&funcs[n_funcs], 0, sizeof *funcs);
  snprintf(funcs[n_funcs].name, sizeof funcs[n_funcs].name, "%s", name);
  return &funcs[n_funcs++];
}

/* PC -> name memo: symbolizing opens the ELF file, so do it once per PC. */
struct pc_name {
  uint64_t pc;
  char name[256];
};
static struct pc_name *memo;
static size_t n_memo;

static const char *name_of(const struct er_experiment *exp, uint64_t pc)
{
  for (size_t i = 0; i < n_memo; i++)
    if (memo[i].pc == pc)
      return memo[i].name;
  memo = realloc(memo, (n_memo + 1) * sizeof *memo);
  memo[n_memo].pc = pc;
  if (pc == ER_PC_TRUNCATED)
    snprintf(memo[n_memo].name, sizeof memo[n_memo].name, "<Truncated-stack>");
  else if (pc == ER_PC_UNWIND_FAILED)
    snprintf(memo[n_memo].name, sizeof memo[n_memo].name, "<Stack-unwind-failed>");
  else
    er_symbolize(exp, er_experiment_segment(exp, pc), pc, memo[n_memo].name, sizeof memo[n_memo].name);
  return memo[n_memo++].name;
}

static int by_excl(const void *a, const void *b)
{
  double x = ((const struct func_total *)a)->excl, y = ((const struct func_total *)b)->excl;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void report_changed_object(const char *path, const char *why, void *unused)
{
  printf("object: %s %s\n", path, why);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: er-dump EXPERIMENT.er\n");
    return 2;
  }
  struct er_experiment exp;
  char err[512];
  if (er_experiment_open(argv[1], &exp, err, sizeof err) != 0) {
    fprintf(stderr, "er-dump: %s\n", err);
    return 1;
  }
  struct thread_total threads[1024];
  size_t n_threads = 0, missing = 0, ticks = 0, in_pauses = 0;
  int64_t last_clock = 0;
  double tick_seconds = exp.ptimer_us / 1e6;
  for (size_t i = 0; i < exp.n_clock; i++) {
    const struct er_clock_sample *s = &exp.clock[i];
    double w = s->ntick * tick_seconds;
    for (size_t p = 0; p < exp.n_pauses; p++) {
      int64_t rel = s->tstamp - exp.run_tstamp;
      if (rel >= exp.pauses[p].start && (exp.pauses[p].end < 0 || rel < exp.pauses[p].end))
        in_pauses++;
    }
    ticks += (size_t)s->ntick;
    if (s->tstamp - exp.run_tstamp > last_clock)
      last_clock = s->tstamp - exp.run_tstamp;
    size_t t;
    for (t = 0; t < n_threads && threads[t].thrid != s->thrid; t++)
      ;
    if (t == n_threads && n_threads < 1024)
      threads[n_threads++] = (struct thread_total){s->thrid, 0, 0};
    if (t < n_threads) {
      threads[t].samples++;
      threads[t].seconds += w;
    }
    const struct er_stack *st = er_experiment_stack(&exp, s->frinfo);
    if (st == NULL) {
      missing++;
      continue;
    }
    const char *seen[ER_MAX_STACK_DEPTH + 2];
    size_t n_seen = 0;
    for (size_t k = 0; k < st->n; k++) {
      const char *name = name_of(&exp, st->pcs[k]);
      struct func_total *f = func_named(name);
      if (k == 0)
        f->excl += w;
      size_t j;
      for (j = 0; j < n_seen && seen[j] != name; j++)
        ;
      if (j == n_seen) {
        seen[n_seen++] = name;
        f->incl += w;
      }
    }
  }
  printf("experiment: %s\n", argv[1]);
  printf("closed: %s\n", exp.has_run && exp.has_exit ? "yes" : "no");
  printf("ptimer_us: %ld\n", exp.ptimer_us);
  printf("clock_packets: %zu\n", exp.n_clock);
  printf("ticks: %zu\n", ticks);
  printf("cpu_seconds: %.3f\n", ticks * tick_seconds);
  printf("stacks: %zu\n", exp.n_stacks);
  printf("missing_stacks: %zu\n", missing);
  printf("invalid_packets: %zu\n", exp.invalid_packets);
  printf("segments: %zu\n", exp.n_segments);
  printf("sample_events: %zu\n", exp.n_sample_events);
  printf("overview_records: %zu%s\n", exp.overview_bytes / sizeof(struct er_overview_record),
         exp.overview_bytes % sizeof(struct er_overview_record) ? " (partial record!)" : "");
  printf("threads: %zu\n", n_threads);
  printf("pauses: %zu\n", exp.n_pauses);
  printf("packets_in_pauses: %zu\n", in_pauses);
  printf("last_clock_seconds: %.3f\n", last_clock / 1e9);
  printf("exit_seconds: %.3f\n", exp.exit_tstamp / 1e9);
  for (size_t i = 0; i < exp.n_sample_events; i++)
    printf("sample %zu: %s\n", i, exp.sample_labels[i]);
  for (size_t i = 0; i < exp.n_sample_events; i++)
    printf("sample_time %zu: %.3f\n", i, exp.sample_tstamps[i] / 1e9);
  for (size_t i = 0; i < exp.n_comments; i++)
    printf("comment: %s\n", exp.comments[i]);
  for (size_t i = 0; i < exp.n_warnings; i++)
    printf("warning: %s\n", exp.warnings[i]);
  er_archive_check(argv[1], report_changed_object, NULL);
  for (size_t t = 0; t < n_threads; t++)
    printf("thread %llu: %zu samples %.3f s\n", (unsigned long long)threads[t].thrid, threads[t].samples,
           threads[t].seconds);
  qsort(funcs, n_funcs, sizeof *funcs, by_excl);
  printf("functions:\n");
  for (size_t i = 0; i < n_funcs; i++)
    printf("%.3f %.3f %s\n", funcs[i].excl, funcs[i].incl, funcs[i].name);
  er_experiment_close(&exp);
  return 0;
}
