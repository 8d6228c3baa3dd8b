/* The data writers, one per data kind or family of kinds (er_data_kinds.h),
 * behind the stack store they share: started together with an experiment,
 * flushed together after their stacks, given up together when a stack
 * could not be written.  A new kind's writer is one entry here. */
#include "core/clock_writer.h"
#include "core/data_writers.h"
#include "core/omp_trace_writer.h"
#include "core/stack_store.h"
#include "core/trace_writer.h"

static void no_count(void) {}

struct data_writer {
  const char *what;
  int (*start)(void);
  void (*flush)(void);
  void (*count)(void); /* what reached the disk, and what did not */
  void (*abandon)(int err);
};

static const struct data_writer writers[] = {
    {"clock packets (profile)", col_clock_writer_start, col_clock_writer_flush, col_clock_writer_count,
     col_clock_writer_abandon},
    {"traced events (every traced kind) and counter overflows (hwcounters)", col_trace_writer_start,
     col_trace_writer_flush, col_trace_writer_count, col_trace_writer_abandon},
    {"an OpenMP program's regions and tasks (omptrace)", col_omp_trace_start, col_omp_trace_flush, no_count,
     col_omp_trace_abandon},
};
#define N_WRITERS (sizeof writers / sizeof writers[0])

int col_data_writers_start(void)
{
  int rc = col_stack_store_start(col_data_writers_abandon);
  for (size_t i = 0; i < N_WRITERS && rc == 0; i++)
    rc = writers[i].start();
  return rc;
}

void col_data_writers_flush(void)
{
  int stacks_there = col_writer_stacks_on_disk(); /* a stack reaches the disk before its users */
  for (size_t i = 0; i < N_WRITERS; i++) {
    if (stacks_there)
      writers[i].flush();
    writers[i].count();
  }
}

void col_data_writers_abandon(int err)
{
  for (size_t i = 0; i < N_WRITERS; i++)
    writers[i].abandon(err);
}
