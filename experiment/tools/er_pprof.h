/* gdbcol-report's pprof export (er_pprof.c). */
#ifndef ER_PPROF_H
#define ER_PPROF_H

#include <stddef.h>
#include <stdio.h>

#include "er/er_names.h"
#include "er/er_reader.h"

/* Writes EXP as pprof's profile.proto, gzip-compressed, into OUT: every
 * metric the experiment holds as a sample type, one sample per call
 * stack, its frames with their inlined functions, the load objects as
 * mappings with their build ids.  0, or -1 with the reason in ERR. */
int er_pprof_write(FILE *out, const struct er_experiment *exp, struct er_names *names, char *err,
                   size_t err_len);
/* ... every process of a run in one profile: N_PROCESSES experiments with
 * their names, each sample labelled with its process's LABELS[k] ("process";
 * LABELS NULL: none). */
int er_pprof_write_all(FILE *out, const struct er_experiment *const *exps, struct er_names *const *names,
                       const char *const *labels, size_t n_processes, char *err, size_t err_len);

#endif
