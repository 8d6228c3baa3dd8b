/* The table of interposed functions as data (interposed_table.h): what the
 * GOT patching walks, each function with the traced kinds that need it. */
#define _GNU_SOURCE
#include "er/er_data_kinds.h"
#include "interposed.h"
#include "interposed_list.h"

#define KIND(k) (1u << (k))
/* ENTRY reads KINDS where each group below is expanded. */
#define ENTRY(name, version, ret, params) {#name, version, (void *)col_wrap_##name, KINDS},

const struct col_interposed col_interposed[] = {
#define KINDS 0u
    COL_THREAD_FUNCTIONS(ENTRY) COL_LOADER_FUNCTIONS(ENTRY) COL_EXEC_FUNCTIONS(ENTRY) COL_SPAWN_FUNCTIONS(ENTRY)
    COL_OMP_FUNCTIONS(ENTRY)
#undef KINDS
/* A lock that waits is a sync event and a lock order's second lock. */
#define KINDS (KIND(ER_KIND_SYNC) | KIND(ER_KIND_LOCK_ORDER))
    COL_SYNC_FUNCTIONS(ENTRY)
#undef KINDS
#define KINDS KIND(ER_KIND_LOCK_ORDER)
    COL_LOCK_FUNCTIONS(ENTRY)
#undef KINDS
#define KINDS KIND(ER_KIND_RACE)
    COL_TSAN_FUNCTIONS(ENTRY)
#undef KINDS
/* The clock's "kind": the in-process timer samples (perf events refused). */
#define KINDS KIND(ER_KIND_CLOCK)
    COL_SIGNAL_FUNCTIONS(ENTRY)
#undef KINDS
#define KINDS KIND(ER_KIND_IO)
    COL_IO_FUNCTIONS(ENTRY)
#undef KINDS
#define KINDS KIND(ER_KIND_HEAP)
    COL_HEAP_FUNCTIONS(ENTRY)
#undef KINDS
#define KINDS KIND(ER_KIND_MPI)
    COL_MPI_FUNCTIONS(ENTRY)
#undef KINDS
};
const size_t col_n_interposed = sizeof col_interposed / sizeof col_interposed[0];

/* Every group of COL_INTERPOSED is listed above, once. */
#define COUNT_ONE(name, version, ret, params) +1
_Static_assert(sizeof col_interposed / sizeof col_interposed[0] == 0 COL_INTERPOSED(COUNT_ONE),
               "a group of interposed_table.h is missing from the table, or listed twice");
