/* gdbcol-report's thread-states view (er_states_report.c). */
#ifndef ER_STATES_REPORT_H
#define ER_STATES_REPORT_H

#include <stddef.h>

#include "er/er_names.h"
#include "er/er_reader.h"

/* Prints where EXP's (read from PATH) threads' wall-clock time went: per
 * thread and per function (inclusive, the ROWS first), on a CPU and off
 * it by reason.  0, or 1 when off-CPU time was not recorded (said). */
int er_states_report(const char *path, const struct er_experiment *exp, struct er_names *names, size_t rows);

#endif
