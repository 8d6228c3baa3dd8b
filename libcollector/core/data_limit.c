/* `collector limit`: one budget for all data files of the experiment
 * (profile and data.frameinfo now, the tracing files later).  The writer
 * refuses blocks past it; from then on the sampler drops captures, while
 * sample points, which are not data files, go on until the end.  The log
 * says when the limit was hit, as gprofng's collector does (cwarn 14,
 * "Experiment size limit exceeded").
 *
 * A write error (a full disk, a quota) stops the same budget: the data ends
 * on a whole block, and the log and GDB say what stopped it and how many
 * samples were captured but not written. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_limit.h"
#include "core/experiment_control.h"
#include "core/experiment_log.h"
#include "er/er_datafile.h"

#define MEGABYTE (1024ULL * 1024ULL)

static struct er_budget budget;
static int limit_logged;

struct er_progress gdbcol_progress;

void col_limit_start(long mb)
{
  limit_logged = 0;
  er_budget_init(&budget, (uint64_t)mb * MEGABYTE);
  er_datafile_set_budget(&col_exp.frameinfo, &budget);
  for (int k = 0; k < ER_N_KINDS; k++)
    er_datafile_set_budget(&col_exp.data[k], &budget);
}

int col_limit_reached(void)
{
  return er_budget_exhausted(&budget);
}

void col_data_stop(int err)
{
  er_budget_stop(&budget, err);
}

int col_data_stop_errno(void)
{
  int err = er_budget_stop_errno(&budget);
  return err == ER_BUDGET_LIMIT ? 0 : err;
}

uint64_t col_data_bytes(void)
{
  return er_budget_used(&budget);
}

int col_write_errno(void)
{
  int err = col_data_stop_errno();
  if (err == 0)
    err = col_exp.log.error;
  if (err == 0)
    err = col_exp.overview.error;
  return err;
}

void col_limit_note(void)
{
  if (limit_logged || !col_limit_reached())
    return;
  limit_logged = 1;
  int err = col_data_stop_errno();
  if (err != 0) {
    col_log_final_warning(200, "profile data stopped: the experiment's file system refused a write (%s); data "
                          "recorded before that point is complete, sample points go on while there is room",
                          strerror(err));
    col_log_sample("data_write_failed");
    col_status_write(&col_cfg, "active", NULL);
    return;
  }
  col_log_warning(14, "profile data at the %ld MB limit (collector limit); no more profile data is recorded, "
                  "sample points go on", (long)(budget.limit_bytes / MEGABYTE));
  col_log_sample("data_limit_reached");
  col_status_write(&col_cfg, "active", NULL);
}

/* Several threads refresh it (the sampler, GDB's calls, the API): each
 * field is stored whole, so a reader never sees a torn number. */
uint64_t col_threads_seen, col_records_lost;

void col_progress_refresh(void)
{
  int next_id = __atomic_load_n(&col_exp.next_sample_id, __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.profile_packets, __atomic_load_n(&col_samples_written, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.sample_points, next_id > 0 ? (uint64_t)next_id - 1 : 0, __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.data_bytes, col_data_bytes(), __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.limit_reached, (uint64_t)(col_limit_reached() && col_data_stop_errno() == 0),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.paused, (uint64_t)col_is_paused(), __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.write_errno, (uint64_t)col_write_errno(), __ATOMIC_RELAXED);
  __atomic_store_n(&gdbcol_progress.samples_not_written, col_samples_not_written, __ATOMIC_RELAXED);
}
