/* Entry points of libgdbcol-shared.so, called from the GDB plugin through
 * ctypes.  Thin wrappers with plain C types only. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "er/er_abandoned.h"
#include "er/er_archive.h"
#include "er/er_data_kinds.h"
#include "er/er_defaults.h"
#include "er/er_follow.h"
#include "er/er_format.h"
#include "er/er_gdb_layout.h"
#include "er/er_group.h"
#include "er/er_hwc_access.h"
#include "er/er_hwc_events.h"
#include "er/er_hwc_native.h"
#include "er/er_hwc_spec.h"
#include "er/er_naming.h"
#include "er/er_timer_spec.h"

/* Returns 0 and the effective interval (plus flags: 1 raised, 2 rounded), or
 * -1 with a message in ERR. */
/* The experiment at PATH lost its writer (the sampler process died): its
 * end marked (er_abandoned.h); *ENDED_AT: seconds from the run's start. */
int gdbcol_mark_abandoned(const char *path, const char *why, double *ended_at)
{
  return er_mark_abandoned(path, why, ended_at);
}

/* `collector profile stack`: the default, least and most bytes. */
void gdbcol_stack_copy_limits(long *default_bytes, long *min_bytes, long *max_bytes)
{
  *default_bytes = ER_STACK_COPY_DEFAULT;
  *min_bytes = ER_STACK_COPY_MIN;
  *max_bytes = ER_STACK_COPY_MAX;
}

int gdbcol_parse_timer(const char *value, long *interval_us, int *flags, char *err, int err_len)
{
  struct er_timer_spec spec;
  if (er_parse_timer_spec(value, &spec, err, (size_t)err_len) != 0)
    return -1;
  *interval_us = spec.interval_us;
  *flags = (spec.raised_to_min ? 1 : 0) | (spec.rounded_down ? 2 : 0);
  return 0;
}

/* NULL or a message about NAME. */
const char *gdbcol_check_experiment_name(const char *name)
{
  return er_check_experiment_name(name);
}

/* 0 with the next experiment name in OUT, or a negative errno. */
int gdbcol_next_experiment_name(const char *dir, const char *name, char *out, int out_len)
{
  return er_next_experiment_name(dir, name && *name ? name : NULL, out, (size_t)out_len);
}

/* `collector hwprofile counter`: the number of counters and their canonical
 * list in OUT, or -1 with a message in ERR; ER_HWC_NO_PMU where a
 * hardware counter was named on a machine without a PMU (dbx's aliases,
 * insts or dcm, are hardware ones too: they said "libpfm4: event not
 * found"). */
int gdbcol_parse_hwc(const char *text, char *out, int out_len, char *err, int err_len)
{
  struct er_hwc_spec spec;
  if (er_parse_hwc_spec(text, &spec, err, (size_t)err_len) != 0)
    return -1;
  for (int i = 0; i < spec.n; i++) {
    struct er_hwc_native native;
    char desc[256];
    const char *name = spec.counters[i].name;
    const struct er_hwc_event *known = er_hwc_find_any_event(name);
    if (known != NULL && known->hardware && !er_hwc_have_pmu()) {
      er_hwc_no_pmu_why(name, err, (size_t)err_len);
      return ER_HWC_NO_PMU;
    }
    int rc = known != NULL ? 0 : er_hwc_native_find(name, &native, desc, sizeof desc, err, (size_t)err_len);
    if (rc != 0)
      return rc;
  }
  if (er_format_hwc_spec(&spec, out, (size_t)out_len) != 0) {
    snprintf(err, (size_t)err_len, "the counter list is too long");
    return -1;
  }
  return spec.n;
}

/* The perf encodings of the PAPI and libpfm4 names in the checked counter
 * list TEXT, as the runtime reads them (er_hwc_resolve's NATIVE): 0, or
 * -1 when one cannot be found or OUT is too short. */
