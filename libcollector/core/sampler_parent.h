/* Whose child the sampler process is (sampler_parent.c).  Its parent must
 * reap it when it ends: were it left to PID 1, a container's PID 1 that
 * never reaps (its program run without an init) would keep a zombie per
 * run.  So it is GDB's child wherever GDB is the parent of the process it
 * records (launch, and after `gdb -p`, where GDB starts it), and GDB reaps
 * it (gdb_collector/sampler_children.py).  Used by gdbcol-launch, the
 * runtime and the sampler process. */
#ifndef COL_CORE_SAMPLER_PARENT_H
#define COL_CORE_SAMPLER_PARENT_H

#include <sys/types.h>

/* The process that becomes the sampler process, as fork() returns it.
 * Where this process is GDB's child (GDB gives its pid in GDBCOL_GDB_PID),
 * the new process is made GDB's child too (CLONE_PARENT) and *BESIDE_GDB
 * is set: GDB reaps it when it ends (gdb_collector/sampler_children.py),
 * and the sampler stays where it is.  Otherwise it is this process's child,
 * which the caller reaps, and the sampler forks away from it: a grandchild
 * is never a child the program could wait for. */
pid_t col_sampler_fork(int *beside_gdb);

/* True in the sampler process when its parent is GDB (see above). */
int col_sampler_parent_is_gdb(void);

#endif
