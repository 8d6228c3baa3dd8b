/* Settings the GDB plugin passes to the runtime through the environment.
 *
 *   GDBCOL_EXPERIMENT_DIR   where experiments go (absolute)
 *   GDBCOL_EXPERIMENT_NAME  explicit name, else test.N.er
 *   GDBCOL_STATUS_FILE      file the runtime updates for `collector status`
 *   GDBCOL_CLOCK_US         clock interval in microseconds, 0 = off
 *   GDBCOL_STACK_BYTES      user stack bytes copied per sample
 *   GDBCOL_MAX_FRAMES       most frames a call stack keeps (5-2048)
 *   GDBCOL_CLOCK_SOURCE     "timer" forces the POSIX timer fallback
 *   GDBCOL_UNWIND_CHECK     "1": check the fast unwinder against libunwind
 *   GDBCOL_STEAL_CHECK      "1": hold every perf clock sample to its thread's
 *                           own CPU clock, as where the host steals (tests)
 *   GDBCOL_OFFCPU           on | off: threads' time off their CPU, by reason
 *   GDBCOL_SAMPLE_PERIOD_MS periodic sample points, 0 = manual only
 *   GDBCOL_LIMIT_MB         cap on profile/trace data in MB, 0 = none
 *   GDBCOL_ARCHIVE          off | on | copy, applied when the experiment ends
 *   GDBCOL_GROUP            experiment group file (.erg) to join
 *   GDBCOL_DESCENDANTS      on | off | =REGEX: descendants recorded (sampler)
 *   GDBCOL_SYNCTRACE        off | calibrate | MICROSECONDS: synchronization waits
 *   GDBCOL_IOTRACE          on | off: I/O calls
 *   GDBCOL_HEAPTRACE        on | off: allocations and frees
 *   GDBCOL_HWC_NATIVE       the perf encodings of GDBCOL_HWC's PAPI and
 *                           libpfm4 names (GDB found them)
 *   GDBCOL_RUNTIME_OBJECTS  set by the launcher: the runtime's own
 *                           libraries, not listed as the program's
 *   GDBCOL_TARGET           set by the launcher: the program it execs
 *   GDBCOL_SAVED_LD_PRELOAD the user's LD_PRELOAD (GDBCOL_LD_PRELOAD_UNSET=1
 *                           when there was none)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er/er_defaults.h"
#include "core/config.h"
#include "er/er_archive.h"
#include "er/er_format.h"
#include "er/er_group.h"
#include "er/er_offcpu.h"
#include "er/er_text.h"
#include "er/er_timer_spec.h"

struct col_config col_cfg;

#define DEFAULT_STACK_BYTES ER_STACK_COPY_DEFAULT
#define MAX_STACK_BYTES ER_STACK_COPY_MAX /* perf's limit for sample_stack_user */
#define DEFAULT_LIMIT_MB ER_DEFAULT_LIMIT_MB

/* A setting's value, decoded (er_value_decode): a few at a time are in
 * use (load_settings reads each once), so a small ring of buffers. */
static const char *decoded(const char *raw)
{
  static char ring[4][PATH_MAX];
  static unsigned next;
  if (raw == NULL || strncmp(raw, "hex:", 4) != 0)
    return raw;
  char *buf = ring[next++ % 4];
  return er_value_decode(raw, buf, sizeof ring[0]);
}

static int running_the_target(void)
{
  const char *target = decoded(getenv("GDBCOL_TARGET"));
  if (target == NULL || *target == '\0')
    return 1; /* preloaded directly (startup-with-shell off): we are it */
  char self[PATH_MAX], want[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0 || realpath(target, want) == NULL)
    return 1;
  self[n] = '\0';
  return strcmp(self, want) == 0;
}

/* Where settings come from: the environment (launch mode) or the text the
 * plugin passes to gdbcol_attach_start ("NAME=value" lines, same names). */
typedef const char *(*setting_lookup)(const char *name, void *source);

static const char *from_environment(const char *name, void *unused)
{
  return decoded(getenv(name));
}

static void copy_setting(setting_lookup get, void *source, const char *name, char *out, size_t len)
{
  const char *v = get(name, source);
  snprintf(out, len, "%s", v ? v : "");
}

/* A relative group name lives where the experiments go; with no explicit
 * experiment name the group's stem names them (runs.erg -> runs.N.er). */
