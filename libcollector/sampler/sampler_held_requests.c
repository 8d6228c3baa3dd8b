/* Descendants' requests, held until the records before them are merged
 * (sampler_merge.c), then forwarded to their writers in time order. */
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
#include "control_page.h"
#include "sampler_events.h"
#include "sampler_spawns.h"
#include "sampler_state.h"
#include "sampler_tails.h"
#include "sampler_writers.h"
#include "session_dir.h"

/* A request of a descendant's runtime (or of the program's new image after
 * its exec): its writer applies what concerns its experiment; the exec
 * forms are the kernel's records' business.  Requests are read before the
 * rings: they wait, and go to the writers in time order with the records
 * (sampler_merge.c), so that a writer knows of a pause before the samples
 * after it, and a new process has its writer (its fork or exec record came
 * first).  One that finds no writer waits a while longer, in order. */
#define HELD_REQUESTS 256
#define HOLD_NS 2000000000LL
static struct col_control_record held[HELD_REQUESTS];
static size_t n_held;

static int forward_request(const struct col_control_record *r)
{
  struct sampler_request_record rec = {.header = {SAMPLER_RECORD_REQUEST, 0, sizeof rec}, .request = *r};
  return writers_forward(r->pid, (const unsigned char *)&rec, sizeof rec);
}

void sampler_hold_request(const struct col_control_record *r)
{
  if (r->kind != COL_CTL_SAMPLE && r->kind != COL_CTL_PAUSE && r->kind != COL_CTL_RESUME && r->kind != COL_CTL_CLOSE &&
      r->kind != COL_CTL_JOB_FORWARDING && r->kind != COL_CTL_RANK_SELF && r->kind != COL_CTL_THREAD_NAME)
    return;
  if (n_held < HELD_REQUESTS)
    held[n_held++] = *r;
}

void sampler_release_requests(int64_t upto)
{
  if (n_held == 0 || held[0].tstamp > upto)
    return;
  int64_t too_old = col_hrtime() - HOLD_NS;
  size_t kept = 0;
  for (size_t i = 0; i < n_held; i++) {
    int blocked = held[i].tstamp > upto; /* or an earlier request of the same process still waits */
    for (size_t j = 0; j < kept && !blocked; j++)
      blocked = held[j].pid == held[i].pid;
    if (!blocked && forward_request(&held[i]))
      continue;
    if (held[i].tstamp >= too_old)
      held[kept++] = held[i];
  }
  n_held = kept;
}
