/* How much of a late CPU-time timer sample stands at its own stack, and
 * how much goes under <Not-sampled-under-load> (timer_lateness.c). */
#ifndef COL_INPROCESS_TIMER_LATENESS_H
#define COL_INPROCESS_TIMER_LATENESS_H

#include <stdint.h>

struct col_timer_split {
  uint32_t placed;   /* intervals recorded at the sample's stack */
  uint32_t unplaced; /* intervals recorded under <Not-sampled-under-load> */
};

/* N intervals of INTERVAL_NS ran since the thread's last sample;
 * PREEMPTED: the kernel switched it out for another thread meanwhile;
 * TICK_NS: the kernel's scheduler tick. */
struct col_timer_split col_timer_split(int64_t n, int64_t interval_ns, int64_t tick_ns, int preempted);

/* The same for a thread's end: of the NS it ran since its last sample,
 * those that go under <Not-sampled-under-load>. */
int64_t col_timer_unplaced_ns(int64_t ns, int64_t interval_ns, int64_t tick_ns, int preempted);

/* The kernel's scheduler tick in ns (the coarse clocks' resolution), read
 * once; 10 ms where it cannot be read. */
int64_t col_timer_tick_ns(void);

/* The address of the runtime's pseudo-function <Not-sampled-under-load>,
 * the frame the unplaced intervals are recorded under. */
uint64_t col_not_sampled_frame(void);

/* The calling thread's involuntary context switches so far; -1 where
 * they cannot be read.  Async-signal-safe (one system call). */
long col_thread_preemptions(void);

#endif
