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

/* A thread's share of the metric, and how many events gave it. */
struct er_profile_thread {
  uint64_t thrid;
  double value, events;
};

/* A distinct call stack and the metric summed over its samples. */
struct er_profile_stack {
  size_t *functions; /* indexes into functions[], root first */
  size_t depth;
  double value;
};

struct er_profile {
  char metric[96]; /* "Total CPU Time", "Bytes Allocated", ... or the counter's name */
  char unit[16];   /* "sec.", "bytes", "count" or "events" */
  double total, samples;
  const char *counted; /* what SAMPLES counts: "samples" (clock, counters) or "events" (traced calls) */
  double per_count; /* the value of one count in folded stacks: a clock tick's seconds, or 1 event */
  struct er_profile_function *functions; /* by exclusive value, largest first */
  size_t n_functions;
  struct er_profile_stack *stacks;
  size_t n_stacks;
  struct er_profile_thread *threads; /* in no particular order */
  size_t n_threads;
};

/* Whose stacks an OpenMP program's samples are drawn with (gprofng's
 * -viewmode): user mode, as the program's source shows it (libgomp's
 * frames out, workers under their region's call, each wait under a
 * pseudo-function named after it), or machine mode, the native stacks. */
enum er_view_mode { ER_VIEW_USER, ER_VIEW_MACHINE };

/* The metrics EXP has, by the names METRIC takes, into NAMES (at most
 * ROOM); their count.  cpu (clock profiling); wall, offcpu and
 * offcpu.REASON (collector profile offcpu: waitcpu, sleep, io, lock,
 * blocked, stopped); sync (synctrace's wait time); io and io.bytes
 * (iotrace); heap, heap.allocations and heap.leaks (heaptrace: bytes,
 * calls, bytes never freed); each counter by its name (hwprofile). */
size_t er_profile_metrics(const struct er_experiment *exp, const char **names, size_t room);
/* METRIC: one of er_profile_metrics' names; NULL: cpu, or the first
 * counter of a counters-only experiment.  WITH_INLINED: the functions the debug info says
 * are inlined at a frame are frames of their own (as perf shows them).
 * MODE: for the samples that have a user-mode stack (OpenMP).  0, or -1
 * with ERR (no such data: the metrics the experiment has are named). */
int er_profile_build(const struct er_experiment *exp, struct er_names *names, const char *metric, int with_inlined,
                     enum er_view_mode mode, struct er_profile *profile, char *err, size_t err_len);
/* Several processes' experiments in one profile (exports of a run with
 * descendants): each part's stacks under its ROOT frame (NULL: none).
 * Parts without METRIC are left out; -1 with ERR where none has it. */
struct er_profile_part {
  const struct er_experiment *exp;
  struct er_names *names;
  const char *root;
};
int er_profile_build_parts(const struct er_profile_part *parts, size_t n_parts, const char *metric, int with_inlined,
                           enum er_view_mode mode, struct er_profile *profile, char *err, size_t err_len);
/* The index of the function NAME, or -1. */
long er_profile_find(const struct er_profile *profile, const char *name);
/* Into VALUES (one per function): what each function's calls to FUNC
 * (CALLERS) or FUNC's calls to it (callees) account for, gprofng's
 * attributed metric; a recursion counts once per stack. */
void er_profile_neighbours(const struct er_profile *profile, size_t func, int callers, double *values);
void er_profile_free(struct er_profile *profile);

#endif
