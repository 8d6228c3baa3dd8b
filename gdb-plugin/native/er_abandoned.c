/* An experiment whose writer died (the sampler process killed): nothing
 * wrote its end.  GDB, which sees the program end without a closed
 * experiment and the sampler gone, marks the end here: a warning saying
 * why, and an exit event at the time of the last thing recorded, with
 * how="sampler", so that gprofng reads a finished experiment and our
 * reader says how it ended (see er_abandoned.h). */
#define _GNU_SOURCE
#include "er/er_abandoned.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "er/er_format.h"
#include "er/er_reader.h"
#include "er/er_recordfile.h"
#include "er/er_text.h"

static void later(int64_t *last, int64_t t)
{
  if (t > *last)
    *last = t;
}

/* The time of the last thing EXP recorded, relative to its run. */
static int64_t last_recorded(const struct er_experiment *exp)
{
  int64_t last = exp->run_tstamp;
  for (size_t i = 0; i < exp->n_clock; i++)
    later(&last, exp->clock[i].tstamp);
  for (size_t i = 0; i < exp->n_hwc_samples; i++)
    later(&last, exp->hwc_samples[i].tstamp);
  for (size_t i = 0; i < exp->n_waits; i++)
    later(&last, exp->waits[i].end);
  for (size_t i = 0; i < exp->n_io_calls; i++)
    later(&last, exp->io_calls[i].end);
  for (size_t i = 0; i < exp->n_heap_events; i++)
    later(&last, exp->heap_events[i].tstamp);
  int64_t rel = last - exp->run_tstamp;
  for (size_t i = 0; i < exp->n_sample_events; i++)
    later(&rel, exp->sample_tstamps[i]);
  return rel;
}

int er_mark_abandoned(const char *path, const char *why, double *ended_at)
{
  struct er_experiment exp;
  char err[512];
  memset(&exp, 0, sizeof exp);
  if (er_experiment_open(path, &exp, err, sizeof err) != 0)
    return -EINVAL;
  int64_t end = last_recorded(&exp);
  int finished = exp.has_exit;
  er_experiment_close(&exp);
  if (ended_at != NULL)
    *ended_at = end / 1e9;
  if (finished)
    return 0; /* its writer wrote the end after all */
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0)
    return -errno;
  struct er_recordfile log = {.fd = -1};
  int rc = er_recordfile_open_existing(&log, dir, "log.xml");
  close(dir);
  if (rc < 0)
    return rc;
  char escaped[1024], ts[32];
  er_xml_escape(why, escaped, sizeof escaped);
  er_format_tstamp(ts, sizeof ts, end);
  rc = er_recordfile_printf(&log, 0, "<event kind=\"cwarn\" id=\"%d\">%s</event>\n", ER_CWARN_TEXT, escaped);
  if (rc == 0)
    rc = er_recordfile_printf(&log, 0, "<event kind=\"exit\" tstamp=\"%s\" how=\"sampler\"/>\n", ts);
  er_recordfile_close(&log);
  return rc < 0 ? rc : 1;
}
