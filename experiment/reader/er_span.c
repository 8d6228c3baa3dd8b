/* A span between two sample points, and an experiment kept to it
 * (er/er_span.h). */
#include "er/er_span.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_gdb_layout.h"
#include "er/er_mpi_calls.h"

static int64_t point_time(const struct er_experiment *exp, long point)
{
  return point < 0 || (size_t)point >= exp->n_sample_events ? INT64_MAX : exp->sample_tstamps[point];
}

int er_span_between(const struct er_experiment *exp, long from_point, long to_point, struct er_span *span, char *err,
                    size_t err_len)
{
  long last = (long)exp->n_sample_events - 1;
  if (from_point < 0 || from_point > last || to_point > last || (to_point >= 0 && to_point <= from_point)) {
    if (last < 0)
      snprintf(err, err_len, "the experiment has no sample points");
    else
      snprintf(err, err_len, "sample points %ld and %ld: the experiment has points 0 to %ld (0: its start), and the "
               "first must come before the second", from_point, to_point, last);
    return -1;
  }
  span->from = point_time(exp, from_point);
  span->to = point_time(exp, to_point);
  snprintf(span->what, sizeof span->what, "between sample points %ld (%s, %.3f s) and %ld (%s, %.3f s)", from_point,
           exp->sample_labels[from_point], (double)span->from / 1e9, to_point >= 0 ? to_point : last + 1,
           to_point >= 0 ? exp->sample_labels[to_point] : "the end",
           to_point >= 0 ? (double)span->to / 1e9 : 0.0);
  if (to_point < 0) /* (no time for the end: what was recorded) */
    snprintf(span->what, sizeof span->what, "since sample point %ld (%s, %.3f s)", from_point,
             exp->sample_labels[from_point], (double)span->from / 1e9);
  return 0;
}

/* The N-th sample point of a GDB stop (1-based), or -1. */
static long stop_point(const struct er_experiment *exp, unsigned long n)
{
  unsigned long seen = 0;
  for (size_t i = 0; i < exp->n_sample_events; i++)
    if (strncmp(exp->sample_labels[i], ER_STOP_LABEL_PREFIX, strlen(ER_STOP_LABEL_PREFIX)) == 0 && ++seen == n)
      return (long)i;
  return -1;
}

int er_span_since_stop(const struct er_experiment *exp, unsigned long stops, struct er_span *span, char *err,
                       size_t err_len)
{
  long previous = stops > 1 ? stop_point(exp, stops - 1) : 0, current = stop_point(exp, stops);
  if (stops > 1 && previous < 0) {
    snprintf(err, err_len, "the stop before this one is not among the experiment's sample points (collector "
             "dbxsample was off then, or the experiment began after it)");
    return -1;
  }
  if (exp->n_sample_events == 0) {
    snprintf(err, err_len, "the experiment has no sample points");
    return -1;
  }
  span->from = stops > 1 ? point_time(exp, previous) : INT64_MIN;
  span->to = point_time(exp, current);
  if (stops > 1)
    snprintf(span->what, sizeof span->what, "since the last stop (sample point %ld, %.3f s into the run)", previous,
             (double)span->from / 1e9);
  else
    snprintf(span->what, sizeof span->what, "since the experiment began (this is its first stop)");
  return 0;
}

static int in_span(const struct er_experiment *exp, const struct er_span *span, int64_t absolute)
{
  int64_t t = absolute - exp->run_tstamp;
  return t > span->from && t <= span->to;
}

/* Keeps the elements of ARRAY (N of SIZE bytes) whose time (read by WHEN)
 * lies in SPAN, in order. */
#define KEEP(array, n, when)                                \
  do {                                                      \
    size_t kept_ = 0;                                       \
    for (size_t i_ = 0; i_ < (n); i_++)                     \
      if (in_span(exp, span, (array)[i_].when))             \
        (array)[kept_++] = (array)[i_];                     \
    (n) = kept_;                                            \
  } while (0)

void er_experiment_keep_span(struct er_experiment *exp, const struct er_span *span)
{
  KEEP(exp->clock, exp->n_clock, tstamp);
  KEEP(exp->offcpu, exp->n_offcpu, tstamp);
  KEEP(exp->hwc_samples, exp->n_hwc_samples, tstamp);
  KEEP(exp->waits, exp->n_waits, end);
  KEEP(exp->mpi_calls, exp->n_mpi_calls, end);
  KEEP(exp->heap_events, exp->n_heap_events, tstamp);
  size_t kept = 0; /* (an I/O call owns its name: those left out are freed) */
  for (size_t i = 0; i < exp->n_io_calls; i++) {
    if (in_span(exp, span, exp->io_calls[i].end))
      exp->io_calls[kept++] = exp->io_calls[i];
    else
      free(exp->io_calls[i].name);
  }
  exp->n_io_calls = kept;
}
