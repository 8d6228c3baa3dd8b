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

#include "core/data_limit.h"
#include "core/experiment_log.h"
#include "er/er_datafile.h"

#define MEGABYTE (1024ULL * 1024ULL)

static struct er_budget budget;
static int limit_logged;

void col_limit_start(long mb)
{
  limit_logged = 0;
  er_budget_init(&budget, (uint64_t)mb * MEGABYTE);
  er_datafile_set_budget(&col_exp.frameinfo, &budget);
  for (int k = 0; k < ER_N_KINDS; k++)
    er_datafile_set_budget(&col_exp.data[k], &budget);
}

void col_limit_charge(struct er_datafile *file)
{
  er_datafile_set_budget(file, &budget);
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

int col_limit_note(void)
{
  if (limit_logged || !col_limit_reached())
    return 0;
  limit_logged = 1;
  int err = col_data_stop_errno();
  if (err != 0) {
    col_log_final_warning(COL_WARN_TEXT, "profile data stopped: the experiment's file system refused a write (%s); data "
                          "recorded before that point is complete, sample points go on while there is room",
                          strerror(err));
    col_log_sample("data_write_failed");
    return 1;
  }
  col_log_warning(14, "profile data at the %ld MB limit (collector limit); no more profile data is recorded, "
                  "sample points go on", (long)(budget.limit_bytes / MEGABYTE));
  col_log_sample("data_limit_reached");
  return 1;
}
