/* gdbcol-report's data race view (er_race_report.c). */
#ifndef ER_RACE_REPORT_H
#define ER_RACE_REPORT_H

#include "er/er_names.h"
#include "er/er_reader.h"

/* Prints the data races of EXP (read from PATH): each race with its two
 * accesses, the location named by NAMES.  0, or 1 when the experiment
 * was not recorded for races (said). */
int er_race_report(const char *path, const struct er_experiment *exp, struct er_names *names);

#endif
