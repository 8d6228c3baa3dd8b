/* The counters a machine offers for `collector hwprofile`: the kernel's
 * software events always (perf_event_open can count them in any VM), the
 * generic hardware events only where the kernel exposes a hardware PMU.
 * The names are perf's, with dbx's short aliases (insts, cycles). */
#ifndef ER_HWC_EVENTS_H
#define ER_HWC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_hwc_spec.h"

struct er_hwc_event {
  const char *name;
  const char *alias_of; /* NULL, or the event this name stands for */
  int hardware;         /* needs a hardware PMU */
  const char *description;
  uint32_t perf_type;        /* perf_event_attr.type and .config */
  uint64_t perf_config;
  uint64_t default_interval; /* events per overflow at the rate "on" */
};

/* A counter of a `collector hwprofile counter` list, ready to open. */
struct er_hwc_resolved {
  char name[64]; /* as given (an alias stays an alias) */
  uint32_t perf_type;
  uint64_t perf_config, perf_config1, perf_config2;
  uint64_t interval; /* on: the default; hi: a tenth of it; lo: ten times; or the number given */
};

/* A counter named by PAPI or libpfm4 (er_hwc_native.c, on GDB's side),
 * as GDB passes it on: its perf_event encoding and default interval. */
struct er_hwc_native {
  uint32_t perf_type;
  uint64_t perf_config, perf_config1, perf_config2;
  uint64_t default_interval;
};

/* Nonzero when the kernel exposes a hardware PMU. */
int er_hwc_have_pmu(void);
/* The event NAME names on this machine, or NULL when it offers none. */
const struct er_hwc_event *er_hwc_find_event(const char *name);
/* The event NAME names on any machine (a hardware one where no PMU is
 * there too: what to say of it), or NULL. */
const struct er_hwc_event *er_hwc_find_any_event(const char *name);
/* The I-th event this machine offers (aliases included), NULL past the end. */
const struct er_hwc_event *er_hwc_event_at(size_t i);
/* C's event and interval on this machine: one of the table's, else one of
 * NATIVE's ("NAME=TYPE:CONFIG:CONFIG1:CONFIG2:INTERVAL;...", hex numbers,
 * what GDB found through PAPI or libpfm4; may be NULL).  0, or -1 when
 * neither has it. */
int er_hwc_resolve(const struct er_hwc_counter *c, const char *native, struct er_hwc_resolved *out);
/* NAME as a gprofng metric name (its -metrics list is split at ':'): a
 * libpfm4 name's "::" and ':' become '.', as gprofng's own raw counter
 * names read (perf::CYCLES:u becomes perf.CYCLES.u). */
void er_hwc_metric_name(const char *name, char *out, size_t len);
/* One entry of that NATIVE list into OUT (LEN bytes): 0, or -1 if too long. */
int er_hwc_format_native(const char *name, const struct er_hwc_native *n, char *out, size_t len);

#endif
