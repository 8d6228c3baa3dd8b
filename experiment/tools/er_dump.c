/* er-dump: prints what an experiment holds, read with the project's own
 * reader (not gprofng), for tests and for humans.
 *
 *   er-dump EXPERIMENT.er        summary, threads, functions
 *
 * Function lines are "excl_seconds incl_seconds name", sorted by exclusive
 * time; the summary lines are "key: value" so scripts can grep them
 * ("packets_in_pauses" counts clock packets stamped inside a pause).
 * Exit status: 0; 1 when the experiment cannot be read; 3 when it was read
 * but is damaged (invalid or self-contradicting packets, samples whose
 * stack is missing), so its numbers cannot be trusted; 2 for bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_archive.h"
#include "er/er_format.h"
#include "er/er_offcpu.h"
#include "er/er_pseudo_functions.h"
#include "er/er_reader.h"
#include "er_dump_heap.h"
#include "er_dump_hwc.h"
#include "er_dump_io.h"
#include "er_dump_mpi.h"
#include "er_dump_omp.h"

struct func_total {
  char name[256];
  double excl, incl;
  double sync_incl; /* synchronization waits this function is on the stack of */
};

struct thread_total {
  uint64_t thrid;
  size_t samples;
  double seconds;
};

static struct func_total *funcs;
static size_t n_funcs;

/* The index of the function called NAME (one entry per name, however
 * many addresses resolve to it). */
static size_t func_index(const char *name)
{
  for (size_t i = 0; i < n_funcs; i++)
    if (strcmp(funcs[i].name, name) == 0)
      return i;
  funcs = realloc(funcs, (n_funcs + 1) * sizeof *funcs);
  memset(&funcs[n_funcs], 0, sizeof *funcs);
  snprintf(funcs[n_funcs].name, sizeof funcs[n_funcs].name, "%s", name);
  return n_funcs++;
}

/* PC -> function memo: symbolizing opens the ELF file, so do it once per PC. */
struct pc_function {
  uint64_t pc;
  size_t func;
};
static struct pc_function *memo;
static size_t n_memo;

static size_t function_of(const struct er_experiment *exp, uint64_t pc)
{
  for (size_t i = 0; i < n_memo; i++)
    if (memo[i].pc == pc)
      return memo[i].func;
  char name[256];
  if (pc == ER_PC_TRUNCATED)
    snprintf(name, sizeof name, "<Truncated-stack>");
  else if (pc == ER_PC_UNWIND_FAILED)
    snprintf(name, sizeof name, "<Stack-unwind-failed>");
  else
    er_symbolize(exp, er_experiment_segment(exp, pc), pc, name, sizeof name);
  memo = realloc(memo, (n_memo + 1) * sizeof *memo);
  memo[n_memo].pc = pc;
  memo[n_memo].func = func_index(name);
  return memo[n_memo++].func;
}

static const char *pc_name(const struct er_experiment *exp, uint64_t pc)
{
  size_t f = function_of(exp, pc); /* first: it may move funcs */
  return funcs[f].name;
}

