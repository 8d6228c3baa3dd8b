/* gdbcol-report's deadlock view (er_deadlock_report.c). */
#ifndef ER_DEADLOCK_REPORT_H
#define ER_DEADLOCK_REPORT_H

#include "er/er_names.h"
#include "er/er_reader.h"

/* Prints the potential deadlocks of EXP (read from PATH): each cycle of
 * its lock orders once, with every order's two acquisitions, its locks
 * named by NAMES.  0, or 1 when the experiment has no lock orders (said). */
int er_deadlock_report(const char *path, const struct er_experiment *exp, struct er_names *names);

#endif
