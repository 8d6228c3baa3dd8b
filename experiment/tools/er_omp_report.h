/* gdbcol-report's OpenMP view (er_omp_report.c). */
#ifndef ER_OMP_REPORT_H
#define ER_OMP_REPORT_H

#include <stddef.h>

#include "er/er_names.h"
#include "er/er_reader.h"

/* Prints the OpenMP view of EXP, read from PATH, its functions named by
 * NAMES (ROWS: the most regions and functions listed); 0, or 1 when no
 * sample has an OpenMP state (said). */
int er_omp_report(const char *path, const struct er_experiment *exp, struct er_names *names, size_t rows);

#endif
