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
extern char col_status_note[2048];
/* One more such point, after those already there ("; " between them). */
void col_status_add_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The figures only the side that records knows: in the program, the CPU
 * time of threads that blocked the timer signal (the fallback could not
 * sample it) and how many did (inprocess/); in the sampler process, the
 * threads it saw, the records the kernel lost, the descendants and the
 * program's exec (sampler/).  Those a side does not count stay 0. */
struct col_status_figures {
  uint64_t unsampled_ns;
  unsigned blocking_threads;
  uint64_t threads_seen, records_lost;
  uint64_t descendants_seen, descendant_samples, descendant_experiments;
  int64_t descendant_cpu_ms; /* where not from their samples (perf events refused), else <= 0 */
  int exec_followed; /* the program's new image is recorded (_x1.er) */
};
/* Each status written asks FILL for them: this file sits above both sides
 * and is linked into both, so it calls neither; each side hands in its own. */
void col_status_figures_from(void (*fill)(struct col_status_figures *out));

/* What `collector status` reads from a stopped process with a plain memory
 * read (no inferior call); the sampler refreshes it every cycle. */
/* The runtime's counters GDB reads at a stop (er/er_gdb_layout.h). */
extern struct er_progress gdbcol_progress;
void col_progress_refresh(void);

#endif