static void load_group(struct col_config *cfg, const char *group)
{
  if (group == NULL || *group == '\0' || er_check_group_name(group) != NULL)
    return;
  if (group[0] == '/')
    snprintf(cfg->group_path, sizeof cfg->group_path, "%s", group);
  else
    snprintf(cfg->group_path, sizeof cfg->group_path, "%.*s/%s", PATH_MAX / 2, cfg->store_dir, group);
  if (cfg->experiment_name[0] == '\0')
    er_group_experiment_name(group, cfg->experiment_name, sizeof cfg->experiment_name);
}

/* The counter list GDB checked ("page-faults,100,..."): each resolved to
 * its perf event and interval on this machine; a name it does not offer
 * is left out (GDB refuses those). */
static void load_counters(struct col_config *cfg, const char *text, const char *native)
{
  struct er_hwc_spec spec;
  char err[200];
  cfg->n_hwc = 0;
  if (text == NULL || text[0] == '\0' || er_parse_hwc_spec(text, &spec, err, sizeof err) != 0)
    return;
  for (int i = 0; i < spec.n && cfg->n_hwc < ER_HWC_MAX_COUNTERS; i++)
    if (er_hwc_resolve(&spec.counters[i], native, &cfg->hwc[cfg->n_hwc]) == 0)
      cfg->n_hwc++;
}

static void load_settings(struct col_config *cfg, setting_lookup get, void *source)
{
  copy_setting(get, source, "GDBCOL_EXPERIMENT_DIR", cfg->store_dir, sizeof cfg->store_dir);
  copy_setting(get, source, "GDBCOL_EXPERIMENT_NAME", cfg->experiment_name, sizeof cfg->experiment_name);
  copy_setting(get, source, "GDBCOL_STATUS_FILE", cfg->status_path, sizeof cfg->status_path);
  copy_setting(get, source, "GDBCOL_RUNTIME_OBJECTS", cfg->runtime_objects, sizeof cfg->runtime_objects);
  const char *interval = get("GDBCOL_CLOCK_US", source);
  cfg->clock_interval_us = interval ? atol(interval) : ER_TIMER_ON_US;
  if (cfg->clock_interval_us != 0 &&
      (cfg->clock_interval_us < ER_TIMER_MIN_US || cfg->clock_interval_us > ER_TIMER_MAX_US))
    cfg->clock_interval_us = ER_TIMER_ON_US;
  const char *stack = get("GDBCOL_STACK_BYTES", source);
  long bytes = stack ? atol(stack) : DEFAULT_STACK_BYTES;
  if (bytes < ER_STACK_COPY_MIN || bytes > MAX_STACK_BYTES)
    bytes = DEFAULT_STACK_BYTES;
  cfg->stack_copy_bytes = (size_t)bytes & ~(size_t)7;
  const char *frames = get("GDBCOL_MAX_FRAMES", source);
  cfg->max_frames = frames ? atol(frames) : ER_DEFAULT_STACK_DEPTH;
  if (cfg->max_frames < ER_MIN_STACK_DEPTH || cfg->max_frames > ER_MAX_STACK_DEPTH)
    cfg->max_frames = ER_DEFAULT_STACK_DEPTH;
  const char *offcpu = get("GDBCOL_OFFCPU", source);
  cfg->offcpu = offcpu != NULL && strcmp(offcpu, "on") == 0 && cfg->clock_interval_us > 0;
  const char *source_name = get("GDBCOL_CLOCK_SOURCE", source);
  cfg->force_timer_source = source_name != NULL && strcmp(source_name, "timer") == 0;
  cfg->sampled_outside = source_name != NULL && strcmp(source_name, "process") == 0;
  const char *period = get("GDBCOL_SAMPLE_PERIOD_MS", source);
  cfg->sample_period_ms = period ? atol(period) : ER_DEFAULT_SAMPLE_PERIOD_MS;
  if (cfg->sample_period_ms < 0)
    cfg->sample_period_ms = 0;
  const char *check = get("GDBCOL_UNWIND_CHECK", source);
  cfg->check_unwinder = check != NULL && strcmp(check, "1") == 0;
  const char *steal_check = get("GDBCOL_STEAL_CHECK", source);
  cfg->check_steal_budget = steal_check != NULL && strcmp(steal_check, "1") == 0;
  if (cfg->store_dir[0] == '\0' && getcwd(cfg->store_dir, sizeof cfg->store_dir) == NULL)
    snprintf(cfg->store_dir, sizeof cfg->store_dir, ".");
  const char *limit = get("GDBCOL_LIMIT_MB", source);
  cfg->limit_mb = limit ? atol(limit) : DEFAULT_LIMIT_MB;
  if (cfg->limit_mb < 0)
    cfg->limit_mb = DEFAULT_LIMIT_MB;
  int archive = er_archive_parse_mode(get("GDBCOL_ARCHIVE", source));
  cfg->archive_mode = archive < 0 ? ER_ARCHIVE_ON : archive;
  load_group(cfg, get("GDBCOL_GROUP", source));
  copy_setting(get, source, "GDBCOL_DESCENDANTS", cfg->descendants, sizeof cfg->descendants);
  cfg->traced_kinds = 0;
  for (int k = 0; k < ER_N_KINDS; k++) {
    const char *v = er_kinds[k].traced ? get(er_kinds[k].setting, source) : NULL;
    if (v != NULL && v[0] != '\0' && strcmp(v, "off") != 0)
      cfg->traced_kinds |= 1u << k;
  }
  /* Synchronization waits: calibrate, or a threshold in microseconds (0: every wait). */
  const char *sync = get(er_kinds[ER_KIND_SYNC].setting, source);
  cfg->sync_threshold_us = -1;
  if (col_kind_on(cfg, ER_KIND_SYNC) && strcmp(sync, "calibrate") != 0) {
    char *end;
    long us = strtol(sync, &end, 10);
    cfg->sync_threshold_us = (*end == '\0' && us >= 0) ? us : -1;
  }
  load_counters(cfg, get("GDBCOL_HWC", source), get("GDBCOL_HWC_NATIVE", source));
}

