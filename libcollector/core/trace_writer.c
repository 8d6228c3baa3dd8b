/* Trace packets: each event a tracing wrapper recorded on a program
 * thread (any traced kind: its payload is its packet after the common
 * header) is unwound from its registers and stack copy as a clock sample
 * is, or taken as the stack the thread walked itself, its stack recorded
 * once in data.frameinfo (shared with the clock writer, flushed first),
 * and its packet appended to its kind's file.  Counter packets
 * (hwcounters) go through the same outputs: each overflow unwound as a
 * clock sample is, with its counter's tag and the events it stands for.
 * Runs where the clock writer runs (the sampler process, a descendant's
 * writer). */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/capture.h"
#include "core/clock_writer.h"
#include "core/config.h"
#include "core/experiment_log.h"
#include "core/stack_store.h"
#include "core/trace_writer.h"
#include "unwind/unwind.h"
#include "er/er_data_kinds.h"
#include "er/er_format.h"
#include "trace_ring.h"

/* What it wrote and did not (col_trace_writer_describe). */
static struct col_trace_figures figures;

/* One output per data kind written here (the traced kinds' and the
 * counters'): its file, its cursor, what it lost so far. */
struct trace_output {
  struct er_cursor *cursor;
  uint64_t lost_counted;
};
static struct trace_output outputs[ER_N_KINDS];

static int written_here(int kind)
{
  return kind != ER_KIND_CLOCK; /* the clock writer's own (clock_writer.c) */
}

int col_trace_writer_start(void)
{
  for (int k = 0; k < ER_N_KINDS; k++) {
    struct trace_output *o = &outputs[k];
    figures.written[k] = figures.not_written[k] = o->lost_counted = 0;
    struct er_datafile *file = &col_exp.data[er_kind_file_owner((enum er_kind)k)];
    if (!written_here(k) || file->fd < 0 || !col_kind_on(&col_cfg, (enum er_kind)k))
      continue;
    if (o->cursor == NULL && (o->cursor = col_map_zeroed(sizeof *o->cursor)) == NULL)
      return -ENOMEM;
    er_cursor_init(o->cursor, file); /* its own blocks, in a file it may share with another kind */
  }
  return 0;
}

static int output_open(int kind)
{
  const struct trace_output *o = &outputs[kind];
  const struct er_datafile *file = &col_exp.data[er_kind_file_owner((enum er_kind)kind)];
  return written_here(kind) && o->cursor != NULL && o->cursor->file == file && file->fd >= 0;
}

