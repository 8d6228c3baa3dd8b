/* Where the threads' wall-clock time went (`collector report states`):
 * each thread's time on a CPU (its CPU samples) and off it by reason
 * (collector profile offcpu: er_offcpu.h), and the functions under which
 * it went, inclusive (a function counted once per stack, as gprofng
 * counts), most wall time first. */
#include "er_states_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er/er_offcpu.h"
#include "er_intern.h"

/* On a CPU, then each reason off it; both kinds of page fault in one. */
#define COLUMNS (ER_OFFCPU_REASONS - 1)
static int column_of(int reason)
{
  return reason == ER_OFFCPU_DATA_FAULT ? ER_OFFCPU_TEXT_FAULT : reason;
}

struct account {
  const char *name; /* a function's, or NULL for a thread's row */
  uint64_t thread;
  double seconds[COLUMNS];
};

/* Rows by key (a thread's id; a function's name, interned): one probe a
 * frame, however many functions the experiment names. */
struct table {
  struct account *rows;
  size_t n, room;
  struct er_id_table ids;
};

static double total_of(const struct account *a)
{
  double t = 0;
  for (int c = 0; c < COLUMNS; c++)
    t += a->seconds[c];
  return t;
}

static struct account *row_for(struct table *t, uint64_t key, const char *name, uint64_t thread)
{
  long id = er_id_of(&t->ids, key);
  if (id < 0)
    return NULL;
  if ((size_t)id < t->n)
    return &t->rows[id];
  struct account *more = er_grown(t->rows, &t->room, t->n, sizeof *more); /* a new key: the next id */
  if (more == NULL)
    return NULL;
  t->rows = more;
  struct account *a = &t->rows[t->n++];
  memset(a, 0, sizeof *a);
  a->name = name;
  a->thread = thread;
  return a;
}

/* SECONDS of column C for the sample's thread and each function of its
 * stack (once per stack: a recursive function, or two inlined copies of
 * one, counts once). */
static void account(struct table *threads, struct table *functions, struct er_strings *function_names,
                    struct er_names *names, const struct er_experiment *exp, const struct er_clock_sample *s, int c,
                    double seconds)
{
  c = column_of(c);
  struct account *a = row_for(threads, s->thrid, NULL, s->thrid);
  if (a != NULL)
    a->seconds[c] += seconds;
  const struct er_stack *st = er_experiment_stack(exp, s->frinfo);
  uint64_t seen[64];
  size_t n_seen = 0;
  for (size_t i = 0; st != NULL && i < st->n; i++) {
    /* A wait's period with no stack (none was sampled nor read: a wait of
     * a few milliseconds where the kernel gives no sample at a switch) is
     * the writer's unwind-failed marker alone. */
    const char *name = st->n == 1 && st->pcs[0] == ER_PC_UNWIND_FAILED && c != ER_OFFCPU_NONE
                           ? "<Wait-stack-not-seen>"
                           : er_names_function(names, st->pcs[i]);
    uint64_t key = er_strings_intern(function_names, name);
    int repeated = 0;
    for (size_t k = 0; k < n_seen && !repeated; k++)
      repeated = seen[k] == key;
    if (repeated)
      continue;
    if (n_seen < 64)
      seen[n_seen++] = key;
    struct account *f = row_for(functions, key, name, 0);
    if (f != NULL)
      f->seconds[c] += seconds;
  }
}

static int by_total(const void *x, const void *y)
{
  double a = total_of(x), b = total_of(y);
  return a < b ? 1 : a > b ? -1 : 0;
}

static void print_header(const char *first)
{
  printf("%-24s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", first, "Wall", "On CPU", "Wait CPU", "Sleep", "I/O", "Lock",
         "Blocked", "Stopped", "Fault");
}

static void print_row(const char *label, const struct account *a)
{
  printf("%-24s %9.3f", label, total_of(a));
  for (int c = 0; c < COLUMNS; c++)
    printf(" %9.3f", a->seconds[c]);
  printf("\n");
}

int er_states_report(const char *path, const struct er_experiment *exp, struct er_names *names, size_t rows)
{
  if (exp->numstates < ER_NUMSTATES) {
    printf("Experiment %s holds CPU time only: record with collector profile offcpu on to see where threads "
           "waited.\n", path);
    return 1;
  }
  double tick = (double)exp->ptimer_us / 1e6;
  struct table threads = {0}, functions = {0};
  struct er_strings function_names = {0};
  for (size_t i = 0; i < exp->n_clock; i++)
    account(&threads, &functions, &function_names, names, exp, &exp->clock[i], ER_OFFCPU_NONE,
            exp->clock[i].ntick * tick);
  for (size_t i = 0; i < exp->n_offcpu; i++)
    account(&threads, &functions, &function_names, names, exp, &exp->offcpu[i], (int)exp->offcpu[i].reason,
            exp->offcpu[i].ntick * tick);
  qsort(threads.rows, threads.n, sizeof *threads.rows, by_total);
  qsort(functions.rows, functions.n, sizeof *functions.rows, by_total);
  printf("Experiment %s: where each thread's wall-clock time went (seconds; Wait CPU: runnable, waiting for a "
         "CPU; Blocked: off its CPU in a call no name explains, or with no stack seen; Stopped: by GDB or a stop "
         "signal; Fault: in a page fault, on code or data)\n\n", path);
  print_header("Thread");
  struct account all = {0};
  for (size_t i = 0; i < threads.n; i++) {
    char label[32];
    snprintf(label, sizeof label, "%llu", (unsigned long long)threads.rows[i].thread);
    print_row(label, &threads.rows[i]);
    for (int c = 0; c < COLUMNS; c++)
      all.seconds[c] += threads.rows[i].seconds[c];
  }
  print_row("<Total>", &all);
  printf("\n");
  print_header("Function (inclusive)");
  for (size_t i = 0; i < functions.n && i < rows; i++)
    print_row(functions.rows[i].name, &functions.rows[i]);
  free(threads.rows);
  free(functions.rows);
  er_id_table_free(&threads.ids);
  er_id_table_free(&functions.ids);
  er_strings_free(&function_names);
  return 0;
}
