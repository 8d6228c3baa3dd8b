/* The interposed functions as data (interposed_table.c), for the GOT
 * patching. */
#ifndef GDBCOL_INTERPOSED_LIST_H
#define GDBCOL_INTERPOSED_LIST_H

#include <stddef.h>

struct col_interposed {
  const char *name;
  const char *version; /* NULL: any */
  void *wrapper;
};
extern const struct col_interposed col_interposed[];
extern const size_t col_n_interposed;

#endif
