/* The status file GDB reads and the progress counters it reads at a stop:
 * the figures of every module, gathered here. */
#ifndef COL_CORE_STATUS_FILE_H
#define COL_CORE_STATUS_FILE_H

#include <stdint.h>

#include "core/config.h"
#include "er/er_gdb_layout.h"

/* The status file the plugin reads ("key=value" lines), replaced atomically. */
void col_status_write(const struct col_config *cfg, const char *state, const char *detail);
/* The last of GDB's requests for a current status (control page's
 * status_asked) the file answers: written as status_answer. */
extern uint64_t col_status_answer;
/* What the user gets less of, said in the status file (note=) for GDB's
 * closing line: a trace ring or control page that could not be made. */
extern char col_status_note[512];
/* One more such point, after those already there ("; " between them). */
void col_status_add_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* CPU time of threads that blocked the timer signal (the fallback could
 * not sample it) and how many did: inprocess/blocked_signal.c counts them,
 * the status file says them. */
extern uint64_t col_unsampled_ns;
extern unsigned col_blocking_threads;

/* What `collector status` reads from a stopped process with a plain memory
 * read (no inferior call); the sampler refreshes it every cycle. */
/* The runtime's counters GDB reads at a stop (er/er_gdb_layout.h). */
extern struct er_progress gdbcol_progress;
void col_progress_refresh(void);
/* For the end-of-run summary: threads seen and records the kernel lost
 * (the sampler process counts them). */
extern uint64_t col_threads_seen, col_records_lost;

#endif
