/* A request applied to the experiment this process writes, at the time
 * it carries: a sample point, a pause or resume, a function loaded or
 * unloaded, the end.  The founder applies its program's own (sampler_requests.c);
 * a descendant's writer those forwarded to it (sampler_records.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/data_writers.h"
#include "core/experiment_control.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/status_file.h"
#include "core/target.h"
#include "core/thread_names.h"
#include "control_page.h"
#include "sampler_events.h"
#include "sampler_spawns.h"
#include "sampler_state.h"
#include "sampler_tails.h"
#include "sampler_writers.h"
#include "session_dir.h"

/* Why a launcher's runtime could not give its ranks elsewhere what they
 * need (COL_JOB_NO_SETTINGS, COL_JOB_NO_ROOM). */
static const char *forwarding_failure(enum col_job_forwarding outcome)
{
  return outcome == COL_JOB_NO_SETTINGS ? "the experiment's settings were not ready in time (5 s)"
                                        : "the environment could not hold the runtime's variables";
}

/* What an MPI launcher's runtime did for its ranks on other nodes. */
static void log_job_forwarding(const char *launcher, enum col_job_forwarding outcome)
{
  switch (outcome) {
  case COL_JOB_FORWARDED:
    col_log_comment("MPI launcher %s: the ranks it starts on other nodes get the runtime and the settings through "
                    "its forwarding of the environment, and each records itself with a sampler process of its own "
                    "into this job's experiment (M_r<rank>.er)", launcher);
    break;
  case COL_JOB_NEEDS_EXPORTS:
    col_log_warning(COL_WARN_TEXT, "MPI launcher %s: ranks started on other nodes are not recorded: the command line uses -x, "
                    "and Open MPI then refuses the collector's own list of variables to forward; add "
                    "-x LD_PRELOAD -x GDBCOL_JOB to the command line to record them", launcher);
    break;
  case COL_JOB_NO_SETTINGS:
  case COL_JOB_NO_ROOM:
    col_log_warning(COL_WARN_TEXT, "MPI launcher %s: ranks started on other nodes are not recorded: %s", launcher,
                    forwarding_failure(outcome));
    break;
  }
}

void sampler_note_job_forwarding(const struct col_control_record *r)
{
  const char *launcher = r->text;
  enum col_job_forwarding outcome = (enum col_job_forwarding)r->err;
  if (outcome == COL_JOB_FORWARDED)
    return;
  if (outcome == COL_JOB_NEEDS_EXPORTS)
    col_status_add_note("the MPI ranks %s starts on other nodes are not recorded: with -x on its command line "
                        "Open MPI forwards only what -x names; add -x LD_PRELOAD -x GDBCOL_JOB to record them",
                        launcher);
  else
    col_status_add_note("the MPI ranks %s starts on other nodes are not recorded: %s", launcher,
                        forwarding_failure(outcome));
  /* GDB reads the status at the program's end: the state it holds now,
   * with the note (an exec'd launcher, Open MPI 5's prterun, tells this
   * after the founder's image ended in its exec). */
  if (sampler.exec_pending)
    col_status_write(&col_cfg, "exec", sampler.exec_what);
  else if (sampler.started && !sampler.finished)
    col_status_write(&col_cfg, "active", NULL);
}

void sampler_apply_request(const struct col_control_record *r)
{
  static char reason[sizeof r->text];
  if (r->kind == COL_CTL_JOB_RANK) { /* for the next image's experiment (core/experiment_log.c) */
    col_cfg.job_rank_known = r->err >= 0;
    col_cfg.job_rank = r->err;
    return;
  }
  if (r->kind == COL_CTL_RANK_SELF) { /* the rank its runtime read: a name given at the exec is corrected */
    if (sampler.started && r->err >= 0)
      col_log_name_as_rank(&col_cfg, r->err);
    return;
  }
  if (!sampler.started)
    return;
  switch (r->kind) {
  case COL_CTL_SAMPLE:
    col_log_sample_at(r->text, r->tstamp);
    break;
  case COL_CTL_PAUSE:
    if (col_pause_at(r->text, r->tstamp))
      col_status_write(&col_cfg, "active", NULL); /* says "paused" */
    break;
  case COL_CTL_RESUME:
    if (col_resume_at(r->tstamp))
      col_status_write(&col_cfg, "active", NULL);
    break;
  case COL_CTL_FUNC_LOAD: {
    unsigned long long vaddr = 0;
    long long when = 0;
    int size = 0, name_at = 0;
    if (sscanf(r->text, "%llx %d %lld %n", &vaddr, &size, &when, &name_at) >= 3 && name_at > 0)
      col_modules_function(vaddr, (uint64_t)size, r->text + name_at, when);
    break;
  }
  case COL_CTL_FUNC_UNLOAD: {
    unsigned long long vaddr = 0;
    if (sscanf(r->text, "%llx", &vaddr) == 1)
      col_modules_function_gone(vaddr, r->tstamp);
    break;
  }
  case COL_CTL_UNLOADED: {
    unsigned long long start = 0;
    if (sscanf(r->text, "%llx", &start) == 1)
      col_modules_unloaded(start, r->tstamp);
    break;
  }
  case COL_CTL_JOB_FORWARDING:
    log_job_forwarding(r->text, (enum col_job_forwarding)r->err);
    break;
  case COL_CTL_THREAD_NAME:
    col_thread_names_note(r->tid, r->text);
    break;
  case COL_CTL_CLOSE:
    sampler.close_requested = 1;
    snprintf(reason, sizeof reason, "%s", r->text);
    sampler.close_reason = reason;
    sampler.closing_at = r->tstamp; /* samples taken before it are still written */
    sampler.finished = 1;
    break;
  }
}
