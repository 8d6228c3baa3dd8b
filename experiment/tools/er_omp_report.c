/* `collector report omp`: where an OpenMP program's threads worked and
 * where and why they waited, from the OpenMP state of each clock sample
 * (experiment-format.md §6.1a; gprofng 2.40 needs an omptrace file to show
 * it, not written yet).  The states with their seconds; gprofng's OpenMP
 * Work (work, serial, reduction), Wait (barriers, idle, the waits) and
 * Overhead; per parallel region, named by its outlined function (GCC's
 * NAME._omp_fn.N: the outermost one on the sample's stack); per function,
 * inclusive (a function once per stack). */
#define _GNU_SOURCE
#include "er_omp_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_names.h"
#include "er/er_omp.h"
#include "er/er_reader.h"

struct row {
  const char *name; /* er_names' string, valid while the names are open */
  double work, wait, overhead;
};

struct rows {
  struct row *r;
  size_t n;
};

static struct row *row_of(struct rows *rows, const char *name)
{
  for (size_t i = 0; i < rows->n; i++)
    if (strcmp(rows->r[i].name, name) == 0)
      return &rows->r[i];
  struct row *grown = realloc(rows->r, (rows->n + 1) * sizeof *grown);
  if (grown == NULL)
    return NULL;
  rows->r = grown;
  rows->r[rows->n] = (struct row){name, 0, 0, 0};
  return &rows->r[rows->n++];
}

static void add(struct row *row, char class, double seconds)
{
  if (row == NULL)
    return;
  if (class == 'w')
    row->work += seconds;
  else if (class == 'W')
    row->wait += seconds;
  else if (class == 'o')
    row->overhead += seconds;
}

static int by_total(const void *a, const void *b)
{
  const struct row *x = a, *y = b;
  double tx = x->work + x->wait + x->overhead, ty = y->work + y->wait + y->overhead;
  return (tx < ty) - (tx > ty);
}

static void print_rows(struct rows *rows, size_t limit, const char *title)
{
  qsort(rows->r, rows->n, sizeof *rows->r, by_total);
  printf("\n%s:\n%10s %10s %10s   %s\n", title, "Work sec.", "Wait sec.", "Overh. sec.", "Name");
  for (size_t i = 0; i < rows->n && i < limit; i++)
    printf("%10.3f %10.3f %10.3f   %s\n", rows->r[i].work, rows->r[i].wait, rows->r[i].overhead, rows->r[i].name);
}

/* Each function of ST once, into FUNCTIONS; the outermost outlined
 * region body, into REGIONS (or the row for samples outside any). */
static void add_stack(struct er_names *names, const struct er_stack *st, char class, double seconds,
                      struct rows *functions, struct rows *regions)
{
  const char *region = NULL, *seen[256];
  size_t n_seen = 0;
  for (size_t k = 0; k < st->n; k++) {
    const char *name = er_names_function(names, st->pcs[k]);
    if (strstr(name, "._omp_fn.") != NULL)
      region = name; /* leaf first: the last one found is the outermost */
    int again = 0;
    for (size_t j = 0; j < n_seen && !again; j++)
      again = strcmp(seen[j], name) == 0;
    if (again)
      continue;
    if (n_seen < sizeof seen / sizeof seen[0])
      seen[n_seen++] = name;
    add(row_of(functions, name), class, seconds);
  }
  add(row_of(regions, region != NULL ? region : "(outside any region: serial code, a worker between regions)"),
      class, seconds);
}

int er_omp_report(const char *path, const struct er_experiment *exp, struct er_names *names, size_t rows)
{
  double states[ER_OMP_N_STATES] = {0}, tick = exp->ptimer_us / 1e6, total = 0;
  struct rows functions = {0}, regions = {0};
  for (size_t i = 0; i < exp->n_clock; i++) {
    const struct er_stack *st = er_experiment_stack(exp, exp->clock[i].frinfo);
    if (st == NULL || st->omp_state <= 0 || st->omp_state >= ER_OMP_N_STATES)
      continue;
    double seconds = exp->clock[i].ntick * tick;
    states[st->omp_state] += seconds;
    total += seconds;
    add_stack(names, st, er_omp_state_class(st->omp_state), seconds, &functions, &regions);
  }
  int rc = 0;
  if (total == 0) {
    printf("%s: no OpenMP data (not an OpenMP program, or recorded without the sampler process: OpenMP states "
           "come from it, for programs built with gcc -fopenmp)\n", path);
    rc = 1;
  } else {
    double work = 0, wait = 0, overhead = 0;
    printf("OpenMP states of %s (the CPU time of its clock samples; waits that sleep are not sampled: run with "
           "OMP_WAIT_POLICY=active to see them):\n%-24s %10s %7s\n", path, "State", "sec.", "%");
    for (int s = 1; s < ER_OMP_N_STATES; s++) {
      char c = er_omp_state_class(s);
      work += c == 'w' ? states[s] : 0, wait += c == 'W' ? states[s] : 0, overhead += c == 'o' ? states[s] : 0;
      if (states[s] > 0)
        printf("%-24s %10.3f %7.2f\n", er_omp_state_name(s), states[s], 100 * states[s] / total);
    }
    printf("OpenMP Work %.3f s, OpenMP Wait %.3f s, OpenMP Overhead %.3f s (implicit barrier: a region's end, "
           "and a worker's idling between regions)\n", work, wait, overhead);
    print_rows(&regions, rows, "Parallel regions (by outlined function)");
    print_rows(&functions, rows, "Functions (inclusive)");
  }
  free(functions.r);
  free(regions.r);
  return rc;
}
