/* Trace packets (synctrace): each event the runtime recorded on a program
 * thread is unwound from its registers and stack copy, as a clock sample
 * is, its stack recorded once in data.frameinfo (shared with the clock
 * writer, flushed first), and its packet appended.  Runs where the clock
 * writer runs (the sampler process, a descendant's writer). */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "collector_internal.h"
#include "er/er_format.h"
#include "trace_ring.h"

uint64_t col_trace_events_written, col_trace_events_not_written;
static struct er_cursor *sync_out;
static uint64_t lost_counted;

int col_trace_writer_start(void)
{
  col_trace_events_written = col_trace_events_not_written = lost_counted = 0;
  if (col_exp.synctrace.fd < 0)
    return 0;
  if (sync_out == NULL) {
    void *p = mmap(NULL, sizeof *sync_out, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return -ENOMEM;
    sync_out = p;
  }
  er_cursor_init(sync_out, &col_exp.synctrace);
  return 0;
}

static int sync_open(void)
{
  return sync_out != NULL && sync_out->file == &col_exp.synctrace && col_exp.synctrace.fd >= 0;
}

void col_trace_writer_write(const struct col_trace_event *e)
{
  if (e->kind != COL_TRACE_SYNC || !sync_open() || !col_writer_wanted_at(e->end))
    return;
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
  uint64_t frinfo = col_writer_stack_id(pcs, n);
  struct er_sync_packet p;
  if ((frinfo == 0 && col_limit_reached()) ||
      (er_cursor_would_close_block(sync_out, sizeof p) && !col_writer_stacks_on_disk())) {
    col_trace_events_not_written++;
    return;
  }
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_SYNC;
  p.lwpid = p.thrid = (uint64_t)e->tid;
  p.cpuid = e->cpu;
  p.tstamp = e->end;
  p.frinfo = frinfo;
  p.srqst = e->start;
  p.sobj = e->object;
  if (er_cursor_append(sync_out, &p, sizeof p) != 0)
    col_trace_events_not_written++;
}

void col_trace_writer_flush(void)
{
  if (!sync_open())
    return;
  er_cursor_flush(sync_out);
  col_trace_events_written = sync_out->written;
  col_trace_events_not_written += sync_out->lost - lost_counted;
  lost_counted = sync_out->lost;
}

void col_trace_writer_abandon(int err)
{
  if (sync_open())
    er_cursor_abandon(sync_out, err);
}
