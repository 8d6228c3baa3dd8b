/* One budget for the experiment's data files, the write errors that stop
 * them, and the counters GDB reads at a stop. */
#ifndef COL_CORE_DATA_LIMIT_H
#define COL_CORE_DATA_LIMIT_H

#include <stdint.h>

#include "er/er_gdb_layout.h"

/* Charges the experiment's data files to one budget of LIMIT_MB (0: none). */
void col_limit_start(long limit_mb);
/* Charges a data file made later (omptrace) to the same budget. */
struct er_datafile;
void col_limit_charge(struct er_datafile *file);
/* Nonzero once the budget is spent: profile data stops, samples go on. */
int col_limit_reached(void);
uint64_t col_data_bytes(void);
/* A write error stops the data files for good (ERR: ENOSPC ...). */
void col_data_stop(int err);
/* The error that stopped the data files, 0 when none (or only the limit). */
int col_data_stop_errno(void);
/* The first write error of any of the experiment's files, 0 when none. */
int col_write_errno(void);
/* Sampler: logs (once) that the limit was reached; nonzero when it did
 * (the caller then writes the status file). */
int col_limit_note(void);

#endif
