/* Counters named by PAPI or libpfm4, found on GDB's side (loaded by the
 * plugin through libgdbcol-shared.so; neither library goes into the
 * program or the sampler: GDB passes each counter's perf_event encoding
 * on, er_hwc_resolve reads it).
 *
 * PAPI gives the portable preset names (PAPI_TOT_CYC, PAPI_L1_DCM, ...)
 * and says which this machine can count; a preset maps to one native
 * event or to a formula of several.  libpfm4, which PAPI is built on,
 * turns a native event name (PMU::EVENT[:UMASK...]) into the perf_event
 * attribute that counts it.  Overflow sampling needs one event, so a
 * derived preset is refused with the natives it is made of. */
#include "er/er_hwc_native.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include <papi.h>
#include <perfmon/pfmlib_perf_event.h>

#include "er/er_hwc_events.h"

#define DEFAULT_HARDWARE_INTERVAL 1000003 /* prime, as the table's: no lockstep with loops */
#define DEFAULT_SOFTWARE_INTERVAL 100

static int pfm_ready(void)
{
  static int ready = -1;
  if (ready < 0)
    ready = pfm_initialize() == PFM_SUCCESS;
  return ready;
}

static int papi_ready(void)
{
  static int ready = -1;
  if (ready < 0)
    ready = PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT;
  return ready;
}

/* PAPI's CPU counter component: NULL when it has none by that name. */
static const PAPI_component_info_t *papi_cpu_component(void)
{
  if (!papi_ready())
    return NULL;
  for (int c = 0; c < PAPI_num_components(); c++) {
    const PAPI_component_info_t *info = PAPI_get_component_info(c);
    if (info != NULL && strcmp(info->name, "perf_event") == 0)
      return info;
  }
  return NULL;
}

void er_hwc_native_status(char *out, size_t len)
{
  int at = 0;
  if (!papi_ready()) {
    at = snprintf(out, len, "PAPI: did not initialize");
  } else {
    const PAPI_component_info_t *cpu = papi_cpu_component();
    int v = PAPI_VER_CURRENT;
    at = snprintf(out, len, "PAPI %d.%d: %s%s%s", PAPI_VERSION_MAJOR(v), PAPI_VERSION_MINOR(v),
                  cpu == NULL ? "no perf_event component" : cpu->disabled ? "perf_event component disabled ("
                                                                          : "perf_event component active",
                  cpu != NULL && cpu->disabled ? cpu->disabled_reason : "", cpu != NULL && cpu->disabled ? ")" : "");
  }
  if (at < 0 || (size_t)at >= len)
    return;
  at += snprintf(out + at, len - (size_t)at, "; libpfm4 PMUs:");
  int any_hardware = 0;
  pfm_pmu_t p;
  if (pfm_ready())
    pfm_for_all_pmus(p)
    {
      pfm_pmu_info_t info;
      memset(&info, 0, sizeof info);
      info.size = sizeof info;
      if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present || (size_t)at >= len)
        continue;
      at += snprintf(out + at, len - (size_t)at, " %s", info.name);
      any_hardware |= strncmp(info.name, "perf", 4) != 0;
    }
  if ((size_t)at < len && !any_hardware)
    snprintf(out + at, len - (size_t)at, " (the kernel's generic events only: no hardware PMU)");
}

static int find_libpfm4(const char *name, struct er_hwc_native *out, char *desc, size_t desc_len, char *why,
                        size_t why_len);

/* The presets of one native event that this machine counts: PAPI 7.1
 * calls its perf_event component active, and offers the CPU's presets,
 * in a virtual machine whose kernel has no hardware PMU (7.0 disabled
 * it); the kernel decides (find_libpfm4). */
int er_hwc_native_preset_at(int i, char *name, size_t name_len, char *desc, size_t desc_len)
{
  const PAPI_component_info_t *cpu = papi_cpu_component();
  if (cpu == NULL || cpu->disabled)
    return -1;
  int code = PAPI_PRESET_MASK;
  if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
    return -1;
  do {
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) != PAPI_OK || info.count != 1) /* one native: samplable */
      continue;
    struct er_hwc_native native;
    char unused[256];
    if (find_libpfm4(info.name[0], &native, unused, sizeof unused, unused, sizeof unused) != 0)
      continue;
    if (i-- == 0) {
      snprintf(name, name_len, "%s", info.symbol);
      snprintf(desc, desc_len, "%s", info.long_descr);
      return 0;
    }
  } while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
  return -1;
}

