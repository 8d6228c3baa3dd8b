/* The sampler process's perf events and rings (sampler_events.c). */
#ifndef GDBCOL_SAMPLER_EVENTS_H
#define GDBCOL_SAMPLER_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SAMPLER_MAX_CPUS 1024
#define SAMPLER_MAX_RINGS (3 * SAMPLER_MAX_CPUS) /* samples, switches and mappings, switch-out stacks */

/* Two rings per CPU: the samples (clock and counters, each with its stack
 * copy), and the threads' switches, exits, mappings and execs, so that a
 * sampler late to drain loses samples, whose time the thread tails
 * recover, rather than the switches the tails are computed from.  Where
 * the second ring cannot be mapped (locked memory), one ring holds both. */
struct sampler_ring {
  int fd;
  void *ring;
  size_t bytes;
  int holds_switches; /* a record lost here may be a switch (thread tails) */
  int holds_samples;  /* both: the switch ring could not be mapped */
  int holds_switch_stacks; /* the samples at switches out (off-CPU stacks), kept apart: their loss
                              costs those stacks, not clock samples */
};
/* What a record lost in a ring may have been (sampler_on_record). */
enum sampler_ring_kind { RING_SAMPLES = 0, RING_SWITCHES = 1, RING_SWITCH_STACKS = 2 };

extern struct sampler_ring sampler_rings[SAMPLER_MAX_RINGS];
extern int sampler_n_rings;
extern size_t sampler_ring_data_bytes;
extern int sampler_exclude_kernel; /* perf_event_paranoid >= 2: user mode only */
/* For log.xml: after an attach, threads that had events opened on them,
 * threads that could not (they count through no event), and the last
 * refusal; counter events (collector hwprofile) the kernel refused, and
 * the last reason. */
struct sampler_events_figures {
  unsigned attached_threads, unattached_threads;
  int attach_errno;
  unsigned counters_refused;
  int counter_errno;
  unsigned switch_stacks_opened; /* off-CPU stacks: events sampling switches out */
  int switch_stacks_errno;       /* why one was not opened (EACCES: kernel samples not allowed) */
};
void sampler_events_describe(struct sampler_events_figures *out);

/* Launch: one event per CPU on PID, inherited by every thread it creates,
 * counting from its exec.  0, or -errno (-1 when none is known) with the
 * reason in ERR. */
int sampler_open_for_launch(pid_t pid, char *err, size_t err_len);
/* Attach: events on every thread PID has now (per thread and CPU, each
 * writing into its CPU's ring), inherited by threads created later;
 * disabled until sampler_events_enable(1).  0, or -errno with the reason
 * in ERR. */
int sampler_open_for_attach(pid_t pid, char *err, size_t err_len);
void sampler_events_enable(int enabled);
/* A new thread of the program: the context its events were cloned from
 * moves to a new generation, so the kernel no longer swaps contexts (and
 * sampling progress) between it and the threads cloned before. */
void sampler_events_split_contexts(pid_t thread);
/* A descendant's writer (forked from the sampler): the events and rings
 * are the founder sampler's, not its own. */
void sampler_events_forget(void);
/* Each counter's count so far (TOTALS, ER_HWC_MAX_COUNTERS of them): the
 * threads the events were opened on and every thread that inherited them
 * and ended.  -1: no counter, or not read this time (NOW, record time:
 * many events are read at most every few ms). */
int sampler_counter_totals(uint64_t *totals, int64_t now);
/* Whether thread TID had events opened on it (not inherited). */
int sampler_thread_owns_events(pid_t tid);
/* Descriptors to wake on: the rings. */
void sampler_events_watch(int epoll_fd);

/* The counter (collector hwprofile, col_cfg.hwc) whose event has kernel id
 * ID (a sample's), or -1 (the clock's). */
int sampler_counter_of_event(uint64_t id);
/* Whether the event with kernel id ID samples switches out (off-CPU
 * stacks). */
int sampler_event_samples_switches(uint64_t id);

#endif