void col_config_from_environment(struct col_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  load_settings(cfg, from_environment, NULL);
}

int col_config_load(struct col_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  if (getenv("GDBCOL_CLOCK_US") == NULL || getenv("GDBCOL_STATUS_FILE") == NULL)
    return 0;
  if (!running_the_target())
    return 0;
  load_settings(cfg, from_environment, NULL);
  return 1;
}

/* TEXT holds "NAME=value" lines; a value runs to the end of its line. */
static const char *from_text(const char *name, void *source)
{
  static char value[PATH_MAX];
  size_t name_len = strlen(name);
  for (const char *line = source; line != NULL && *line != '\0';) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len > name_len && strncmp(line, name, name_len) == 0 && line[name_len] == '=') {
      size_t value_len = len - name_len - 1;
      if (value_len >= sizeof value)
        return NULL;
      memcpy(value, line + name_len + 1, value_len);
      value[value_len] = '\0';
      return decoded(value);
    }
    line = end ? end + 1 : NULL;
  }
  return NULL;
}

void col_config_parse(struct col_config *cfg, const char *text)
{
  memset(cfg, 0, sizeof *cfg);
  load_settings(cfg, from_text, (void *)text);
}

int col_kind_on(const struct col_config *cfg, enum er_kind kind)
{
  if (er_kinds[kind].traced)
    return (int)(cfg->traced_kinds >> kind & 1u);
  switch (kind) {
  case ER_KIND_CLOCK: return cfg->clock_interval_us > 0;
  case ER_KIND_HWC: return cfg->n_hwc > 0;
  default: return 0;
  }
}

void col_kind_attributes(const struct col_config *cfg, enum er_kind kind, char *out, size_t len)
{
  switch (kind) {
  case ER_KIND_CLOCK: /* numstates 1: Linux's one CPU state (gprofng shows nothing without it); 10 with
                        off-CPU states (gprofng's micro-state metrics: user, system, lock, sleep, wait CPU) */
    snprintf(out, len, "ptimer=\"%ld\" numstates=\"%d\"", cfg->clock_interval_us, cfg->offcpu ? ER_NUMSTATES : 1);
    break;
  case ER_KIND_SYNC: /* -1 when calibrated, as gprofng writes it (the value goes in a comment) */
    snprintf(out, len, "threshold=\"%ld\" scope=\"1\"", cfg->sync_threshold_us);
    break;
  case ER_KIND_HWC: { /* one empty <profile> per counter; cpuver -1: no CPU table (gprofng reads the name) */
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < cfg->n_hwc && at < len; i++) {
      char name[sizeof cfg->hwc[i].name];
      er_hwc_metric_name(cfg->hwc[i].name, name, sizeof name);
      int n = snprintf(out + at, len - at,
                       "<profile name=\"" ER_HWC_PROFILE_NAME "\" cpuver=\"-1\" hwcname=\"%s\" int_name=\"%s\" "
                       "interval=\"%llu\" tag=\"%d\" memop=\"0\"/>\n",
                       name, name, (unsigned long long)cfg->hwc[i].interval, i);
      at += n > 0 ? (size_t)n : 0;
    }
    break;
  }
  default:
    snprintf(out, len, "%s", "");
  }
}

