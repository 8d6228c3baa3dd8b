/* A descendant's writer (see sampler_writers.c): a process forked from
 * the sampler at the descendant's fork, which writes FOUNDER/LINEAGE.er from
 * the records the sampler sends it, as the sampler writes the founder's. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock_writer.h"
#include "core/config.h"
#include "core/data_writers.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/runtime_calls.h"
#include "core/target.h"
#include "core/thread_names.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "er/er_archive.h"
#include "sampler_descendants.h"
#include "sampler_events.h"
#include "sampler_offcpu.h"
#include "sampler_state.h"
#include "sampler_tails.h"

#define WRITER_BUFFER (1 << 20)

/* One read from the founder sampler's pipe: the whole records in it are
 * handled, a partial one waits for the rest.  0 at the end of the pipe. */
static int take_from_pipe(int fd, unsigned char *buf, size_t *held)
{
  /* While the pipe is quiet (the descendant waits), its waiting threads
   * are read every OFFCPU_READ_MS (sampler_offcpu.h): a read that came
   * after the thread ran again is dropped when its switch in arrives. */
  struct pollfd in = {.fd = fd, .events = POLLIN};
  while (sampler.started && col_cfg.offcpu && poll(&in, 1, OFFCPU_READ_MS) == 0)
    sampler_accounts_tick(col_hrtime());
  ssize_t n;
  while ((n = read(fd, buf + *held, WRITER_BUFFER - *held)) < 0 && errno == EINTR)
    ;
  if (n <= 0)
    return 0;
  *held += (size_t)n;
  size_t at = 0;
  while (*held - at >= sizeof(struct perf_event_header)) {
    struct perf_event_header h;
    memcpy(&h, buf + at, sizeof h);
    if (h.size < sizeof h)
      return 0; /* never from the sampler: give up rather than loop */
    if (*held - at < h.size)
      break;
    sampler_on_record(buf + at, h.type, h.size, RING_SWITCHES);
    at += h.size;
  }
  memmove(buf, buf + at, *held - at);
  *held -= at;
  return 1;
}

/* A descendant's writer (sampler_writers.c): experiments FOUNDER/LINEAGE.er
 * for process PID, from the records the founder sampler sends on FD. */
void sampler_run_as_writer(pid_t pid, const char *lineage, int fd, int64_t tstamp, int after_exec,
                           const char *comm)
{
  static unsigned char buf[WRITER_BUFFER];
  sampler_events_forget();
  col_calls_set_runtime_thread(gettid(), NULL); /* the files are this process's own now */
  sampler.writer_mode = 1;
  sampler.attached = sampler.started = sampler.finished = sampler.start_failed = sampler.exec_pending = 0;
  sampler.closing_at = INT64_MAX;
  sampler.close_reason = "exit";
  sampler.lost_records = sampler.lost_switch_records = sampler.threads_seen = 0;
  memset(sampler.tid_seen, 0, sampler.tid_seen_bits / 8);
  col_control = NULL; /* requests are the founder's */
  descendants_reset_figures();
  col_thread_names_forget(); /* (the founder's threads' are not this process's) */
  col_target_pid = pid;
  col_target_command[0] = '\0';
  snprintf(sampler.writer_lineage, sizeof sampler.writer_lineage, "%s", lineage);
  snprintf(col_cfg.lineage, sizeof col_cfg.lineage, "%s", lineage);
  snprintf(col_cfg.store_dir, sizeof col_cfg.store_dir, "%s", col_exp.path); /* the founder */
  col_cfg.status_path[0] = col_cfg.group_path[0] = '\0';
  /* A new image (an exec, an MPI rank) archives its own objects into the
   * founder's archives/ (shared: each copy made once, whoever comes first)
   * with its own archive.log; a fork's child before its exec maps what its
   * parent did, archived there already. */
  sampler.writer_archive_mode = col_cfg.archive_mode;
  if (!after_exec)
    col_cfg.archive_mode = ER_ARCHIVE_OFF;
  col_cfg.sample_period_ms = 0;
  col_unwind_forget_modules();
  if (after_exec)
    col_modules_restart(); /* the program's new image: its records bring its mappings */
  else if (strchr(lineage + 1, '_') == NULL)
    col_modules_inherit(); /* a child of the program: the mappings it had at the fork */
  else
    col_modules_restart(); /* a grandchild: what /proc says when the writer starts */
  col_run_started_at = tstamp;
  sampler_accounts_start(tstamp, 1); /* the descendant begins here: not off its CPU before */
  if (er_follow_matches(&sampler.follow, lineage, after_exec ? comm : NULL))
    sampler_start_experiment(); /* else (=REGEX) not before an exec that matches */
  sampler_mappings_from_records();
  size_t held = 0;
  int64_t last = col_hrtime();
  while (take_from_pipe(fd, buf, &held)) { /* read to the end: the sampler never waits on us */
    sampler_accounts_tick(sampler.last_record_at); /* the descendant's waits, as far as its records came */
    if (sampler.clock_in_program && col_clock_writer_wants_rescan() && col_modules_rescan())
      col_unwind_forget_modules(); /* a library its samples met that /proc had not shown yet */
    if (col_hrtime() - last >= FLUSH_EVERY_NS) {
      col_data_writers_flush();
      last = col_hrtime();
    }
  }
  if (sampler.started) {
    /* the threads still there: their tails up to the end (an end the
     * process asked for: collector_terminate_expt) */
    sampler_accounts_end(sampler.closing_at != INT64_MAX ? sampler.closing_at : sampler.last_record_at);
    col_data_writers_flush();
    sampler_describe();
    col_experiment_finish(sampler.close_reason);
  }
  _exit(0);
}

