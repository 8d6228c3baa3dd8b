/* Stack copies larger than a trace-ring slot.
 *
 * Where the program samples itself, each sample goes through the trace
 * ring, whose slots hold COL_TRACE_STACK_MAX bytes of stack.  A larger copy
 * (`collector profile stack 16k`: synprog's main alone holds about 5 KB of
 * locals) comes as the sample's slot and, right after it from the same
 * thread's signal handler, COL_TRACE_STACK_MORE slots with the rest.  The
 * sampler takes slots in order, so a sample's parts follow it (other
 * threads' events may come between); they are joined here.  A part that
 * found the ring full never comes: the sample is written with what came,
 * once its thread's next event shows that nothing more will. */
#define _GNU_SOURCE
#include <string.h>

#include "er/er_timer_spec.h"
#include "program_stacks.h"

#define JOINING 16 /* samples being joined at once: one per thread that sampled since */

static struct joining {
  int used;
  struct col_trace_event head; /* its stack[] unused: the bytes are below */
  size_t have, want;
  unsigned char stack[ER_STACK_COPY_MAX];
} joining[JOINING];

static void finish(struct joining *j, program_sample_fn done)
{
  j->used = 0;
  done(&j->head, j->stack, j->have);
}

static struct joining *joining_for(pid_t tid)
{
  for (size_t i = 0; i < JOINING; i++)
    if (joining[i].used && joining[i].head.tid == tid)
      return &joining[i];
  return NULL;
}

/* A free place (the oldest is written as it is where none is: a thread
 * whose parts stopped coming and that has not sampled since). */
static struct joining *free_place(program_sample_fn done)
{
  struct joining *oldest = &joining[0];
  for (size_t i = 0; i < JOINING; i++) {
    if (!joining[i].used)
      return &joining[i];
    if (joining[i].head.end < oldest->head.end)
      oldest = &joining[i];
  }
  finish(oldest, done);
  return oldest;
}

void program_stacks_on_event(const struct col_trace_event *e, program_sample_fn done)
{
  struct joining *j = joining_for(e->tid);
  if (e->kind == COL_TRACE_STACK_MORE) {
    if (j == NULL || j->head.pid != e->pid)
      return; /* its sample was written already */
    size_t len = e->stack_len < j->want - j->have ? e->stack_len : j->want - j->have;
    memcpy(j->stack + j->have, e->stack, len);
    j->have += len;
    if (j->have == j->want)
      finish(j, done);
    return;
  }
  if (j != NULL)
    finish(j, done); /* its parts stopped coming */
  struct col_clock_sample_payload sample;
  memset(&sample, 0, sizeof sample);
  if (e->ip != 0 && e->payload_len >= sizeof sample)
    memcpy(&sample, e->payload, sizeof sample);
  if (sample.stack_len <= e->stack_len || sample.stack_len > ER_STACK_COPY_MAX) {
    done(e, e->stack, e->stack_len);
    return;
  }
  j = free_place(done);
  j->used = 1;
  memcpy(&j->head, e, offsetof(struct col_trace_event, stack));
  memcpy(j->stack, e->stack, e->stack_len);
  j->have = e->stack_len;
  j->want = sample.stack_len;
}

void program_stacks_flush(program_sample_fn done)
{
  for (size_t i = 0; i < JOINING; i++)
    if (joining[i].used)
      finish(&joining[i], done);
}
