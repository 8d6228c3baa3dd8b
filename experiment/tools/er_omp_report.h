/* gdbcol-report's OpenMP view (er_omp_report.c). */
#ifndef ER_OMP_REPORT_H
#define ER_OMP_REPORT_H

#include <stddef.h>

/* Prints the OpenMP view of the experiment at PATH (ROWS: the most
 * functions listed); 0, or 1 when no sample has an OpenMP state (said). */
int er_omp_report(const char *path, size_t rows);

#endif
