/* The runtime's entry points: what GDB calls in the program (gdbcol_*,
 * through inferior calls) and what libcollectorAPI.so finds with dlsym
 * (gdbcol_api_*).  A pause reaches the data sources running here first, so
 * that they stop recording, then the experiment (its log, or the sampler
 * process's). */
#include <stddef.h>

#include "runtime/collection_state.h"
#include "runtime/collector_main.h"
#include "runtime/data_sources.h"
#include "runtime/dynamic_functions.h"
#include "runtime/program_requests.h"

static void pause_sources_and_experiment(const char *reason)
{
  if (!col_collecting())
    return;
  col_sources_pause();
  col_pause(reason);
}

static void resume_sources_and_experiment(void)
{
  if (!col_collecting())
    return;
  col_resume();
  col_sources_resume();
}

void gdbcol_pause(const char *reason)
{
  pause_sources_and_experiment(reason != NULL ? reason : "collector pause");
}

void gdbcol_resume(void)
{
  resume_sources_and_experiment();
}

void gdbcol_sample(const char *name)
{
  col_sample(name);
}

/* libcollectorAPI.so finds these with dlsym on the loaded runtime. */
void gdbcol_api_pause(void)
{
  pause_sources_and_experiment("collector_pause");
}

void gdbcol_api_resume(void)
{
  resume_sources_and_experiment();
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
