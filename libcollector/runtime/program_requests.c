/* What the program (the Collector API) and GDB (inferior calls, its stop
 * counter) ask of the experiment from inside the program: pause, resume, a
 * labelled sample.  Posted on the control page when the sampler process
 * writes the experiment, applied here (core/experiment_control.c) when the
 * program samples itself. */
#include "core/config.h"
#include "core/experiment_control.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/status_file.h"
#include "runtime/collection_state.h"
#include "runtime/data_sources.h"
#include "runtime/program_requests.h"
#include "control_page.h"

volatile uint64_t gdbcol_debugger_stops;
/* Where GDB stopped, written before it adds to the count (a sample point's
 * label, er_gdb_layout.h). */
char gdbcol_debugger_stop_label[ER_STOP_LABEL_BYTES];

static uint64_t stops_seen;

void col_requests_reset(void)
{
  col_pause_reset();
  stops_seen = gdbcol_debugger_stops;
}

/* Outside: the sampler process applies the request at the time it carries. */
void col_pause(const char *reason)
{
  if (!col_collecting())
    return;
  if (col_outside())
    col_control_post(COL_CTL_PAUSE, reason, 0);
  else if (col_pause_at(reason, col_hrtime()))
    col_status_write(&col_cfg, "active", NULL); /* says "paused" */
}

void col_resume(void)
{
  if (!col_collecting())
    return;
  if (col_outside())
    col_control_post(COL_CTL_RESUME, NULL, 0);
  else if (col_resume_at(col_hrtime()))
    col_status_write(&col_cfg, "active", NULL);
}

/* A pause reaches the data sources running here first, so that they stop
 * recording, then the experiment (its log, or the sampler process's). */
void col_pause_everything(const char *reason)
{
  if (!col_collecting())
    return;
  col_sources_pause();
  col_pause(reason);
}

void col_resume_everything(void)
{
  if (!col_collecting())
    return;
  col_resume();
  col_sources_resume();
}

void col_sample(const char *name)
{
  if (!col_collecting())
    return;
  const char *label = name != NULL && name[0] != '\0' ? name : "manual";
  if (col_outside())
    col_control_post(COL_CTL_SAMPLE, label, 0);
  else
    col_log_sample(label);
}

/* ---- sample points at GDB stops (dbxsample) -------------------------------- */

/* GDB adds one to gdbcol_debugger_stops (a memory write, never a call)
 * each time it stops the process.  The whole process is frozen while
 * stopped, so the sampler, noticing the change on its first cycle after the
 * resume, records usage exactly as it was at the stop. */

void col_control_note_stops(void)
{
  uint64_t now = gdbcol_debugger_stops;
  if (now != stops_seen) {
    stops_seen = now;
    char label[ER_STOP_LABEL_BYTES];
    col_sample(col_stop_label(gdbcol_debugger_stop_label, label));
  }
}
