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

#include "core/config.h"
#include "core/data_writers.h"
#include "core/experiment_control.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/status_file.h"
#include "core/target.h"
#include "core/thread_slot.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "sampler_descendants.h"
#include "sampler_events.h"
#include "sampler_spawns.h"
#include "sampler_state.h"
#include "sampler_tails.h"
#include "sampler_writers.h"
#include "session_dir.h"

/* How long a fork's child may take to say it began, after the last fork
 * began (a loaded machine: its runtime's start runs before its post). */
#define FORK_NEWS_WAIT_NS (2 * 1000000000LL)

/* An exec or spawn request's text, "VARIANT:WHAT" (col_control_post_variant):
 * VARIANT into VARIANT, WHAT returned. */
static const char *request_variant(const char *text, char *variant, size_t len)
{
  const char *colon = strchr(text, ':');
  if (colon == NULL) {
    snprintf(variant, len, "execve");
    return text;
  }
  snprintf(variant, len, "%.*s", (int)(colon - text), text);
  return colon + 1;
}

/* The program's end, asked before the sampler read the kernel's record
 * that starts its experiment: requests are taken before the rings in each
 * drain, and a program that ended before the sampler's first drain after
 * its exec had its end dropped (the experiment said it ended without an
 * exit: e2e.trace_only's I/O program, every run with a 250 ms cycle). */
static struct col_control_record end_before_start;
static int has_end_before_start;

void sampler_take_end_before_start(void)
{
  if (!has_end_before_start || !sampler.started)
    return;
  has_end_before_start = 0;
  if (!sampler.finished)
    sampler_apply_request(&end_before_start);
}

