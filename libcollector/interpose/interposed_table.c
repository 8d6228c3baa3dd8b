/* The table of interposed functions as data (interposed_table.h): what the
 * GOT patching walks. */
#define _GNU_SOURCE
#include "interposed.h"
#include "interposed_list.h"

const struct col_interposed col_interposed[] = {
#define COL_TABLE_ENTRY(name, version, ret, params) {#name, version, (void *)col_wrap_##name},
    COL_INTERPOSED(COL_TABLE_ENTRY)
#undef COL_TABLE_ENTRY
};
const size_t col_n_interposed = sizeof col_interposed / sizeof col_interposed[0];
