/* The counters a machine offers for `collector hwprofile`: the kernel's
 * software events always (perf_event_open can count them in any VM), the
 * generic hardware events only where the kernel exposes a hardware PMU.
 * The names are perf's, with dbx's short aliases (insts, cycles). */
#ifndef ER_HWC_EVENTS_H
#define ER_HWC_EVENTS_H

#include <stddef.h>

struct er_hwc_event {
  const char *name;
  const char *alias_of; /* NULL, or the event this name stands for */
  int hardware;         /* needs a hardware PMU */
  const char *description;
};

/* Nonzero when the kernel exposes a hardware PMU. */
int er_hwc_have_pmu(void);
/* The event NAME names on this machine, or NULL when it offers none. */
const struct er_hwc_event *er_hwc_find_event(const char *name);
/* The I-th event this machine offers (aliases included), NULL past the end. */
const struct er_hwc_event *er_hwc_event_at(size_t i);

#endif
