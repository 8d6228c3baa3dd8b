/* Settings the GDB plugin passes to the runtime through the environment.
 *
 *   GDBCOL_EXPERIMENT_DIR   where experiments go (absolute)
 *   GDBCOL_EXPERIMENT_NAME  explicit name, else test.N.er
 *   GDBCOL_STATUS_FILE      file the runtime updates for `collector status`
 *   GDBCOL_CLOCK_US         clock interval in microseconds, 0 = off
 *   GDBCOL_STACK_BYTES      user stack bytes copied per sample
 *   GDBCOL_CLOCK_SOURCE     "timer" forces the POSIX timer fallback
 *   GDBCOL_UNWIND_CHECK     "1": check the fast unwinder against libunwind
 *   GDBCOL_TARGET           set by the launcher: the program it execs
 *   GDBCOL_SAVED_LD_PRELOAD the user's LD_PRELOAD (GDBCOL_LD_PRELOAD_UNSET=1
 *                           when there was none)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector_internal.h"
#include "er/er_timer_spec.h"

#define DEFAULT_STACK_BYTES 8192
#define MAX_STACK_BYTES 65528 /* perf's limit for sample_stack_user */

static void copy_env(const char *name, char *out, size_t len)
{
  const char *v = getenv(name);
  snprintf(out, len, "%s", v ? v : "");
}

static int running_the_target(void)
{
  const char *target = getenv("GDBCOL_TARGET");
  if (target == NULL || *target == '\0')
    return 1; /* preloaded directly (startup-with-shell off): we are it */
  char self[PATH_MAX], want[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0 || realpath(target, want) == NULL)
    return 1;
  self[n] = '\0';
  return strcmp(self, want) == 0;
}

int col_config_load(struct col_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  const char *interval = getenv("GDBCOL_CLOCK_US");
  if (interval == NULL || getenv("GDBCOL_STATUS_FILE") == NULL)
    return 0;
  if (!running_the_target())
    return 0;
  copy_env("GDBCOL_EXPERIMENT_DIR", cfg->store_dir, sizeof cfg->store_dir);
  copy_env("GDBCOL_EXPERIMENT_NAME", cfg->experiment_name, sizeof cfg->experiment_name);
  copy_env("GDBCOL_STATUS_FILE", cfg->status_path, sizeof cfg->status_path);
  cfg->clock_interval_us = atol(interval);
  if (cfg->clock_interval_us != 0 &&
      (cfg->clock_interval_us < ER_TIMER_MIN_US || cfg->clock_interval_us > ER_TIMER_MAX_US))
    cfg->clock_interval_us = ER_TIMER_ON_US;
  const char *stack = getenv("GDBCOL_STACK_BYTES");
  long bytes = stack ? atol(stack) : DEFAULT_STACK_BYTES;
  if (bytes < 1024 || bytes > MAX_STACK_BYTES)
    bytes = DEFAULT_STACK_BYTES;
  cfg->stack_copy_bytes = (size_t)bytes & ~(size_t)7;
  const char *source = getenv("GDBCOL_CLOCK_SOURCE");
  cfg->force_timer_source = source != NULL && strcmp(source, "timer") == 0;
  const char *check = getenv("GDBCOL_UNWIND_CHECK");
  cfg->check_unwinder = check != NULL && strcmp(check, "1") == 0;
  if (cfg->store_dir[0] == '\0' && getcwd(cfg->store_dir, sizeof cfg->store_dir) == NULL)
    snprintf(cfg->store_dir, sizeof cfg->store_dir, ".");
  return 1;
}

static const char *const our_variables[] = {
    "GDBCOL_EXPERIMENT_DIR", "GDBCOL_EXPERIMENT_NAME", "GDBCOL_STATUS_FILE", "GDBCOL_CLOCK_US",
    "GDBCOL_STACK_BYTES",    "GDBCOL_CLOCK_SOURCE",    "GDBCOL_TARGET",      "GDBCOL_PRELOAD",
    "GDBCOL_UNWIND_CHECK",
};

void col_config_scrub_environment(void)
{
  const char *saved = getenv("GDBCOL_SAVED_LD_PRELOAD");
  if (getenv("GDBCOL_LD_PRELOAD_UNSET") != NULL)
    unsetenv("LD_PRELOAD");
  else if (saved != NULL)
    setenv("LD_PRELOAD", saved, 1);
  unsetenv("GDBCOL_SAVED_LD_PRELOAD");
  unsetenv("GDBCOL_LD_PRELOAD_UNSET");
  for (size_t i = 0; i < sizeof our_variables / sizeof our_variables[0]; i++)
    unsetenv(our_variables[i]);
}
