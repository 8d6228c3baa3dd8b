/* A process's mappings as /proc/PID/maps lists them (proc_maps.c). */
#ifndef GDBCOL_PROC_MAPS_H
#define GDBCOL_PROC_MAPS_H

#include <stdint.h>

struct gdbcol_mapping {
  uint64_t start, end, offset;
  unsigned long inode;
  int exec;         /* mapped executable */
  const char *path; /* the file, a name in brackets ([stack], [vdso]), or "" */
};
typedef int (*gdbcol_mapping_fn)(const struct gdbcol_mapping *m, void *arg);

/* Calls FN for each mapping of PID, in address order, until it returns
 * nonzero: 0, or -1 when the process cannot be read (gone, not ours). */
int gdbcol_for_each_mapping(int pid, gdbcol_mapping_fn fn, void *arg);

#endif
