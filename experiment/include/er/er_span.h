/* A span of an experiment's run, between two of its sample points (as
 * log.xml numbers them: the experiment's open is 0), and an experiment
 * kept to it: every report view then shows only what ran in the span
 * (er_span.c).  What no other profiler gives a debugger's user: the cost
 * of one `continue`, between two stops. */
#ifndef ER_SPAN_H
#define ER_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_reader.h"

/* Times relative to the run event: after FROM, up to TO (INT64_MAX: the
 * end of what was recorded). */
struct er_span {
  int64_t from, to;
  char what[160]; /* how a report names it */
};

/* Between sample points FROM_POINT and TO_POINT (-1: the end of the
 * data).  0, or -1 with ERR naming the points there are. */
int er_span_between(const struct er_experiment *exp, long from_point, long to_point, struct er_span *span, char *err,
                    size_t err_len);
/* Since the stop before GDB's STOPS-th (the current stop; GDB counts them
 * from the experiment's start), each stop a sample point whose label
 * begins with ER_STOP_LABEL_PREFIX: from the (STOPS-1)-th (the experiment's start where that
 * is 0) up to the STOPS-th where it is recorded yet, else the end. */
int er_span_since_stop(const struct er_experiment *exp, unsigned long stops, struct er_span *span, char *err,
                       size_t err_len);
/* Keeps in EXP only what happened in SPAN: samples and counter overflows
 * by their time, traced calls by their end, allocations by their time. */
void er_experiment_keep_span(struct er_experiment *exp, const struct er_span *span);

#endif
