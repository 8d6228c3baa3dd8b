/* The runtime's entry points: what GDB calls in the program (gdbcol_*,
 * through inferior calls) and what libcollectorAPI.so finds with dlsym
 * (gdbcol_api_*). */
#include <stddef.h>

#include "core/experiment_control.h"
#include "core/runtime_calls.h"
#include "inprocess/runtime_thread.h"

#include "runtime/collection_state.h"
#include "runtime/collector_main.h"
#include "runtime/data_sources.h"
#include "runtime/dynamic_functions.h"
#include "runtime/program_requests.h"

void gdbcol_pause(const char *reason)
{
  col_pause_everything(reason != NULL ? reason : "collector pause");
}

void gdbcol_resume(void)
{
  col_resume_everything();
}

void gdbcol_sample(const char *name)
{
  col_sample(name);
}

static void drain_here(void *unused)
{
  (void)unused;
  col_runtime_thread_drain_now();
}

/* GDB at a stop, before a report, where the program samples itself: the
 * runtime's thread writes what its rings hold (and the stop's sample
 * point), so that the report is current, as the sampler process's drain
 * makes it where that process writes.  0, or -errno (no runtime thread). */
int gdbcol_drain(void)
{
  if (!col_collecting() || col_outside())
    return 0;
  return col_on_runtime_thread(drain_here, NULL);
}

/* libcollectorAPI.so finds these with dlsym on the loaded runtime. */
void gdbcol_api_pause(void)
{
  col_pause_everything("collector_pause");
}

void gdbcol_api_resume(void)
{
  col_resume_everything();
}

void gdbcol_api_sample(const char *name)
{
  col_sample(name);
}

void gdbcol_api_func_load(const char *name, const char *alias, const char *source, void *vaddr, int size,
                          int n_lines, const struct col_lineno *lines)
{
  (void)alias; /* Oracle's API ignores it too */
  col_func_load(name, source, vaddr, size, n_lines, lines);
}

void gdbcol_api_func_unload(void *vaddr)
{
  col_func_unload(vaddr);
}

void gdbcol_api_terminate_expt(void)
{
  col_close_experiment("collector_terminate_expt");
}