/* The program's and GDB's requests, at the times they carry. */
static void handle_request(const struct col_control_record *r)
{
  char variant[32];
  const char *what;
  if (r->kind == COL_CTL_SPAWN) { /* its child is named as an exec (sampler_records.c) */
    what = request_variant(r->text, variant, sizeof variant);
    spawns_begin(r->pid, r->tid, r->tstamp, variant, what);
    return;
  }
  if (r->kind == COL_CTL_SPAWN_DONE) {
    spawns_end(r->pid, r->tid, (pid_t)r->err, r->tstamp);
    return;
  }
  if (r->kind == COL_CTL_FORKED || r->kind == COL_CTL_FORKED_UNFOLLOWED)
    sampler.forks_told++; /* (sampler_forks_in_flight) */
  if ((r->kind == COL_CTL_FORKED || r->kind == COL_CTL_EXECED) && sampler.clock_in_program) {
    int ppid = 0, ptid = 0;
    long long forked_at = 0;
    char comm[32] = "";
    /* (the fork's time: the parent's before the call, which a spawn's
     * window holds; the child's post comes after the spawn may have
     * returned: a clone() child was named as a fork, _f2.er, under load) */
    int fields = r->kind == COL_CTL_FORKED ? sscanf(r->text, "%d %d %lld", &ppid, &ptid, &forked_at) : 0;
    if (fields >= 2)
      sampler_on_fork_news(r->pid, ppid, ptid, fields == 3 && forked_at > 0 ? forked_at : r->tstamp);
    else if (r->kind == COL_CTL_EXECED && sscanf(r->text, "%d %31[^\n]", &ppid, comm) >= 1)
      sampler_on_exec_news(r->pid, r->tid, ppid, comm, r->tstamp);
    return;
  }
  if (r->kind == COL_CTL_BLOCKED_THREADS) {
    if (r->err > 0 && sampler.started) {
      col_log_final_warning(COL_WARN_TEXT, "%d thread(s) blocked the collector's timer signal (%d) when GDB attached: their "
                            "CPU time is not sampled until they change their signal mask (no system call changes "
                            "another thread's)", r->err, COL_TIMER_SIGNAL);
      col_status_add_note("%d thread(s) blocked the collector's timer signal when GDB attached: not sampled",
                          r->err);
    }
    return;
  }
  if (r->kind == COL_CTL_CHILDREN_CPU) {
    if (r->pid == col_target_pid)
      descendants_children_cpu(strtoll(r->text, NULL, 10));
    return;
  }
  if (r->kind == COL_CTL_FORKED_UNFOLLOWED) { /* a descendant this process cannot follow: counted */
    if (sampler.started && r->tstamp < sampler.closing_at)
      descendants_on_fork(r->pid, col_target_pid, r->pid, r->tstamp);
    return;
  }
  if (r->kind == COL_CTL_CLOCK_IN_PROGRAM) { /* the program samples itself from now on: the run starts */
    if (r->pid == col_target_pid && sampler.clock_in_program && !sampler.started && !sampler.finished) {
      sampler_on_exec_news(r->pid, r->tid, 0, "", r->tstamp); /* as the exec's record starts it with perf events */
      col_log_comment("The kernel refused perf events: the program's threads sampled themselves (CPU-time timers, "
                      "signal %d), and this sampler process unwound and wrote their samples, as it did the traced "
                      "calls; collection started before the program's main, the dynamic loader's start not "
                      "recorded", COL_TIMER_SIGNAL);
    }
    return;
  }
  if (r->kind == COL_CTL_JOB_FORWARDING)
    sampler_note_job_forwarding(r);
  /* After the program's exec (its runtime said so), what its process asks
   * is its new image's, whose writer the kernel's exec record starts. */
  int new_image = sampler.exec_pending && r->kind != COL_CTL_EXEC_FAILED;
  if (r->pid != col_target_pid || writers_has_route(r->pid) || new_image) {
    sampler_hold_request(r);
    return;
  }
  if (!sampler.started && !sampler.finished && r->kind == COL_CTL_CLOSE) {
    end_before_start = *r; /* (sampler_take_end_before_start) */
    has_end_before_start = 1;
    return;
  }
  if (!sampler.started || sampler.finished)
    return; /* the program's experiment has ended */
  switch (r->kind) {
  case COL_CTL_SAMPLE:
  case COL_CTL_PAUSE:
  case COL_CTL_RESUME:
  case COL_CTL_CLOSE:
  case COL_CTL_FUNC_LOAD:
  case COL_CTL_FUNC_UNLOAD:
  case COL_CTL_UNLOADED:
  case COL_CTL_JOB_FORWARDING:
  case COL_CTL_THREAD_NAME:
    sampler_apply_request(r);
    break;
  case COL_CTL_UNLOADING:
    /* The object still mapped (its caller waits): read first, so that its
     * samples, taken next, unwind and name in it (module_map.c stamps it
     * from the previous reading on). */
    if (sampler.clock_in_program && !sampler.exec_pending && col_modules_rescan())
      col_unwind_forget_modules();
    sampler_take_trace(SAMPLER_ALL_RECORDS);
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
    sampler_take_trace(SAMPLER_ALL_RECORDS); /* the old image's events, before its writer takes the pid */
    uint64_t totals[ER_HWC_MAX_COUNTERS];
    if (sampler_counter_totals(totals, INT64_MAX) == 0)
      tails_finish_counters(col_target_pid, totals, r->tstamp);
    sampler_accounts_end(r->tstamp); /* the old image's threads end here */
    col_data_writers_flush();
    what = request_variant(r->text, variant, sizeof variant);
    col_experiment_exec_event("exec_start", variant, what, ++sampler.exec_count);
    col_log_final_sample("suspend_for_exec");
    col_status_write(&col_cfg, "exec", what);
    snprintf(sampler.exec_what, sizeof sampler.exec_what, "%s", what);
    sampler.exec_pending = 1;
    break;
  case COL_CTL_INTERPOSED: {
    unsigned slots = 0, objects = 0, unreadable = 0, kept = 0;
    char first[64] = "-";
    sscanf(r->text, "%u %u %u %63s %u", &slots, &objects, &unreadable, first, &kept);
    col_log_comment("Started in a running process (GDB attached): the runtime's wrappers (%s%s%sexec, spawn, thread "
                    "start) were put in %u GOT slot(s) of %u loaded object(s); objects loaded later keep their calls. "
                    "Calls that do not go through a GOT are not seen: calls inside libc itself (stdio's own reads and "
                    "writes), statically linked code, and calls already waiting when GDB attached",
                    col_kind_on(&col_cfg, ER_KIND_SYNC) ? "synchronization waits, " : "",
                    col_kind_on(&col_cfg, ER_KIND_IO) ? "I/O, " : "",
                    col_kind_on(&col_cfg, ER_KIND_HEAP) ? "allocations, frees, " : "", slots,
                    objects);
    if (kept > 0)
      col_log_comment("%u GOT slot(s) bound to another definition than the process's own were left as they were: "
                      "their calls are not traced", kept);
    if (unreadable > 0)
      col_log_warning(COL_WARN_TEXT, "%u loaded object(s) could not be patched after the attach (no dynamic symbol table "
                      "readable; the first: %s): calls they make are not traced", unreadable, first);
    break;
  }
  case COL_CTL_STATUS_FILE:
    /* A later GDB session adopted the experiment: report to it.  The
     * session directory the sampler began in keeps its membership to the
     * end (the control page and the trace ring are there). */
    if (strcmp(col_cfg.status_path, r->text) != 0) {
      session_dir_join(r->text);
      if (!session_dir_began_beside(col_cfg.status_path))
        session_dir_leave(col_cfg.status_path);
    }
    snprintf(col_cfg.status_path, sizeof col_cfg.status_path, "%s", r->text);
    col_status_write(&col_cfg, "active", NULL);
    break;
  case COL_CTL_TRACE_UNMAPPED:
    sampler_trace_unmapped(r->err);
    break;
  case COL_CTL_HEAP_ELSEWHERE:
    col_log_warning(COL_WARN_TEXT, "Heap tracing records nothing of this program: its calls of malloc and free reach "
                    "%.60s's before the collector's runtime (a sanitizer's runtime, which must be preloaded first, "
                    "or an allocator built into the program). Started without the collector, the program's calls "
                    "through its GOT reach the collector after gdb -p and collector enable", r->text);
    col_status_add_note("no allocation traced: the program's malloc is %.60s's", r->text);
    break;
  case COL_CTL_EXEC_FAILED:
    what = request_variant(r->text, variant, sizeof variant);
    col_experiment_exec_event("exec_error", variant, what, sampler.exec_count);
    col_log_warning(COL_WARN_TEXT, "%s of %s failed (%s); the experiment goes on", variant, what, strerror(r->err));
    col_status_write(&col_cfg, "active", NULL);
    sampler.exec_pending = 0;
    sampler.closing_at = INT64_MAX;
    sampler_events_enable(1);
    break;
  }
}