int gdbcol_hwc_native_list(const char *text, char *out, int out_len)
{
  struct er_hwc_spec spec;
  char err[512];
  size_t at = 0;
  out[0] = '\0';
  if (er_parse_hwc_spec(text, &spec, err, sizeof err) != 0)
    return -1;
  for (int i = 0; i < spec.n; i++) {
    struct er_hwc_native native;
    char desc[256], item[256];
    if (er_hwc_find_event(spec.counters[i].name) != NULL)
      continue;
    if (er_hwc_native_find(spec.counters[i].name, &native, desc, sizeof desc, err, sizeof err) != 0 ||
        er_hwc_format_native(spec.counters[i].name, &native, item, sizeof item) != 0 ||
        at + strlen(item) + 2 > (size_t)out_len)
      return -1;
    at += (size_t)snprintf(out + at, (size_t)out_len - at, "%s%s", at ? ";" : "", item);
  }
  return 0;
}

/* Whether this user may count every counter of the checked list TEXT here
 * (er_hwc_check_access): 0, or -1 with why not in ERR. */
int gdbcol_hwc_check_access(const char *text, char *err, int err_len)
{
  struct er_hwc_spec spec;
  char native[4096];
  if (er_parse_hwc_spec(text, &spec, err, (size_t)err_len) != 0 ||
      gdbcol_hwc_native_list(text, native, (int)sizeof native) != 0)
    return -1;
  for (int i = 0; i < spec.n; i++) {
    struct er_hwc_resolved r;
    if (er_hwc_resolve(&spec.counters[i], native, &r) != 0) {
      snprintf(err, (size_t)err_len, "counter \"%s\" is not known on this machine", spec.counters[i].name);
      return -1;
    }
    if (er_hwc_check_access(&r, err, (size_t)err_len) != 0)
      return -1;
  }
  return 0;
}

/* How this user gets perf events up to paranoid NEEDED_LEVEL (er_perf_access_hint). */
void gdbcol_perf_access_hint(int needed_level, char *out, int out_len)
{
  er_perf_access_hint(needed_level, out, (size_t)out_len);
}

/* One line on PAPI's and libpfm4's state on this machine. */
void gdbcol_hwc_sources(char *out, int out_len)
{
  er_hwc_native_status(out, (size_t)out_len);
}

/* The I-th PAPI preset this machine can sample, as "NAME|DESCRIPTION": 0,
 * or -1 past the last. */
int gdbcol_hwc_preset(int i, char *out, int out_len)
{
  char name[64], desc[256];
  if (er_hwc_native_preset_at(i, name, sizeof name, desc, sizeof desc) != 0)
    return -1;
  snprintf(out, (size_t)out_len, "%s|%s", name, desc);
  return 0;
}

/* NULL or a message about the group name NAME. */
const char *gdbcol_check_group_name(const char *name)
{
  return er_check_group_name(name);
}

/* `collector descendants`: 0 when TEXT is on, off or a valid =REGEX; else
 * -1 with the reason in ERR. */
int gdbcol_check_descendants(const char *text, char *err, int err_len)
{
  struct er_follow_rule rule;
  if (er_follow_parse(text, &rule, err, (size_t)err_len) != 0)
    return -1;
  er_follow_free(&rule);
  return 0;
}

/* 0 with the archive mode (0 off, 1 on, 2 copy), or -1. */
int gdbcol_parse_archive_mode(const char *text)
{
  return er_archive_parse_mode(text);
}

/* The experiment name a group implies ("runs.erg" -> "runs.1.er"): 0, or a
 * negative errno. */
int gdbcol_group_experiment_name(const char *group, char *out, int out_len)
{
  return er_group_experiment_name(group, out, (size_t)out_len);
}

/* `collector hwprofile list`: the I-th counter this machine offers, as
 * "name|alias_of|hardware|default_interval|description"; 0, or -1 past
 * the end. */
int gdbcol_hwc_event(int i, char *out, int out_len)
{
  const struct er_hwc_event *e = er_hwc_event_at((size_t)i);
  if (e == NULL)
    return -1;
  snprintf(out, (size_t)out_len, "%s|%s|%d|%llu|%s", e->name, e->alias_of ? e->alias_of : "", e->hardware,
           (unsigned long long)e->default_interval, e->description);
  return 0;
}

/* Data kind I of the table the writer and the reader use (er_data_kinds.h):
 * NAMES gets its <profile> name, setting, subcommand, title, one event and
 * many events, each in LEN bytes, one after the other, and *TRACED whether
 * its wrappers record it; 0, or -1 past the last kind. */
