/* Trace packets (synctrace, iotrace, heaptrace): each event the runtime recorded on a program
 * thread is unwound from its registers and stack copy, as a clock sample
 * is, its stack recorded once in data.frameinfo (shared with the clock
 * writer, flushed first), and its packet appended.  Counter packets
 * (hwcounters) go through the same outputs: each overflow unwound as a
 * clock sample is, with its counter's tag and the events it stands for.
 * Runs where the clock writer runs (the sampler process, a descendant's
 * writer). */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "collector_internal.h"
#include "er/er_format.h"
#include "trace_ring.h"

uint64_t col_trace_events_written, col_trace_events_not_written;
uint64_t col_io_events_written, col_io_events_not_written;
uint64_t col_heap_events_written, col_heap_events_not_written;
uint64_t col_trace_stacks_walked_here, col_trace_stacks_from_copies;
uint64_t col_overflows_written, col_overflows_not_written;

/* The counters' output, beside the traced kinds' (enum col_trace_kind starts at 1). */
#define COUNTER_OUTPUT 0

/* One output per traced kind, and the counters': its file, its cursor, its counts. */
struct trace_output {
  uint32_t kind;
  struct er_datafile *file;
  struct er_cursor *cursor;
  uint64_t *written, *not_written;
  uint64_t lost_counted;
};
static struct trace_output outputs[] = {
    {COL_TRACE_SYNC, &col_exp.data[ER_KIND_SYNC], NULL, &col_trace_events_written, &col_trace_events_not_written, 0},
    {COL_TRACE_IO, &col_exp.data[ER_KIND_IO], NULL, &col_io_events_written, &col_io_events_not_written, 0},
    {COL_TRACE_HEAP, &col_exp.data[ER_KIND_HEAP], NULL, &col_heap_events_written, &col_heap_events_not_written, 0},
    {COUNTER_OUTPUT, &col_exp.data[ER_KIND_HWC], NULL, &col_overflows_written, &col_overflows_not_written, 0},
};
#define N_OUTPUTS (sizeof outputs / sizeof outputs[0])

int col_trace_writer_start(void)
{
  for (size_t i = 0; i < N_OUTPUTS; i++) {
    struct trace_output *o = &outputs[i];
    *o->written = *o->not_written = o->lost_counted = 0;
    if (o->file->fd < 0)
      continue;
    if (o->cursor == NULL && (o->cursor = col_map_zeroed(sizeof *o->cursor)) == NULL)
      return -ENOMEM;
    er_cursor_init(o->cursor, o->file);
  }
  return 0;
}

static int output_open(const struct trace_output *o)
{
  return o->cursor != NULL && o->cursor->file == o->file && o->file->fd >= 0;
}

static struct trace_output *output_for(uint32_t kind)
{
  for (size_t i = 0; i < N_OUTPUTS; i++)
    if (outputs[i].kind == kind)
      return output_open(&outputs[i]) ? &outputs[i] : NULL;
  return NULL;
}

/* The rule of each frame of a stack just unwound from a copy, for the
 * program's threads to walk the same frames themselves next time. */
static void publish_rules(uint32_t space, const uint64_t *pcs, size_t n)
{
  for (size_t i = 0; i < n && space != 0; i++) {
    if (pcs[i] == ER_PC_TRUNCATED || pcs[i] == ER_PC_UNWIND_FAILED)
      return;
    col_trace_publish_rule(space, pcs[i], col_frame_rule_for(pcs[i]));
  }
}

/* The event's stack, unwound from its registers and stack copy as a clock
 * sample's is: its data.frameinfo id (0: not recorded). */
static uint64_t event_stack(const struct col_trace_event *e)
{
  if (e->n_pcs > 0) { /* walked where it happened */
    col_trace_stacks_walked_here++;
    size_t n = e->n_pcs <= e->stack_len / sizeof(uint64_t) ? e->n_pcs : e->stack_len / sizeof(uint64_t);
    uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
    if (n > ER_MAX_STACK_DEPTH + 1)
      n = ER_MAX_STACK_DEPTH + 1;
    memcpy(pcs, e->stack, n * sizeof *pcs);
    return col_writer_stack_id(pcs, n);
  }
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.tid = e->tid;
  cap.cpu = e->cpu;
  cap.tstamp = e->end;
  cap.weight = 1;
  cap.regs.r[PERF_REG_X86_IP] = e->ip;
  cap.regs.r[PERF_REG_X86_SP] = e->sp;
  cap.regs.r[PERF_REG_X86_BP] = e->bp;
  cap.stack = e->stack;
  cap.stack_len = e->stack_len;
  uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  size_t n = col_unwind(&cap, pcs, ER_MAX_STACK_DEPTH + 1);
  col_trace_stacks_from_copies++;
  publish_rules(e->space, pcs, n);
  return col_writer_stack_id(pcs, n);
}

