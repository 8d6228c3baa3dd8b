/* The value of `collector profile timer VALUE`: parsing and the rules for
 * the effective interval.  Shared by the GDB plugin (through ctypes) and the
 * runtime. */
#ifndef ER_TIMER_SPEC_H
#define ER_TIMER_SPEC_H

#include <stddef.h>

/* Interval limits of the clock sources, in microseconds.  The kernel-side
 * task-clock sampler has a hrtimer underneath, so 1 us is its resolution;
 * 100 us is the smallest interval we let a production process pay for. */
#define ER_TIMER_MIN_US 100L
#define ER_TIMER_MAX_US 1000000L
#define ER_TIMER_RESOLUTION_US 1L
/* The named rates, slightly off round numbers (as gprofng) so that sampling
 * does not lock step with periodic behaviour in the program. */
#define ER_TIMER_ON_US 10007L
#define ER_TIMER_HI_US 997L
#define ER_TIMER_LO_US 100003L

/* Bytes of each thread's stack a clock sample copies for unwinding
 * (`collector profile stack`); the kernel copies at most 65528. */
#define ER_STACK_COPY_MIN 1024L
#define ER_STACK_COPY_MAX 65528L
#define ER_STACK_COPY_DEFAULT 8192L /* measured: docs/measurements.md, "Stack copy size" */

struct er_timer_spec {
  long interval_us;   /* effective interval */
  int raised_to_min;  /* the request was below ER_TIMER_MIN_US */
  int rounded_down;   /* the request was not a multiple of the resolution */
};

/* Parses VALUE: "on", "hi", "lo", or a positive integer or decimal number of
 * milliseconds, with an optional suffix "m" (milliseconds) or "u"
 * (microseconds).  Returns 0, or -1 with a message in ERR that names the
 * problem and the accepted forms. */
int er_parse_timer_spec(const char *value, struct er_timer_spec *out, char *err, size_t err_len);

#endif