int gdbcol_data_kind(int i, char *names, int len, int *traced)
{
  if (i < 0 || i >= ER_N_KINDS || len <= 0)
    return -1;
  const struct er_kind_desc *k = &er_kinds[i];
  const char *fields[] = {k->name, k->setting, k->command, k->title, k->event_one, k->event_many};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
    snprintf(names + f * (size_t)len, (size_t)len, "%s", fields[f] ? fields[f] : "");
  *traced = k->traced;
  return 0;
}

/* The memory GDB reads and writes directly (er/er_gdb_layout.h): the I-th
 * entry's name ("control.debugger_stops", "progress.size", ...) into NAME
 * and its offset (or the struct's size) into *OFFSET; -1 past the last. */
/* How MPI ranks' experiments are named (er_naming.h): I = 0 the rank
 * experiments' prefix, 1 the job's group file, 2 Slurm's task number and
 * 3 its step's task count, 4.. the environment variables a rank is read
 * from; into OUT; 0, or -1 past the last. */
int gdbcol_mpi_name(int i, char *out, int len)
{
  static const char *const names[] = {ER_RANK_PREFIX, ER_RANKS_GROUP, ER_TASK_RANK_VARIABLE, ER_TASK_COUNT_VARIABLE,
                                      ER_RANK_VARIABLES};
  if (i < 0 || (size_t)i >= sizeof names / sizeof names[0] || len <= 0)
    return -1;
  snprintf(out, (size_t)len, "%s", names[i]);
  return 0;
}

/* What every label of a GDB stop's sample point begins with, into OUT. */
int gdbcol_stop_label_prefix(char *out, int len)
{
  if (len <= 0)
    return -1;
  snprintf(out, (size_t)len, "%s", ER_STOP_LABEL_PREFIX);
  return 0;
}

/* The runtime's timer signal, which GDB passes to the program unseen. */
int gdbcol_timer_signal(void)
{
  return ER_RUNTIME_TIMER_SIGNAL;
}

int gdbcol_layout(int i, char *name, int len, long *offset)
{
#define AT(prefix, type, field) {prefix "." #field, offsetof(type, field)}
  static const struct {
    const char *name;
    size_t offset;
  } entries[] = {
      AT("control", struct er_control_head, magic),
      AT("control", struct er_control_head, write_index),
      AT("control", struct er_control_head, read_index),
      AT("control", struct er_control_head, debugger_stops),
      AT("control", struct er_control_head, status_asked),
      AT("control", struct er_control_head, stop_label),
      AT("progress", struct er_progress, profile_packets),
      AT("progress", struct er_progress, sample_points),
      AT("progress", struct er_progress, data_bytes),
      AT("progress", struct er_progress, limit_reached),
      AT("progress", struct er_progress, paused),
      AT("progress", struct er_progress, write_errno),
      AT("progress", struct er_progress, samples_not_written),
      {"progress.size", sizeof(struct er_progress)},
      {"stop_label.size", ER_STOP_LABEL_BYTES},
  };
#undef AT
  if (i < 0 || (size_t)i >= sizeof entries / sizeof entries[0] || len <= 0)
    return -1;
  snprintf(name, (size_t)len, "%s", entries[i].name);
  *offset = (long)entries[i].offset;
  return 0;
}

/* A setting's default, as the runtime applies it when the setting is
 * absent: "limit_mb", "sample_period_ms", "clock_us"; -1 for another name. */
long gdbcol_setting_default(const char *name)
{
  if (strcmp(name, "limit_mb") == 0)
    return ER_DEFAULT_LIMIT_MB;
  if (strcmp(name, "sample_period_ms") == 0)
    return ER_DEFAULT_SAMPLE_PERIOD_MS;
  if (strcmp(name, "clock_us") == 0)
    return ER_TIMER_ON_US;
  if (strcmp(name, "max_frames") == 0)
    return ER_MAX_STACK_DEPTH; /* the most a user may ask for */
  if (strcmp(name, "default_frames") == 0)
    return ER_DEFAULT_STACK_DEPTH;
  if (strcmp(name, "min_frames") == 0)
    return ER_MIN_STACK_DEPTH;
  return -1;
}