static struct trace_output *output_for(unsigned kind)
{
  return kind < ER_N_KINDS && output_open((int)kind) ? &outputs[kind] : NULL;
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

void col_trace_event_capture(const struct col_trace_event *e, struct col_capture *cap)
{
  memset(cap, 0, sizeof *cap);
  cap->tid = e->tid;
  cap->cpu = e->cpu;
  cap->tstamp = e->end;
  cap->weight = 1;
  cap->regs.r[PERF_REG_X86_IP] = e->ip;
  cap->regs.r[PERF_REG_X86_SP] = e->sp;
  cap->regs.r[PERF_REG_X86_BP] = e->bp;
  cap->stack = e->stack;
  cap->stack_len = e->stack_len;
}

/* The event's stack, unwound from its registers and stack copy as a clock
 * sample's is: its data.frameinfo id (0: not recorded). */
static uint64_t event_stack(const struct col_trace_event *e)
{
  if (e->n_pcs > 0) { /* walked where it happened */
    figures.stacks_walked_here++;
    size_t n = e->n_pcs <= e->stack_len / sizeof(uint64_t) ? e->n_pcs : e->stack_len / sizeof(uint64_t);
    uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
    if (n > ER_MAX_STACK_DEPTH + 1)
      n = ER_MAX_STACK_DEPTH + 1;
    memcpy(pcs, e->stack, n * sizeof *pcs);
    return col_writer_stack_id(pcs, n);
  }
  struct col_capture cap;
  col_trace_event_capture(e, &cap);
  uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  size_t n = col_unwind(&cap, pcs, ER_MAX_STACK_DEPTH + 1);
  figures.stacks_from_copies++;
  publish_rules(e->space, pcs, n);
  return col_writer_stack_id(pcs, n);
}

static void fill_header(struct er_common_packet *p, size_t size, unsigned kind, pid_t tid, uint32_t cpu,
                        int64_t tstamp, uint64_t frinfo)
{
  p->tsize = (uint16_t)size;
  p->type = er_kinds[kind].packet_type;
  p->lwpid = p->thrid = (uint64_t)tid;
  p->cpuid = cpu;
  p->tstamp = tstamp;
  p->frinfo = frinfo;
}

/* The packet is the common header, then the event's payload as the kind's
 * wrapper made it (rounded up to 8 bytes, at least the kind's size). */
void col_trace_writer_write(const struct col_trace_event *e)
{
  struct trace_output *o = output_for(e->kind);
  if (o == NULL || !col_writer_wanted_at(e->end) || e->payload_len > sizeof e->payload)
    return;
  union {
    struct er_common_packet header;
    unsigned char bytes[ER_PACKET_HEADER_SIZE + COL_TRACE_PAYLOAD_ROOM(COL_TRACE_PAYLOAD_MAX)];
  } p;
  size_t size = ER_PACKET_HEADER_SIZE + COL_TRACE_PAYLOAD_ROOM(e->payload_len);
  if (size < er_kinds[e->kind].packet_size)
    size = er_kinds[e->kind].packet_size;
  uint64_t frinfo = event_stack(e);
  if (!col_writer_may_append(o->cursor, frinfo, size)) {
    figures.not_written[e->kind]++;
    return;
  }
  memset(&p, 0, size);
  fill_header(&p.header, size, e->kind, e->tid, e->cpu, e->end, frinfo);
  memcpy(p.bytes + ER_PACKET_HEADER_SIZE, e->payload, e->payload_len);
  if (er_cursor_append(o->cursor, &p, size) != 0)
    figures.not_written[e->kind]++;
}

void col_counter_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t tag, uint64_t events,
                               const uint64_t *pcs, size_t n)
{
  struct trace_output *o = output_for(ER_KIND_HWC);
  if (o == NULL || !col_writer_wanted_at(tstamp))
    return;
  uint64_t frinfo = col_writer_stack_id(pcs, n);
  struct er_hwc_packet p;
  if (!col_writer_may_append(o->cursor, frinfo, sizeof p)) {
    figures.not_written[ER_KIND_HWC]++;
    return;
  }
  memset(&p, 0, sizeof p);
  fill_header((struct er_common_packet *)(void *)&p, sizeof p, ER_KIND_HWC, tid, cpu, tstamp, frinfo);
  p.hwctag = tag;
  p.hwcint = events;
  if (er_cursor_append(o->cursor, &p, sizeof p) != 0)
    figures.not_written[ER_KIND_HWC]++;
}

size_t col_counter_writer_write(const struct col_capture *cap, uint32_t tag, uint64_t events, uint64_t *pcs)
{
  if (output_for(ER_KIND_HWC) == NULL || !col_writer_wanted_at(cap->tstamp))
    return 0;
  size_t n = col_unwind(cap, pcs, ER_MAX_STACK_DEPTH + 1);
  col_counter_writer_packet(cap->tid, cap->cpu, cap->tstamp, tag, events, pcs, n);
  return n;
}

void col_trace_writer_flush(void)
{
  for (int k = 0; k < ER_N_KINDS; k++)
    if (output_open(k))
      er_cursor_flush(outputs[k].cursor);
}

void col_trace_writer_count(void)
{
  for (int k = 0; k < ER_N_KINDS; k++) {
    struct trace_output *o = &outputs[k];
    if (!output_open(k))
      continue;
    figures.written[k] = o->cursor->written;
    figures.not_written[k] += o->cursor->lost - o->lost_counted;
    o->lost_counted = o->cursor->lost;
  }
}

uint64_t col_kind_events_written(enum er_kind kind)
{
  return written_here(kind) ? figures.written[kind] : 0;
}

void col_trace_writer_abandon(int err)
{
  for (int k = 0; k < ER_N_KINDS; k++)
    if (output_open(k))
      er_cursor_abandon(outputs[k].cursor, err);
}

void col_trace_writer_describe(struct col_trace_figures *out)
{
  *out = figures;
}
