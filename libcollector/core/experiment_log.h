/* The experiment's directory, log.xml and overview. */
#ifndef COL_CORE_EXPERIMENT_LOG_H
#define COL_CORE_EXPERIMENT_LOG_H

#include <limits.h>
#include <stdint.h>

#include "er/er_recordfile.h"
#include "er/er_datafile.h"
#include "er/er_data_kinds.h"
#include "er/er_format.h"
#include "core/config.h"

struct col_experiment {
  int dirfd;
  char path[PATH_MAX];
  struct er_recordfile log, overview;
  int64_t run_tstamp;
  int next_sample_id;
  uint64_t samples_dropped; /* sample points that could not be written */
  struct er_datafile frameinfo;
  struct er_datafile omptrace; /* an OpenMP program's regions and tasks (omp_trace_writer.c) */
  struct er_datafile data[ER_N_KINDS]; /* each data kind's file (er_data_kinds.h) */
};

extern struct col_experiment col_exp;

/* A new image's experiment named after its lineage (_f1_x1.er) when the
 * rank could not be read at its exec: renamed M_r<RANK>.er in the job's
 * experiment and joined to its group.  1 when renamed, 0 when nothing was
 * to do, or -errno. */
int col_log_name_as_rank(const struct col_config *cfg, int rank);
int col_log_open(const struct col_config *cfg, char *err, size_t err_len);
/* KIND's <profile> block, with ATTRIBUTES in its opening tag. */
void col_log_kind_block(enum er_kind kind, const char *attributes);
void col_log_settings(const struct col_config *cfg);
/* These run on the runtime's thread (handed to it from elsewhere).  FINAL
 * records close the experiment and may use the files' closing reserve. */
void col_log_sample(const char *label);
void col_log_sample_at(const char *label, int64_t tstamp);
void col_log_final_sample(const char *label);
/* A sample preceded by an event line (pause, resume) with the same time:
 * EVENT_XML is a format with one %s for the timestamp. */
void col_log_sample_with_event_at(const char *label, const char *event_xml, int64_t tstamp);
void col_log_comment(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning in our own words (gprofng shows its text; er_format.h). */
#define COL_WARN_TEXT ER_CWARN_TEXT
void col_log_warning(int id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void col_log_final_warning(int id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The exit event: KILLED, the program ended without exiting (how="killed");
 * else ENDED_EARLY, why the collection ended while the program ran on
 * (how="collector"), or NULL. */
void col_log_exit(int killed, const char *ended_early);
void col_log_close(void);
/* Removes what a failed col_log_open created. */
void col_log_discard(void);

#endif