/* The common header of both packets. */
#define FILL_HEADER(p, size, kind, e, frinfo) \
  do {                                         \
    (p)->tsize = (uint16_t)(size);             \
    (p)->type = (kind);                        \
    (p)->lwpid = (p)->thrid = (uint64_t)(e)->tid; \
    (p)->cpuid = (e)->cpu;                     \
    (p)->tstamp = (e)->end;                    \
    (p)->frinfo = (frinfo);                    \
  } while (0)

void col_trace_writer_write(const struct col_trace_event *e)
{
  struct trace_output *o = output_for(e->kind);
  if (o == NULL || !col_writer_wanted_at(e->end))
    return;
  union {
    struct er_sync_packet sync;
    struct er_io_packet io;
    struct er_heap_packet heap;
    unsigned char bytes[sizeof(struct er_io_packet) + sizeof e->name];
  } p;
  size_t size = e->kind == COL_TRACE_HEAP ? sizeof p.heap : sizeof p.sync;
  if (e->kind == COL_TRACE_IO) {
    size_t name_len = strnlen(e->name, sizeof e->name - 1);
    size = (offsetof(struct er_io_packet, iofname) + name_len + 1 + 7) & ~(size_t)7;
    if (size < sizeof p.io)
      size = sizeof p.io;
  }
  uint64_t frinfo = event_stack(e);
  if (!col_writer_may_append(o->cursor, frinfo, size)) {
    (*o->not_written)++;
    return;
  }
  memset(&p, 0, size);
  if (e->kind == COL_TRACE_SYNC) {
    FILL_HEADER(&p.sync, size, ER_PKT_SYNC, e, frinfo);
    p.sync.srqst = e->start;
    p.sync.sobj = e->object;
  } else if (e->kind == COL_TRACE_HEAP) {
    FILL_HEADER(&p.heap, size, ER_PKT_HEAP, e, frinfo);
    p.heap.htype = e->iotype;
    p.heap.hsize = (uint64_t)e->nbytes;
    p.heap.hvaddr = e->object;
    p.heap.hovaddr = e->old_object;
  } else {
    FILL_HEADER(&p.io, size, ER_PKT_IOTRACE, e, frinfo);
    p.io.iotype = e->iotype;
    p.io.iofd = e->fd;
    p.io.ionbyte = e->nbytes;
    p.io.iorqst = e->start;
    p.io.iofd_original = e->ofd;
    p.io.iofstype = ER_IO_UNKNOWN_FSTYPE;
    memcpy(p.bytes + offsetof(struct er_io_packet, iofname), e->name, strnlen(e->name, sizeof e->name - 1));
  }
  if (er_cursor_append(o->cursor, &p, size) != 0)
    (*o->not_written)++;
}

void col_counter_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t tag, uint64_t events,
                               const uint64_t *pcs, size_t n)
{
  struct trace_output *o = output_for(COUNTER_OUTPUT);
  if (o == NULL || !col_writer_wanted_at(tstamp))
    return;
  uint64_t frinfo = col_writer_stack_id(pcs, n);
  struct er_hwc_packet p;
  if (!col_writer_may_append(o->cursor, frinfo, sizeof p)) {
    (*o->not_written)++;
    return;
  }
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_HW;
  p.lwpid = p.thrid = (uint64_t)tid;
  p.cpuid = cpu;
  p.tstamp = tstamp;
  p.frinfo = frinfo;
  p.hwctag = tag;
  p.hwcint = events;
  if (er_cursor_append(o->cursor, &p, sizeof p) != 0)
    (*o->not_written)++;
}

size_t col_counter_writer_write(const struct col_capture *cap, uint32_t tag, uint64_t events, uint64_t *pcs)
{
  if (output_for(COUNTER_OUTPUT) == NULL || !col_writer_wanted_at(cap->tstamp))
    return 0;
  size_t n = col_unwind(cap, pcs, ER_MAX_STACK_DEPTH + 1);
  col_counter_writer_packet(cap->tid, cap->cpu, cap->tstamp, tag, events, pcs, n);
  return n;
}

void col_trace_writer_flush(void)
{
  for (size_t i = 0; i < N_OUTPUTS; i++)
    if (output_open(&outputs[i]))
      er_cursor_flush(outputs[i].cursor);
}

void col_trace_writer_count(void)
{
  for (size_t i = 0; i < N_OUTPUTS; i++) {
    struct trace_output *o = &outputs[i];
    if (!output_open(o))
      continue;
    *o->written = o->cursor->written;
    *o->not_written += o->cursor->lost - o->lost_counted;
    o->lost_counted = o->cursor->lost;
  }
}

uint64_t col_kind_events_written(enum er_kind kind)
{
  for (size_t i = 0; i < N_OUTPUTS; i++)
    if (outputs[i].file == &col_exp.data[kind])
      return *outputs[i].written;
  return 0;
}

void col_trace_writer_abandon(int err)
{
  for (size_t i = 0; i < N_OUTPUTS; i++)
    if (output_open(&outputs[i]))
      er_cursor_abandon(outputs[i].cursor, err);
}
