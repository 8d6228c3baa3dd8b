/* An experiment's opening and end, and the events that end or split it
 * (exec, descendants). */
#ifndef COL_CORE_EXPERIMENT_LIFECYCLE_H
#define COL_CORE_EXPERIMENT_LIFECYCLE_H

#include <stdint.h>

/* On the thread that owns the files: create the experiment (0, or -1 with
 * the reason in the status file); end it (closing records, archive,
 * status "closed" with WHY). */
int col_experiment_open_files(void);
/* Whether WHY, an experiment's close reason, is the program's own end
 * (exit, _exit, _Exit, killed); any other (collector disable, the API's
 * terminate, the sampler told to end) ended it while the program ran on. */
int col_close_is_program_end(const char *why);
void col_experiment_finish(const char *why);
/* Set before col_experiment_finish when the program ended without exiting
 * (killed, crashed): said in log.xml (a warning, the exit event's
 * how="killed") and in the status file (detail "killed"). */
extern int col_end_without_exit;
/* The end after exec_start (no exit event; status "exec" with WHAT). */
void col_experiment_finish_after_exec(const char *what);
void col_experiment_archive(void);
/* exec_start or exec_error in log.xml. */
void col_experiment_exec_event(const char *kind, const char *variant, const char *what, int exec_count);
void col_experiment_descendant_event(const char *kind, const char *variant, const char *lineage, const char *what,
                                     int64_t tstamp, int follow);
/* log.xml comments naming the clock source(s) that ran. */
void col_describe_clock_sources(void);

#endif
