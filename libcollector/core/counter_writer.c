/* Counter packets (hwcounters): each counter overflow unwound as a clock
 * sample is, its stack recorded once in the stack store, its packet
 * appended with the counter's tag and the events it stands for (the
 * period the kernel sampled at).  One of the data writers
 * (data_writers.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "collector_internal.h"
#include "er/er_format.h"

uint64_t col_overflows_written, col_overflows_not_written;
static uint64_t lost_counted;
static struct er_cursor *counters_out;

static int output_open(void)
{
  return counters_out != NULL && counters_out->file == &col_exp.data[ER_KIND_HWC] &&
         col_exp.data[ER_KIND_HWC].fd >= 0;
}

int col_counter_writer_start(void)
{
  col_overflows_written = col_overflows_not_written = lost_counted = 0;
  if (col_exp.data[ER_KIND_HWC].fd < 0)
    return 0;
  if (counters_out == NULL && (counters_out = col_map_zeroed(sizeof *counters_out)) == NULL)
    return -ENOMEM;
  er_cursor_init(counters_out, &col_exp.data[ER_KIND_HWC]);
  return 0;
}

void col_counter_writer_write(const struct col_capture *cap, uint32_t tag, uint64_t events)
{
  if (!output_open() || !col_writer_wanted_at(cap->tstamp))
    return;
  uint64_t pcs[ER_MAX_STACK_DEPTH + 2];
  size_t n = col_unwind(cap, pcs, ER_MAX_STACK_DEPTH + 1);
  uint64_t frinfo = col_writer_stack_id(pcs, n);
  struct er_hwc_packet p;
  if ((frinfo == 0 && col_limit_reached()) ||
      (er_cursor_would_close_block(counters_out, sizeof p) && !col_writer_stacks_on_disk())) {
    col_overflows_not_written++;
    return;
  }
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_HW;
  p.lwpid = p.thrid = (uint64_t)cap->tid;
  p.cpuid = cap->cpu;
  p.tstamp = cap->tstamp;
  p.frinfo = frinfo;
  p.hwctag = tag;
  p.hwcint = events;
  if (er_cursor_append(counters_out, &p, sizeof p) != 0)
    col_overflows_not_written++;
}

void col_counter_writer_flush(void)
{
  if (output_open())
    er_cursor_flush(counters_out);
}

void col_counter_writer_count(void)
{
  if (!output_open())
    return;
  col_overflows_written = counters_out->written;
  col_overflows_not_written += counters_out->lost - lost_counted;
  lost_counted = counters_out->lost;
}

void col_counter_writer_abandon(int err)
{
  if (output_open())
    er_cursor_abandon(counters_out, err);
}
