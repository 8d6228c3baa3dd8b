/* The memory GDB reads and writes without calling anything: the head of
 * the control page the runtime and the sampler process share (GDB's stop
 * counter, its status requests, the requests' indices), and the runtime's
 * progress counters.  GDB's plugin gets every offset from here through
 * libgdbcol-shared (gdbcol_layout), and the runtime's own structs are
 * checked against these with _Static_asserts: one layout, no copies. */
#ifndef GDBCOL_ER_GDB_LAYOUT_H
#define GDBCOL_ER_GDB_LAYOUT_H

#include <stdint.h>

/* The real-time signal (SIGRTMIN + 27) the runtime's in-process clock
 * source uses: GDB is told to pass it without stopping (gdbcol_timer_signal). */
#define ER_RUNTIME_TIMER_SIGNAL 61

/* A GDB stop's sample point label, its NUL included; every such label
 * begins with ER_STOP_LABEL_PREFIX (the reader finds the stops by it). */
#define ER_STOP_LABEL_BYTES 112
#define ER_STOP_LABEL_PREFIX "gdb_stop"

/* The first words of the control page (struct col_control_page). */
struct er_control_head {
  uint64_t magic;
  uint64_t write_index, read_index; /* the requests posted and taken */
  uint64_t dropped;
  uint64_t debugger_stops; /* GDB adds one at each stop (dbxsample) */
  uint64_t status_asked;   /* GDB adds one to ask for a status current to now */
  /* Where GDB stopped, written before it adds to debugger_stops: the
   * stop's sample point label ("gdb_stop breakpoint 1 in f at x.c:12") */
  char stop_label[ER_STOP_LABEL_BYTES];
};

/* The runtime's counters (exported as gdbcol_progress), read by
 * `collector status` at a stop when the program samples itself. */
struct er_progress {
  uint64_t profile_packets;
  uint64_t sample_points;
  uint64_t data_bytes;
  uint64_t limit_reached;
  uint64_t paused;
  uint64_t write_errno;         /* what stopped writing (ENOSPC ...); 0: nothing */
  uint64_t samples_not_written; /* captured but lost to that error */
};

#endif
