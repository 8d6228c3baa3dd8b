/* Pausing and resuming where the experiment's files are written (the
 * program's runtime, or the sampler process that applies the program's
 * requests at the times they carry); the requests themselves come from
 * runtime/program_requests.c.
 *
 * Pausing stops profile data, not the experiment: samples go on, and
 * log.xml carries pause/resume events (gprofng subtracts paused time from
 * the collection duration) with a sample at each edge.  Captures are
 * judged by their own timestamp, not by when the sampler reads them, so
 * the data of a paused interval is dropped even though the sampler drains
 * up to a cycle later. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/experiment_control.h"
#include "core/experiment_log.h"
#include "core/target.h"
#include "control_page.h"
#include "er/er_text.h"

/* The last pause interval [start, end); end = INT64_MAX while paused. */
static int64_t pause_start = INT64_MAX, pause_end = INT64_MAX;
static int paused;

void col_pause_reset(void)
{
  __atomic_store_n(&paused, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&pause_start, INT64_MAX, __ATOMIC_RELEASE);
  __atomic_store_n(&pause_end, INT64_MAX, __ATOMIC_RELEASE);
}

int col_paused_at(int64_t tstamp)
{
  return tstamp >= __atomic_load_n(&pause_start, __ATOMIC_ACQUIRE) &&
         tstamp < __atomic_load_n(&pause_end, __ATOMIC_ACQUIRE);
}

int col_is_paused(void)
{
  return __atomic_load_n(&paused, __ATOMIC_ACQUIRE);
}

int col_outside(void)
{
  return col_cfg.sampled_outside && col_control != NULL && col_target_pid == 0;
}

int col_pause_at(const char *reason, int64_t tstamp)
{
  int expected = 0;
  if (!__atomic_compare_exchange_n(&paused, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return 0; /* pausing twice is silently ignored */
  char label[300], name[300], event[400];
  snprintf(label, sizeof label, "collector_pause(%s)", reason);
  er_xml_escape(reason, name, sizeof name);
  snprintf(event, sizeof event, "<event kind=\"pause\" tstamp=\"%%s\" name=\"%s\"/>\n", name);
  __atomic_store_n(&pause_end, INT64_MAX, __ATOMIC_RELEASE);
  __atomic_store_n(&pause_start, tstamp, __ATOMIC_RELEASE);
  col_log_sample_with_event_at(label, event, tstamp);
  return 1;
}

int col_resume_at(int64_t tstamp)
{
  int expected = 1;
  if (!__atomic_compare_exchange_n(&paused, &expected, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return 0;
  __atomic_store_n(&pause_end, tstamp, __ATOMIC_RELEASE);
  col_log_sample_with_event_at("collector_resume", "<event kind=\"resume\" tstamp=\"%s\"/>\n", tstamp);
  return 1;
}
