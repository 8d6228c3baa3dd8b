/* The interposed functions as data (interposed_table.c), for the GOT
 * patching. */
#ifndef GDBCOL_INTERPOSED_LIST_H
#define GDBCOL_INTERPOSED_LIST_H

#include <stddef.h>
#include <stdint.h>

struct col_interposed {
  const char *name;
  const char *version; /* NULL: any */
  void *wrapper;
  /* 1 << enum er_kind for each traced kind whose wrapper this is: its GOT
   * slots reach the wrapper only while one of them is on (a kind that is
   * off costs the program nothing).  0: always (thread starts, the
   * process's end, exec and spawn for descendants, OpenMP states). */
  uint32_t kinds;
};
extern const struct col_interposed col_interposed[];
extern const size_t col_n_interposed;

#endif
