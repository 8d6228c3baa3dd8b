/* er-dump's hardware-counter section (er_dump_hwc.c). */
#ifndef GDBCOL_ER_DUMP_HWC_H
#define GDBCOL_ER_DUMP_HWC_H

#include "er_dump_heap.h"

/* Per counter its events ("hwc_events NAME: N"); keeps the per-function table. */
void er_dump_hwc(const struct er_experiment *exp, er_pc_name_fn name_of);
/* "hwc_functions:", then "COUNTER exclusive_events inclusive_events function" lines. */
void er_dump_hwc_functions(void);

#endif
