/* The pause state where the files are written. */
#ifndef COL_CORE_EXPERIMENT_CONTROL_H
#define COL_CORE_EXPERIMENT_CONTROL_H

#include <stdint.h>

/* Where the files are written: pause or resume as of TSTAMP.  Nonzero
 * when the state changed (the caller then writes the status file). */
int col_pause_at(const char *reason, int64_t tstamp);
int col_resume_at(int64_t tstamp);
/* Nonzero in a program whose experiment the sampler process writes: the
 * runtime posts requests on the control page instead. */
int col_outside(void);
int col_is_paused(void);
/* Nonzero when a capture taken at TSTAMP fell in a paused interval. */
int col_paused_at(int64_t tstamp);
/* A new experiment starts unpaused. */
void col_pause_reset(void);

#endif
