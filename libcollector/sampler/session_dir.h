/* The session directory (GDB's, holding the status file, the control page
 * and the trace ring) is removed by whoever leaves it last: GDB at its exit
 * or a sampler process at its end.  Each member holds a token file named
 * after its role and pid ("gdb-PID", "sampler-PID", "rank-PID": an MPI rank
 * that started its own sampler process); leaving removes one's
 * own token, then the directory when no token of a live process remains.
 * Whichever of two members leaves second sees the other's token gone, so
 * the directory never outlives both (before, GDB skipped the removal while
 * the sampler was still ending, and each batch run left a directory). */
#ifndef GDBCOL_SESSION_DIR_H
#define GDBCOL_SESSION_DIR_H

/* This process joins the directory of STATUS_PATH (nothing when empty). */
void session_dir_join(const char *status_path);
/* This process leaves it; the last one out removes it. */
void session_dir_leave(const char *status_path);

/* The sampler process's first session (the status file it began with: the
 * control page and the trace ring stay beside it, even after a later GDB
 * session adopts the experiment), joined; and whether STATUS_PATH is in it. */
void session_dir_begin(const char *status_path);
int session_dir_began_beside(const char *status_path);
/* That first status file's path ("" before session_dir_begin). */
const char *session_dir_first(void);

#endif
