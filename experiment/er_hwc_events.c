/* Counters this machine offers; see er/er_hwc_events.h. */
#include "er/er_hwc_events.h"

#include <linux/perf_event.h>
#include <string.h>
#include <unistd.h>

#define SW(config) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##config
#define HW(config) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##config

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
  const struct er_hwc_event *e;
  for (size_t i = 0; (e = er_hwc_event_at(i)) != NULL; i++)
    if (strcmp(e->name, name) == 0)
      return e;
  return NULL;
}

int er_hwc_resolve(const struct er_hwc_counter *c, struct er_hwc_resolved *out)
{
  const struct er_hwc_event *e = er_hwc_find_event(c->name);
  if (e == NULL)
    return -1;
  uint64_t interval = e->default_interval;
  if (c->rate == ER_HWC_RATE_HI)
    interval = interval >= 10 ? interval / 10 : 1;
  else if (c->rate == ER_HWC_RATE_LO)
    interval *= 10;
  else if (c->rate == ER_HWC_RATE_VALUE)
    interval = c->interval;
  *out = (struct er_hwc_resolved){e, e->perf_type, e->perf_config, interval};
  return 0;
}
