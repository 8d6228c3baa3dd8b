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
  const struct er_hwc_event *event; /* its name as given (an alias stays an alias) */
  uint32_t perf_type;
  uint64_t perf_config;
  uint64_t interval; /* on: the default; hi: a tenth of it; lo: ten times; or the number given */
};

/* Nonzero when the kernel exposes a hardware PMU. */
int er_hwc_have_pmu(void);
/* The event NAME names on this machine, or NULL when it offers none. */
const struct er_hwc_event *er_hwc_find_event(const char *name);
/* The I-th event this machine offers (aliases included), NULL past the end. */
const struct er_hwc_event *er_hwc_event_at(size_t i);
/* C's event and interval on this machine: 0, or -1 when it offers no such event. */
int er_hwc_resolve(const struct er_hwc_counter *c, struct er_hwc_resolved *out);

#endif
