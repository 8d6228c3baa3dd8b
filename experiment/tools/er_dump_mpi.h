/* er-dump's MPI section. */
#ifndef ER_DUMP_MPI_H
#define ER_DUMP_MPI_H

#include "er/er_reader.h"

/* Totals (the seeds' MPI metrics), then per function and per peer. */
void er_dump_mpi(const struct er_experiment *exp);

#endif
