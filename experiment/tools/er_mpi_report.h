/* gdbcol-report's MPI view (er_mpi_report.c). */
#ifndef ER_MPI_REPORT_H
#define ER_MPI_REPORT_H

#include <stddef.h>

/* Prints the MPI view of the job or rank experiment at PATH (ROWS: the
 * most functions listed); 0, or 1 when it holds no MPI data (said). */
int er_mpi_report(const char *path, size_t rows);

#endif
