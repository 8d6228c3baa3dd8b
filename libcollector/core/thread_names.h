/* The names of a recorded process's threads (core/thread_names.c). */
#ifndef GDBCOL_THREAD_NAMES_H
#define GDBCOL_THREAD_NAMES_H

#include <sys/types.h>

/* Thread TID is named NAME from now on (the kernel's COMM record of a
 * rename: pthread_setname_np, prctl(PR_SET_NAME)). */
void col_thread_names_note(pid_t tid, const char *name);
/* Every name known forgotten (a descendant's writer, forked from the
 * founder's sampler, records another process). */
void col_thread_names_forget(void);
/* At the experiment's end: the names of PID's threads still there (from
 * /proc), then every name a thread gave itself (not the program's) into
 * the experiment's ER_THREAD_NAMES_FILE (nothing written when none). */
void col_thread_names_write(int experiment_dirfd, pid_t pid);

#endif