/* The software event of the table with TYPE and CONFIG: its interval. */
static uint64_t default_interval(uint32_t type, uint64_t config)
{
  if (type != PERF_TYPE_SOFTWARE)
    return DEFAULT_HARDWARE_INTERVAL;
  const struct er_hwc_event *e;
  for (size_t i = 0; (e = er_hwc_event_at(i)) != NULL; i++)
    if (e->perf_type == type && e->perf_config == config)
      return e->default_interval;
  return DEFAULT_SOFTWARE_INTERVAL;
}

void er_hwc_no_pmu_why(const char *name, char *why, size_t why_len)
{
  snprintf(why, why_len, "counter \"%s\" is a hardware event and this machine has no hardware PMU (no "
           "/sys/bus/event_source/devices/cpu; usual in virtual machines): only the kernel's software counters count "
           "here (collector hwprofile list shows them)", name);
}

/* A libpfm4 native event NAME: its encoding and description. */
static int find_libpfm4(const char *name, struct er_hwc_native *out, char *desc, size_t desc_len, char *why,
                        size_t why_len)
{
  struct perf_event_attr attr;
  pfm_perf_encode_arg_t arg;
  memset(&attr, 0, sizeof attr);
  memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.attr = &attr;
  int rc = pfm_ready() ? pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg)
                       : PFM_ERR_NOINIT;
  if (rc != PFM_SUCCESS) {
    snprintf(why, why_len, "unknown counter \"%s\" on this machine (libpfm4: %s); \"collector hwprofile list\" shows "
             "the counters it offers", name, pfm_strerror(rc));
    return -1;
  }
  if (attr.type != PERF_TYPE_SOFTWARE && !er_hwc_have_pmu()) {
    er_hwc_no_pmu_why(name, why, why_len);
    return ER_HWC_NO_PMU;
  }
  *out = (struct er_hwc_native){attr.type, attr.config, attr.config1, attr.config2,
                                default_interval(attr.type, attr.config)};
  pfm_event_info_t info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  snprintf(desc, desc_len, "%s", pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &info) == PFM_SUCCESS &&
                                     info.desc != NULL ? info.desc : name);
  return 0;
}

/* A PAPI preset NAME: the one native event it counts, through libpfm4. */
static int find_papi_preset(const char *name, struct er_hwc_native *out, char *desc, size_t desc_len, char *why,
                            size_t why_len)
{
  int code;
  PAPI_event_info_t info;
  if (!papi_ready() || PAPI_event_name_to_code(name, &code) != PAPI_OK ||
      PAPI_get_event_info(code, &info) != PAPI_OK) {
    snprintf(why, why_len, "unknown PAPI preset \"%s\"; \"collector hwprofile list\" shows the counters this "
             "machine offers", name);
    return -1;
  }
  const PAPI_component_info_t *cpu = papi_cpu_component();
  if (info.count == 0) {
    snprintf(why, why_len, "PAPI preset %s cannot count on this machine: %s%s%s", name,
             cpu != NULL && cpu->disabled ? "PAPI's perf_event component is disabled (" : "no native event of this CPU "
                                                                                          "counts it",
             cpu != NULL && cpu->disabled ? cpu->disabled_reason : "", cpu != NULL && cpu->disabled ? ")" : "");
    return -1;
  }
  if (info.count > 1) {
    snprintf(why, why_len, "PAPI preset %s is derived from %u counters (%s); overflow profiling needs one counter: "
             "name one of its native events, e.g. %s", name, info.count, info.derived, info.name[0]);
    return -1;
  }
  char native_why[512];
  if (find_libpfm4(info.name[0], out, desc, desc_len, native_why, sizeof native_why) != 0) {
    snprintf(why, why_len, "PAPI preset %s cannot count on this machine: its native event %s: %s", name,
             info.name[0], native_why);
    return -1;
  }
  snprintf(desc, desc_len, "%s", info.long_descr);
  return 0;
}

int er_hwc_native_find(const char *name, struct er_hwc_native *out, char *desc, size_t desc_len, char *why,
                       size_t why_len)
{
  if (strncmp(name, "PAPI_", 5) == 0)
    return find_papi_preset(name, out, desc, desc_len, why, why_len);
  return find_libpfm4(name, out, desc, desc_len, why, why_len);
}
