/* gdbcol-report's Firefox Profiler export (er_firefox.c). */
#ifndef ER_FIREFOX_H
#define ER_FIREFOX_H

#include <stddef.h>
#include <stdio.h>

#include "er/er_names.h"
#include "er/er_reader.h"

/* Writes EXP into OUT in the Firefox Profiler's processed format: a track
 * per thread, its samples with their stacks, CPU deltas and weights,
 * markers for sample points, pauses, synchronization waits, I/O calls and
 * allocations.  0, or -1 with the reason in ERR. */
int er_firefox_write(FILE *out, const struct er_experiment *exp, struct er_names *names, char *err, size_t err_len);
/* The same for a run's processes (the experiment, then its descendants'):
 * each thread in its process, named after its program, on one time axis
 * from the first one's run. */
int er_firefox_write_all(FILE *out, const struct er_experiment *const *exps, struct er_names *const *names,
                         size_t n_processes, char *err, size_t err_len);

#endif
