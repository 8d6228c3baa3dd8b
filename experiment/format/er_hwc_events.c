/* Counters this machine offers; see er/er_hwc_events.h. */
#include "er/er_hwc_events.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SW(config) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##config
#define HW(config) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##config
#define CACHE_READ_MISS(cache)                                                                                    \
  PERF_TYPE_HW_CACHE,                                                                                             \
      (PERF_COUNT_HW_CACHE_##cache | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16))

/* Default intervals: a few hundred overflows a second on a busy program,
 * as the clock's 10 ms gives about a hundred. */
static const struct er_hwc_event events[] = {
    {"page-faults", NULL, 0, "page faults (minor and major)", SW(PAGE_FAULTS), 100},
    {"faults", "page-faults", 0, "page faults", SW(PAGE_FAULTS), 100},
    {"minor-faults", NULL, 0, "page faults served without I/O", SW(PAGE_FAULTS_MIN), 100},
    {"major-faults", NULL, 0, "page faults that needed I/O", SW(PAGE_FAULTS_MAJ), 10},
    {"context-switches", NULL, 0, "context switches", SW(CONTEXT_SWITCHES), 100},
    {"cs", "context-switches", 0, "context switches", SW(CONTEXT_SWITCHES), 100},
    {"cpu-migrations", NULL, 0, "moves of a thread to another CPU", SW(CPU_MIGRATIONS), 10},
    {"alignment-faults", NULL, 0, "alignment faults fixed up by the kernel", SW(ALIGNMENT_FAULTS), 1},
    {"emulation-faults", NULL, 0, "instructions emulated by the kernel", SW(EMULATION_FAULTS), 1},
    {"task-clock", NULL, 0, "CPU time of the task, in nanoseconds", SW(TASK_CLOCK), 10000000},
    {"cpu-clock", NULL, 0, "CPU clock, in nanoseconds", SW(CPU_CLOCK), 10000000},
    {"cycles", NULL, 1, "CPU cycles", HW(CPU_CYCLES), 10000003},
    {"cpu-cycles", "cycles", 1, "CPU cycles", HW(CPU_CYCLES), 10000003},
    {"instructions", NULL, 1, "instructions executed", HW(INSTRUCTIONS), 10000003},
    {"insts", "instructions", 1, "instructions executed", HW(INSTRUCTIONS), 10000003},
    {"cache-references", NULL, 1, "last-level cache accesses", HW(CACHE_REFERENCES), 100003},
    {"cache-misses", NULL, 1, "last-level cache misses", HW(CACHE_MISSES), 10007},
    {"branch-instructions", NULL, 1, "branch instructions", HW(BRANCH_INSTRUCTIONS), 1000003},
    {"branches", "branch-instructions", 1, "branch instructions", HW(BRANCH_INSTRUCTIONS), 1000003},
    {"branch-misses", NULL, 1, "mispredicted branches", HW(BRANCH_MISSES), 10007},
    {"bus-cycles", NULL, 1, "bus cycles", HW(BUS_CYCLES), 1000003},
    {"ref-cycles", NULL, 1, "reference cycles (not scaled by frequency)", HW(REF_CPU_CYCLES), 10000003},
    {"L1-dcache-load-misses", NULL, 1, "L1 data cache load misses", CACHE_READ_MISS(L1D), 100003},
    {"dcm", "L1-dcache-load-misses", 1, "L1 data cache misses", CACHE_READ_MISS(L1D), 100003},
    {"L1-icache-load-misses", NULL, 1, "L1 instruction cache misses", CACHE_READ_MISS(L1I), 100003},
    {"icm", "L1-icache-load-misses", 1, "L1 instruction cache misses", CACHE_READ_MISS(L1I), 100003},
    {"LLC-load-misses", NULL, 1, "last-level cache load misses", CACHE_READ_MISS(LL), 10007},
    {"dTLB-load-misses", NULL, 1, "data TLB load misses", CACHE_READ_MISS(DTLB), 10007},
    {"dtlbm", "dTLB-load-misses", 1, "data TLB misses", CACHE_READ_MISS(DTLB), 10007},
    {"iTLB-load-misses", NULL, 1, "instruction TLB misses", CACHE_READ_MISS(ITLB), 10007},
    {"itlbm", "iTLB-load-misses", 1, "instruction TLB misses", CACHE_READ_MISS(ITLB), 10007},
};

int er_hwc_have_pmu(void)
{
  return access("/sys/bus/event_source/devices/cpu", F_OK) == 0;
}

const struct er_hwc_event *er_hwc_event_at(size_t i)
{
  int pmu = er_hwc_have_pmu();
  for (size_t k = 0; k < sizeof events / sizeof events[0]; k++)
    if (!events[k].hardware || pmu) {
      if (i == 0)
        return &events[k];
      i--;
    }
  return NULL;
}

const struct er_hwc_event *er_hwc_find_event(const char *name)
{
  const struct er_hwc_event *e = er_hwc_find_any_event(name);
  return e != NULL && (!e->hardware || er_hwc_have_pmu()) ? e : NULL;
}

const struct er_hwc_event *er_hwc_find_any_event(const char *name)
{
  for (size_t k = 0; k < sizeof events / sizeof events[0]; k++)
    if (strcmp(events[k].name, name) == 0)
      return &events[k];
  return NULL;
}

/* NAME's entry in a NATIVE list ("NAME=T:C:C1:C2:I;..."): 0, or -1. */
static int find_native(const char *native, const char *name, struct er_hwc_native *out)
{
  size_t name_len = strlen(name);
  for (const char *p = native; p != NULL && *p != '\0'; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
    if (strncmp(p, name, name_len) != 0 || p[name_len] != '=')
      continue;
    unsigned type;
    if (sscanf(p + name_len + 1, "%x:%" SCNx64 ":%" SCNx64 ":%" SCNx64 ":%" SCNx64, &type, &out->perf_config,
               &out->perf_config1, &out->perf_config2, &out->default_interval) != 5)
      return -1;
    out->perf_type = type;
    return 0;
  }
  return -1;
}

void er_hwc_metric_name(const char *name, char *out, size_t len)
{
  size_t at = 0;
  for (const char *p = name; *p != '\0' && at + 1 < len; p++) {
    if (*p == ':' && p[1] == ':')
      p++;
    out[at++] = *p == ':' ? '.' : *p;
  }
  if (len > 0)
    out[at] = '\0';
}

int er_hwc_format_native(const char *name, const struct er_hwc_native *n, char *out, size_t len)
{
  int w = snprintf(out, len, "%s=%x:%" PRIx64 ":%" PRIx64 ":%" PRIx64 ":%" PRIx64, name, n->perf_type, n->perf_config,
                   n->perf_config1, n->perf_config2, n->default_interval);
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

int er_hwc_resolve(const struct er_hwc_counter *c, const char *native, struct er_hwc_resolved *out)
{
  const struct er_hwc_event *e = er_hwc_find_event(c->name);
  struct er_hwc_native found;
  if (e != NULL)
    found = (struct er_hwc_native){e->perf_type, e->perf_config, 0, 0, e->default_interval};
  else if (find_native(native, c->name, &found) != 0)
    return -1;
  uint64_t interval = found.default_interval;
  if (c->rate == ER_HWC_RATE_HI)
    interval = interval >= 10 ? interval / 10 : 1;
  else if (c->rate == ER_HWC_RATE_LO)
    interval *= 10;
  else if (c->rate == ER_HWC_RATE_VALUE)
    interval = c->interval;
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", c->name);
  out->perf_type = found.perf_type;
  out->perf_config = found.perf_config;
  out->perf_config1 = found.perf_config1;
  out->perf_config2 = found.perf_config2;
  out->interval = interval;
  return 0;
}
