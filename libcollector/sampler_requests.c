/* The program's and GDB's requests to the sampler process: the runtime in
 * the program posts them on the control page (samples, pause, resume, the
 * end, an exec, a new status file), GDB counts its stops there. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector_internal.h"
#include "sampler_events.h"
#include "sampler_spawns.h"
#include "sampler_state.h"
#include "sampler_tails.h"

/* An exec request's text: "VARIANT:WHAT". */
static const char *exec_variant(const char *text, char *variant, size_t len)
{
  const char *colon = strchr(text, ':');
  if (colon == NULL) {
    snprintf(variant, len, "execve");
    return text;
  }
  snprintf(variant, len, "%.*s", (int)(colon - text), text);
  return colon + 1;
}

/* The program's and GDB's requests, at the times they carry. */
static void on_request(const struct col_control_record *r, void *unused)
{
  static char reason[sizeof r->text];
  char variant[32];
  const char *what;
  switch (r->kind) {
  case COL_CTL_SAMPLE:
    col_log_sample_at(r->text, r->tstamp);
    break;
  case COL_CTL_PAUSE:
    col_pause_at(r->text, r->tstamp);
    break;
  case COL_CTL_RESUME:
    col_resume_at(r->tstamp);
    break;
  case COL_CTL_CLOSE:
    snprintf(reason, sizeof reason, "%s", r->text);
    sampler.close_reason = reason;
    sampler.closing_at = r->tstamp; /* samples taken before it are still written */
    sampler.finished = 1;
    break;
  case COL_CTL_EXEC_START:
    /* The program's own exec ends the experiment; what the old image left
     * in the rings is written first.  The new image is recorded as _x1.er
     * (sampler_records.c, at the exec's COMM record) unless descendants
     * are off. */
    if (sampler.follow.mode == ER_FOLLOW_NONE)
      sampler_events_enable(0); /* else =REGEX decides at the exec's record */
    sampler.closing_at = r->tstamp;
    sampler_drain_ring_records(SAMPLER_ALL_RECORDS);
    tails_finish(r->tstamp); /* the old image's threads end here */
    col_clock_writer_flush();
    what = exec_variant(r->text, variant, sizeof variant);
    col_experiment_exec_event("exec_start", variant, what, ++sampler.exec_count);
    col_log_final_sample("suspend_for_exec");
    col_status_write(&col_cfg, "exec", what);
    snprintf(sampler.exec_what, sizeof sampler.exec_what, "%s", what);
    sampler.exec_pending = 1;
    break;
  case COL_CTL_STATUS_FILE:
    /* A later GDB session adopted the experiment: report to it. */
    snprintf(col_cfg.status_path, sizeof col_cfg.status_path, "%s", r->text);
    col_status_write(&col_cfg, "active", NULL);
    break;
  case COL_CTL_SPAWN: /* its child is named as an exec (sampler_records.c) */
    spawns_begin(r->pid, r->tid, r->tstamp, r->text);
    break;
  case COL_CTL_SPAWN_DONE:
    spawns_end(r->pid, r->tid, r->tstamp);
    break;
  case COL_CTL_EXEC_FAILED:
    what = exec_variant(r->text, variant, sizeof variant);
    col_experiment_exec_event("exec_error", variant, what, sampler.exec_count);
    col_log_warning(200, "%s of %s failed (%s); the experiment goes on", variant, what, strerror(r->err));
    col_status_write(&col_cfg, "active", NULL);
    sampler.exec_pending = 0;
    sampler.closing_at = INT64_MAX;
    sampler_events_enable(1);
    break;
  }
}

void sampler_take_requests(void)
{
  if (col_control == NULL)
    return;
  col_control_take_thread_starts(tails_on_thread_start);
  col_control_take(on_request, NULL);
  uint64_t stops = __atomic_load_n(&col_control->debugger_stops, __ATOMIC_ACQUIRE);
  if (stops != sampler.stops_seen) {
    sampler.stops_seen = stops;
    col_log_sample("gdb_stop");
  }
}

