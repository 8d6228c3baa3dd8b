/* The interposed functions (interposed_table.h): their wrappers, the
 * definitions that win symbol lookup when preloaded, and the real
 * functions behind them. */
#ifndef GDBCOL_INTERPOSED_H
#define GDBCOL_INTERPOSED_H

#include <pthread.h>
#include <stdint.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

/* MPI's handles and statuses, whichever implementation (interposed_mpi_table.h). */
typedef uintptr_t col_mpi_handle;
typedef uintptr_t col_mpi_word; /* an argument passed on as it came (interposed_mpi_calls_table.h) */
typedef struct col_mpi_status col_mpi_status;
/* An OpenMP outlined region or task body (interposed_omp_table.h). */
typedef void (*col_omp_fn)(void *);

#include "interposed_table.h"

/* col_wrap_NAME, col_fn_NAME (the type of NAME) and col_version_NAME()
 * (the symbol version its real function is looked up at, NULL: any). */
#define COL_DECLARE_WRAPPER(name, version, ret, params)        \
  typedef ret(*col_fn_##name) params;                          \
  ret col_wrap_##name params;                                  \
  static inline const char *col_version_##name(void) { return version; }
COL_INTERPOSED(COL_DECLARE_WRAPPER)
#undef COL_DECLARE_WRAPPER

/* The definitions under the real names, for a group's wrappers: exported,
 * unversioned (they bind whatever version the program asks for).  Inside
 * the runtime the col_wrap_ names always mean our wrappers, whichever
 * definition the program's lookup finds (libc's, when we were injected). */
/* (NAME) in parentheses: stdio.h may define some of them as macros. */
#define COL_PRELOAD_ALIAS(name, version, ret, params) ret(name) params __attribute__((alias("col_wrap_" #name)));
#define COL_PRELOAD_ALIASES(group) group(COL_PRELOAD_ALIAS)

/* The definition of NAME that our wrapper OURS stands in front of, at
 * symbol VERSION when it is not NULL: preloaded, the next one is libc's;
 * injected with dlopen, the search after us may find nothing (or us), and
 * the default scope has it. */
void *col_real_function(const char *name, void *ours);
/* The runtime came by dlopen (after an attach), not by preloading: the
 * real functions are the global scope's.  Before any wrapper is reached. */
void col_runtime_was_injected(void);
void *col_real_function_version(const char *name, const char *version, void *ours);

/* Cached lookup: wrappers run on every call the program makes. */
#define COL_REAL_CACHED(type, lookup)                       \
  ({                                                        \
    static type real_;                                      \
    type found_ = __atomic_load_n(&real_, __ATOMIC_RELAXED); \
    if (found_ == NULL) {                                   \
      found_ = (type)(lookup);                              \
      __atomic_store_n(&real_, found_, __ATOMIC_RELAXED);   \
    }                                                       \
    found_;                                                 \
  })

/* The real NAME behind our wrapper, at the table's version. */
#define COL_REAL(name) \
  COL_REAL_CACHED(col_fn_##name, col_real_function_version(#name, col_version_##name(), (void *)col_wrap_##name))
/* A function the runtime calls but does not interpose (a trylock). */
#define COL_REAL_OTHER(type, name) COL_REAL_CACHED(type, col_real_function(name, NULL))

#endif