/* T - BASE, wrapping (never undefined) for times a damaged file makes up. */
static int64_t relative(int64_t t, int64_t base)
{
  return (int64_t)((uint64_t)t - (uint64_t)base);
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

static void usage(FILE *out)
{
  fprintf(out, "usage: er-dump EXPERIMENT.er\n"
               "Prints what the experiment holds, read with gdb-collector's own reader: a summary\n"
               "(\"key: value\" lines), sample points, comments, warnings, threads, and functions\n"
               "(\"exclusive_seconds inclusive_seconds name\"); with synctrace, sync_functions\n"
               "(\"inclusive_wait_seconds name\"); with iotrace, I/O totals and io_files\n"
               "(\"read_bytes write_bytes calls name\"); with heaptrace, heap totals, leaks and heap_sites\n"
               "(\"allocations bytes leaks leaked_bytes allocating_function\"); with counters, events per\n"
               "counter and hwc_functions (\"counter exclusive_events inclusive_events function\").\n"
               "Exit status: 0 read; 1 unreadable; 3 damaged (numbers not to be trusted); 2 usage.\n");
}

int main(int argc, char **argv)
{
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc != 2 || (argv[1][0] == '-' && argv[1][1] != '\0')) {
    usage(stderr);
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
  size_t not_sampled_packets = 0, not_sampled_ticks = 0; /* (the runtime's <Not-sampled-under-load>) */
  double ticks_squared = 0; /* for the effective number of samples */
  int64_t last_clock = 0;
  double tick_seconds = exp.ptimer_us / 1e6;
  for (size_t i = 0; i < exp.n_clock; i++) {
    const struct er_clock_sample *s = &exp.clock[i];
    double w = s->ntick * tick_seconds;
    int64_t rel = relative(s->tstamp, exp.run_tstamp);
    for (size_t p = 0; p < exp.n_pauses; p++) {
      if (rel >= exp.pauses[p].start && (exp.pauses[p].end < 0 || rel < exp.pauses[p].end))
        in_pauses++;
    }
    ticks += (size_t)s->ntick;
    if (rel > last_clock)
      last_clock = rel;
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
    int not_sampled = 0;
    if (st != NULL && st->n == 1) {
      size_t leaf = function_of(&exp, st->pcs[0]); /* (first: it may move funcs) */
      not_sampled = strcmp(funcs[leaf].name, ER_NOT_SAMPLED_FUNCTION) == 0;
    }
    if (not_sampled) {
      not_sampled_packets++; /* CPU time, no sample */
      not_sampled_ticks += (size_t)s->ntick;
    } else {
      ticks_squared += (double)s->ntick * s->ntick;
    }
    if (st == NULL) {
      missing++;
      continue;
    }
    /* A function counts once per stack however often it recurs in it,
     * as in gprofng. */
    size_t seen[ER_MAX_STACK_DEPTH + 2];
    size_t n_seen = 0;
    for (size_t k = 0; k < st->n; k++) {
      size_t f = function_of(&exp, st->pcs[k]);
      if (k == 0)
        funcs[f].excl += w;
      size_t j;
      for (j = 0; j < n_seen && seen[j] != f; j++)
        ;
      if (j == n_seen && n_seen < sizeof seen / sizeof seen[0]) {
        seen[n_seen++] = f;
        funcs[f].incl += w;
      }
    }
  }
  /* Synchronization waits: each function once per wait's stack. */
  for (size_t i = 0; i < exp.n_waits; i++) {
    const struct er_stack *st = er_experiment_stack(&exp, exp.waits[i].frinfo);
    if (st == NULL) {
      missing++;
      continue;
    }
    double w = (exp.waits[i].end - exp.waits[i].start) / 1e9;
    size_t seen[ER_MAX_STACK_DEPTH + 2], n_seen = 0;
    for (size_t k = 0; k < st->n; k++) {
      size_t f = function_of(&exp, st->pcs[k]), j;
      for (j = 0; j < n_seen && seen[j] != f; j++)
        ;
      if (j == n_seen && n_seen < sizeof seen / sizeof seen[0]) {
        seen[n_seen++] = f;
        funcs[f].sync_incl += w;
      }
    }
  }
  printf("experiment: %s\n", argv[1]);
  if (exp.cwd != NULL)
    printf("cwd: %s\n", exp.cwd); /* its bytes, as the program had them */
  printf("closed: %s\n", exp.has_run && exp.has_exit ? "yes" : "no");
  if (exp.has_exit && exp.ended_early != NULL)
    printf("ended_by: the collector, before the program (%s)\n", exp.ended_early);
  else
    printf("ended_by: %s\n", !exp.has_exit      ? "nothing (still running, killed or crashed)"
                              : exp.ended_by_exec ? "exec"
                              : exp.ended_killed  ? "killed (the program ended without exiting)"
                              : exp.ended_sampler_died ? "the sampler process died (end marked by GDB)"
                                                  : "exit");
  printf("ptimer_us: %ld\n", exp.ptimer_us);
  printf("clock_packets: %zu\n", exp.n_clock);
  printf("ticks: %zu\n", ticks);
  /* The CPU time the program's late timers found no sample of (its own
   * packets: no sample's, no share's). */
  printf("clock_not_sampled_packets: %zu\n", not_sampled_packets);
  printf("clock_not_sampled_seconds: %.3f\n", not_sampled_ticks * tick_seconds);
  /* Samples of unequal weight (the kernel's CPU-time timers, late under
   * load, weight each sample by the CPU time since the last) tell as much
   * about shares of the time they stand for as (sum of weights)^2 / sum of
   * squared weights equal ones. */
  size_t placed = ticks - not_sampled_ticks;
  printf("clock_effective_samples: %.1f\n", ticks_squared > 0 ? (double)placed * placed / ticks_squared : 0.0);
  printf("cpu_seconds: %.3f\n", ticks * tick_seconds);
  if (exp.numstates >= ER_NUMSTATES) { /* off-CPU time (collector profile offcpu): ticks by reason */
    size_t off[ER_OFFCPU_REASONS] = {0};
    for (size_t i = 0; i < exp.n_offcpu; i++)
      off[exp.offcpu[i].reason] += (size_t)exp.offcpu[i].ntick;
    printf("offcpu_packets: %zu\n", exp.n_offcpu);
    for (int r = ER_OFFCPU_RUNNABLE; r < ER_OFFCPU_REASONS; r++)
      printf("offcpu_ticks %s: %zu\n", er_offcpu_reason_title((enum er_offcpu_reason)r), off[r]);
  }
  printf("stacks: %zu\n", exp.n_stacks);
  printf("missing_stacks: %zu\n", missing);
  printf("invalid_packets: %zu\n", exp.invalid_packets);
  printf("damaged_packets: %zu\n", exp.damaged_packets);
  printf("segments: %zu\n", exp.n_segments);
  printf("sample_events: %zu\n", exp.n_sample_events);
  printf("overview_records: %zu%s\n", exp.overview_bytes / sizeof(struct er_overview_record),
         exp.overview_bytes % sizeof(struct er_overview_record) ? " (partial record!)" : "");
  printf("threads: %zu\n", n_threads);
  printf("pauses: %zu\n", exp.n_pauses);
  printf("packets_in_pauses: %zu\n", in_pauses);
  printf("last_clock_seconds: %.3f\n", last_clock / 1e9);
  if (exp.declared[ER_KIND_SYNC]) {
    double waited = 0;
    for (size_t i = 0; i < exp.n_waits; i++)
      waited += (exp.waits[i].end - exp.waits[i].start) / 1e9;
    printf("sync_threshold_us: %ld\n", exp.sync_threshold_us);
    printf("sync_waits: %zu\n", exp.n_waits);
    printf("sync_seconds: %.4f\n", waited);
  }
  if (exp.declared[ER_KIND_IO])
    er_dump_io(&exp);
  if (exp.declared[ER_KIND_HEAP])
    er_dump_heap(&exp, pc_name);
  if (exp.declared[ER_KIND_HWC])
    er_dump_hwc(&exp, pc_name);
  if (exp.declared[ER_KIND_MPI])
    er_dump_mpi(&exp);
  er_dump_omp(&exp);
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
  if (n_funcs > 0) /* none without clock samples (an I/O trace alone): qsort wants an array */
    qsort(funcs, n_funcs, sizeof *funcs, by_excl);
  printf("functions:\n");
  for (size_t i = 0; i < n_funcs; i++)
    printf("%.3f %.3f %s\n", funcs[i].excl, funcs[i].incl, funcs[i].name);
  if (exp.declared[ER_KIND_SYNC]) {
    printf("sync_functions:\n");
    for (size_t i = 0; i < n_funcs; i++)
      if (funcs[i].sync_incl > 0)
        printf("%.4f %s\n", funcs[i].sync_incl, funcs[i].name);
  }
  if (exp.declared[ER_KIND_HEAP])
    er_dump_heap_sites();
  if (exp.declared[ER_KIND_HWC])
    er_dump_hwc_functions();
  int damaged = exp.invalid_packets > 0 || exp.damaged_packets > 0 || missing > 0;
  if (damaged)
    fprintf(stderr, "er-dump: %s is damaged: %zu invalid packet(s), %zu damaged packet(s), %zu sample(s) "
            "without their stack\n", argv[1], exp.invalid_packets, exp.damaged_packets, missing);
  er_experiment_close(&exp);
  return damaged ? 3 : 0;
}
