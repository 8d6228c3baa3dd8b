/* Counters named by PAPI presets or libpfm4 native events, where this
 * machine counts them (er_hwc_native.c; GDB's side only). */
#ifndef ER_HWC_NATIVE_H
#define ER_HWC_NATIVE_H

#include <stddef.h>

#include "er/er_hwc_events.h"

/* NAME (PAPI_xxx, or a libpfm4 name such as PMU::EVENT:UMASK or
 * perf::PERF_COUNT_SW_CONTEXT_SWITCHES): its encoding and description; 0,
 * -1 with WHY where no such name exists or it cannot count here, or
 * ER_HWC_NO_PMU with WHY where it is a hardware event and the machine has
 * no hardware PMU (a limit of the machine, not a mistake of the user's). */
#define ER_HWC_NO_PMU (-2)
/* WHY a hardware counter NAME cannot count on a machine with no PMU. */
void er_hwc_no_pmu_why(const char *name, char *why, size_t why_len);
int er_hwc_native_find(const char *name, struct er_hwc_native *out, char *desc, size_t desc_len, char *why,
                       size_t why_len);
/* One line on PAPI's and libpfm4's state here (component disabled and
 * why; the PMUs libpfm4 found). */
void er_hwc_native_status(char *out, size_t len);
/* The I-th PAPI preset this machine can sample (one native event): 0, or
 * -1 past the last. */
int er_hwc_native_preset_at(int i, char *name, size_t name_len, char *desc, size_t desc_len);

#endif