uint32_t col_traced_kinds(const struct col_config *cfg)
{
  return cfg->traced_kinds;
}

int col_tracing_on(const struct col_config *cfg)
{
  return col_traced_kinds(cfg) != 0;
}

void col_tracing_off(struct col_config *cfg)
{
  cfg->traced_kinds = 0;
}

void col_tracing_text(const struct col_config *cfg, char *out, size_t len)
{
  /* "Synchronization-wait, I/O and heap tracing": each kind's title less
   * its " tracing", lower case after the first where it reads so. */
  size_t at = 0, n = 0, total = 0;
  for (int k = 0; k < ER_N_KINDS; k++)
    total += col_kind_on(cfg, (enum er_kind)k) && er_kinds[k].traced;
  out[0] = '\0';
  for (int k = 0; k < ER_N_KINDS && at < len; k++) {
    if (!er_kinds[k].traced || !col_kind_on(cfg, (enum er_kind)k))
      continue;
    const char *title = er_kinds[k].title;
    size_t name_len = strlen(title) - (strlen(title) > 8 && strcmp(title + strlen(title) - 8, " tracing") == 0 ? 8 : 0);
    const char *sep = n == 0 ? "" : n + 1 == total ? " and " : ", ";
    int w = snprintf(out + at, len - at, "%s%.*s", sep, (int)name_len, title);
    if (w < 0)
      break;
    if (n > 0 && at + strlen(sep) < len && islower((unsigned char)title[1]))
      out[at + strlen(sep)] = (char)tolower((unsigned char)title[0]);
    at += (size_t)w;
    n++;
  }
  snprintf(out + (at < len ? at : len - 1), len - (at < len ? at : len - 1), "%s", n == 0 ? "no tracing" : " tracing");
}

/* The settings the launcher puts in the environment besides each data
 * kind's own (er_kinds[].setting). */
static const char *const our_variables[] = {
    "GDBCOL_EXPERIMENT_DIR", "GDBCOL_EXPERIMENT_NAME", "GDBCOL_STATUS_FILE", "GDBCOL_STACK_BYTES",
    "GDBCOL_CLOCK_SOURCE",   "GDBCOL_TARGET",          "GDBCOL_PRELOAD",     "GDBCOL_UNWIND_CHECK",
    "GDBCOL_SAMPLE_PERIOD_MS", "GDBCOL_LIMIT_MB",      "GDBCOL_ARCHIVE",     "GDBCOL_GROUP",
    "GDBCOL_SAMPLER",        "GDBCOL_DESCENDANTS",     "GDBCOL_HWC_NATIVE",  "GDBCOL_RUNTIME_OBJECTS",
    "GDBCOL_MAX_FRAMES",     "GDBCOL_OFFCPU",          "GDBCOL_GDB_PID",     "GDBCOL_STEAL_CHECK",
};

void col_config_scrub_environment(void)
{
  const char *saved = decoded(getenv("GDBCOL_SAVED_LD_PRELOAD"));
  if (getenv("GDBCOL_LD_PRELOAD_UNSET") != NULL)
    unsetenv("LD_PRELOAD");
  else if (saved != NULL)
    setenv("LD_PRELOAD", saved, 1);
  unsetenv("GDBCOL_SAVED_LD_PRELOAD");
  unsetenv("GDBCOL_LD_PRELOAD_UNSET");
  for (size_t i = 0; i < sizeof our_variables / sizeof our_variables[0]; i++)
    unsetenv(our_variables[i]);
  for (int k = 0; k < ER_N_KINDS; k++)
    unsetenv(er_kinds[k].setting);
}
