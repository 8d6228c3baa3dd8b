/* What a rank on another node needs to record itself into the job's
 * experiment as the founder's sampler process records the ranks it follows:
 * the same settings (clock interval, tracing kinds, limits, counters...),
 * and the job's experiment as where its own experiment goes.  Nothing that
 * names this node's files: the status file and the session's shared
 * memory are made anew by the rank (runtime/outside_rank.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/job_settings.h"
#include "er/er_data_kinds.h"
#include "er/er_text.h"

/* Besides each data kind's own setting (er_kinds[].setting). */
static const char *const recording_settings[] = {
    "GDBCOL_STACK_BYTES", "GDBCOL_MAX_FRAMES",    "GDBCOL_UNWIND_CHECK",    "GDBCOL_SAMPLE_PERIOD_MS",
    "GDBCOL_LIMIT_MB",    "GDBCOL_ARCHIVE",       "GDBCOL_DESCENDANTS",     "GDBCOL_HWC_NATIVE",
    "GDBCOL_RUNTIME_OBJECTS", "GDBCOL_STEAL_CHECK",
};
#define N_RECORDING (sizeof recording_settings / sizeof recording_settings[0])

static int add_line(char *out, size_t len, size_t *at, const char *name, const char *value)
{
  int n = snprintf(out + *at, len - *at, "%s=%s\n", name, value);
  if (n < 0 || (size_t)n >= len - *at)
    return -ENAMETOOLONG;
  *at += (size_t)n;
  return 0;
}

int col_job_settings_write(char *out, size_t len, const char *experiment_path)
{
  size_t at = 0;
  char encoded[PATH_MAX * 2 + 8];
  out[0] = '\0';
  for (size_t i = 0; i < N_RECORDING + ER_N_KINDS; i++) {
    const char *name = i < N_RECORDING ? recording_settings[i] : er_kinds[i - N_RECORDING].setting;
    const char *value = getenv(name); /* already in the form GDB gave (plain, or "hex:") */
    if (value != NULL && add_line(out, len, &at, name, value) != 0)
      return -ENAMETOOLONG;
  }
  er_value_encode(experiment_path, encoded, sizeof encoded);
  return add_line(out, len, &at, "GDBCOL_EXPERIMENT_DIR", encoded);
}
