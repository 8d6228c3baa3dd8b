/* er-dump's hardware-counter section: each declared counter's events
 * (overflows x interval, as gprofng counts them) in all and per function,
 * exclusive (the sample's leaf) and inclusive (once per stack). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er_dump_hwc.h"

struct function_events {
  const char *counter;
  char name[256];
  unsigned long long excl, incl;
};

static struct function_events *rows;
static size_t n_rows;

static struct function_events *row_for(const char *counter, const char *name)
{
  for (size_t i = 0; i < n_rows; i++)
    if (rows[i].counter == counter && strcmp(rows[i].name, name) == 0)
      return &rows[i];
  struct function_events *more = realloc(rows, (n_rows + 1) * sizeof *rows);
  if (more == NULL)
    return NULL;
  rows = more;
  memset(&rows[n_rows], 0, sizeof *rows);
  rows[n_rows].counter = counter;
  snprintf(rows[n_rows].name, sizeof rows[n_rows].name, "%s", name);
  return &rows[n_rows++];
}

static const char *counter_named(const struct er_experiment *exp, uint32_t tag)
{
  for (size_t i = 0; i < exp->n_counters; i++)
    if (exp->counters[i].tag == tag)
      return exp->counters[i].name;
  return NULL;
}

void er_dump_hwc(const struct er_experiment *exp, er_pc_name_fn name_of)
{
  unsigned long long *totals = calloc(exp->n_counters + 1, sizeof *totals);
  if (totals == NULL)
    return;
  for (size_t i = 0; i < exp->n_hwc_samples; i++) {
    const struct er_hwc_sample *s = &exp->hwc_samples[i];
    const char *counter = counter_named(exp, s->tag);
    if (counter == NULL)
      continue; /* a tag log.xml does not declare: gprofng drops it too */
    for (size_t c = 0; c < exp->n_counters; c++)
      if (exp->counters[c].name == counter)
        totals[c] += s->interval;
    const struct er_stack *st = er_experiment_stack(exp, s->frinfo);
    for (size_t k = 0; st != NULL && k < st->n; k++) {
      struct function_events *r = row_for(counter, name_of(exp, st->pcs[k]));
      if (r == NULL)
        break;
      if (k == 0)
        r->excl += s->interval;
      size_t j; /* once per stack however often the function recurs in it */
      for (j = 0; j < k && strcmp(name_of(exp, st->pcs[j]), r->name) != 0; j++)
        ;
      if (j == k)
        r->incl += s->interval;
    }
  }
  for (size_t c = 0; c < exp->n_counters; c++)
    printf("hwc_events %s: %llu\n", exp->counters[c].name, totals[c]);
  free(totals);
}

void er_dump_hwc_functions(void)
{
  printf("hwc_functions:\n");
  for (size_t i = 0; i < n_rows; i++)
    printf("%s %llu %llu %s\n", rows[i].counter, rows[i].excl, rows[i].incl, rows[i].name);
  free(rows);
  rows = NULL;
  n_rows = 0;
}
