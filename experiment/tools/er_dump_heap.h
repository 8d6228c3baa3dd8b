/* er-dump's heap section (er_dump_heap.c). */
#ifndef GDBCOL_ER_DUMP_HEAP_H
#define GDBCOL_ER_DUMP_HEAP_H

#include <stdint.h>

#include "er/er_reader.h"

/* The function PC is in, by name (valid until the next call). */
typedef const char *(*er_pc_name_fn)(const struct er_experiment *exp, uint64_t pc);

/* Heap totals and leaks ("key: value" lines); keeps the per-site table. */
void er_dump_heap(const struct er_experiment *exp, er_pc_name_fn name_of);
/* "heap_sites:", then per allocating function "allocs bytes leaks leaked_bytes name". */
void er_dump_heap_sites(void);

#endif
