/* One metric's function profile of an experiment (er_profile.c): what
 * `collector report` and gdbcol-report print, and what flame graphs draw.
 * Values are in the metric's unit: seconds of CPU time, or a counter's
 * events. */
#ifndef ER_PROFILE_H
#define ER_PROFILE_H

#include <stddef.h>

#include "er/er_names.h"
#include "er/er_reader.h"

struct er_profile_function {
  char *name;
  double excl, incl;
};

/* A distinct call stack and the metric summed over its samples. */
struct er_profile_stack {
  size_t *functions; /* indexes into functions[], root first */
  size_t depth;
  double value;
};

struct er_profile {
  char metric[96]; /* "Total CPU Time", or the counter's name */
  char unit[16];   /* "sec." or "events" */
  double total, samples;
  double per_count; /* the value of one count in folded stacks: a clock tick's seconds, or 1 event */
  struct er_profile_function *functions; /* by exclusive value, largest first */
  size_t n_functions;
  struct er_profile_stack *stacks;
  size_t n_stacks;
};

/* Whose stacks an OpenMP program's samples are drawn with (gprofng's
 * -viewmode): user mode, as the program's source shows it (libgomp's
 * frames out, workers under their region's call, each wait under a
 * pseudo-function named after it), or machine mode, the native stacks. */
enum er_view_mode { ER_VIEW_USER, ER_VIEW_MACHINE };

/* METRIC: NULL or "cpu" for clock profiling, else a counter's name as
 * log.xml declares it.  WITH_INLINED: the functions the debug info says
 * are inlined at a frame are frames of their own (as perf shows them).
 * MODE: for the samples that have a user-mode stack (OpenMP).  0, or -1
 * with ERR (no such data: the metrics the experiment has are named). */
int er_profile_build(const struct er_experiment *exp, struct er_names *names, const char *metric, int with_inlined,
                     enum er_view_mode mode, struct er_profile *profile, char *err, size_t err_len);
/* The index of the function NAME, or -1. */
long er_profile_find(const struct er_profile *profile, const char *name);
/* Into VALUES (one per function): what each function's calls to FUNC
 * (CALLERS) or FUNC's calls to it (callees) account for, gprofng's
 * attributed metric; a recursion counts once per stack. */
void er_profile_neighbours(const struct er_profile *profile, size_t func, int callers, double *values);
void er_profile_free(struct er_profile *profile);

#endif
