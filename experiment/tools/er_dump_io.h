/* er-dump's I/O section (er_dump_io.c). */
#ifndef GDBCOL_ER_DUMP_IO_H
#define GDBCOL_ER_DUMP_IO_H

#include "er/er_reader.h"

void er_dump_io(const struct er_experiment *exp);

#endif