static void on_request(const struct col_control_record *r, void *unused)
{
  handle_request(r);
  /* Taken, whatever became of it: where perf events are refused the
   * process waits for this (control_page.h). */
  int waited_for = r->kind == COL_CTL_EXEC_START || r->kind == COL_CTL_EXECED || r->kind == COL_CTL_FORKED ||
                   r->kind == COL_CTL_UNLOADING;
  if (waited_for && r->tstamp > __atomic_load_n(&col_control->news_taken_tstamp, __ATOMIC_RELAXED))
    __atomic_store_n(&col_control->news_taken_tstamp, r->tstamp, __ATOMIC_RELEASE);
}

int sampler_forks_in_flight(void)
{
  static uint64_t last_begun;
  static int64_t last_change;
  if (col_control == NULL || !sampler.clock_in_program)
    return 0;
  uint64_t begun = __atomic_load_n(&col_control->forks_begun, __ATOMIC_ACQUIRE);
  int64_t now = col_hrtime();
  if (begun != last_begun) {
    last_begun = begun;
    last_change = now;
  }
  /* (a fork that failed, or a child killed before its runtime spoke, never
   * says it began: waited for a while after the last fork began, not for
   * ever) */
  return (int64_t)(begun - sampler.forks_told) > 0 && now - last_change < FORK_NEWS_WAIT_NS;
}

void sampler_take_thread_starts(void)
{
  if (col_control == NULL)
    return;
  tails_set_never_sampled_frame(__atomic_load_n(&col_control->never_sampled_pc, __ATOMIC_ACQUIRE));
  col_control_take_thread_starts(tails_on_thread_start);
}

void sampler_take_requests(void)
{
  if (col_control == NULL)
    return;
  int founder_open = sampler.started && !sampler.finished;
  if (founder_open)
    sampler_take_thread_starts();
  int64_t news_before = __atomic_load_n(&col_control->news_taken_tstamp, __ATOMIC_RELAXED);
  col_control_take(on_request, NULL);
  if (__atomic_load_n(&col_control->news_taken_tstamp, __ATOMIC_RELAXED) != news_before)
    col_control_wake_waiters(); /* the processes waiting for their news to be taken */
  uint64_t stops = __atomic_load_n(&col_control->debugger_stops, __ATOMIC_ACQUIRE);
  if (founder_open && stops != sampler.stops_seen) {
    sampler.stops_seen = stops;
    char label[ER_STOP_LABEL_BYTES];
    col_log_sample(col_stop_label(col_control->stop_label, label)); /* (GDB wrote it before the count) */
  }
}

