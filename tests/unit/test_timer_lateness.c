/* The late CPU-time timer sample's split (inprocess/timer_lateness.c):
 * what stays at its stack and what goes under <Not-sampled-under-load>,
 * and the two readings it rests on, against the kernel. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "inprocess/timer_lateness.h"
#include "test_util.h"

#define MS 1000000LL

static void check_split(int64_t n, int64_t interval, int64_t tick, int preempted, uint32_t placed, uint32_t unplaced)
{
  struct col_timer_split split = col_timer_split(n, interval, tick, preempted);
  if (split.placed != placed || split.unplaced != unplaced)
    fprintf(stderr, "n %lld interval %lld tick %lld preempted %d: %u + %u, expected %u + %u\n", (long long)n,
            (long long)interval, (long long)tick, preempted, split.placed, split.unplaced, placed, unplaced);
  CHECK(split.placed == placed && split.unplaced == unplaced);
}

static volatile int stop;

static void *spin(void *arg)
{
  (void)arg;
  while (!stop)
    ;
  return NULL;
}

int main(void)
{
  /* A thread never preempted keeps every interval at its stack (bursts
   * between sleeps: the ticks that found it are where its time went). */
  check_split(40, 10 * MS, 4 * MS, 0, 40, 0);
  /* Preempted: on time (an interval and the tick's lateness, at least an
   * interval more for the rounding) it keeps them all... */
  check_split(1, 10 * MS, 4 * MS, 1, 1, 0);
  check_split(2, 10 * MS, 4 * MS, 1, 2, 0);
  /* ...later, the rest is not placed. */
  check_split(3, 10 * MS, 4 * MS, 1, 2, 1);
  check_split(40, 10 * MS, 4 * MS, 1, 2, 38);
  /* 1 ms asked, a 4 ms tick: 4 intervals a sample on time, 5 with the rounding. */
  check_split(5, 1 * MS, 4 * MS, 1, 5, 0);
  check_split(12, 1 * MS, 4 * MS, 1, 5, 7);
  /* A 10 ms tick (HZ 100) and 1 ms. */
  check_split(11, 1 * MS, 10 * MS, 1, 11, 0);
  check_split(30, 1 * MS, 10 * MS, 1, 11, 19);
  /* The end of a thread, in nanoseconds. */
  CHECK(col_timer_unplaced_ns(35 * MS, 10 * MS, 4 * MS, 1) == 15 * MS);
  CHECK(col_timer_unplaced_ns(19 * MS, 10 * MS, 4 * MS, 1) == 0);
  CHECK(col_timer_unplaced_ns(35 * MS, 10 * MS, 4 * MS, 0) == 0);
  CHECK(col_timer_unplaced_ns(-3 * MS, 10 * MS, 4 * MS, 1) == 0);

  /* The kernel's tick: HZ between 100 and 1000. */
  int64_t tick = col_timer_tick_ns();
  CHECK(tick >= 1 * MS && tick <= 10 * MS);
  /* Involuntary switches, counted by the kernel: yielding the CPU to a
   * thread spinning on the same one. */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
  long before = col_thread_preemptions();
  CHECK(before >= 0);
  pthread_t spinner;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setaffinity_np(&attr, sizeof one, &one);
  CHECK(pthread_create(&spinner, &attr, spin, NULL) == 0);
  for (int i = 0; i < 20; i++)
    sched_yield();
  long after = col_thread_preemptions();
  stop = 1;
  pthread_join(spinner, NULL);
  if (after <= before)
    fprintf(stderr, "involuntary switches %ld then %ld after 20 yields to a spinning thread\n", before, after);
  CHECK(after > before);
  CHECK(col_not_sampled_frame() != 0);
  return TEST_EXIT();
}
