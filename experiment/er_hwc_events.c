/* Counters this machine offers; see er/er_hwc_events.h. */
#include "er/er_hwc_events.h"

#include <string.h>
#include <unistd.h>

static const struct er_hwc_event events[] = {
    {"page-faults", NULL, 0, "page faults (minor and major)"},
    {"faults", "page-faults", 0, "page faults"},
    {"minor-faults", NULL, 0, "page faults served without I/O"},
    {"major-faults", NULL, 0, "page faults that needed I/O"},
    {"context-switches", NULL, 0, "context switches"},
    {"cs", "context-switches", 0, "context switches"},
    {"cpu-migrations", NULL, 0, "moves of a thread to another CPU"},
    {"alignment-faults", NULL, 0, "alignment faults fixed up by the kernel"},
    {"emulation-faults", NULL, 0, "instructions emulated by the kernel"},
    {"task-clock", NULL, 0, "CPU time of the task, in nanoseconds"},
    {"cpu-clock", NULL, 0, "CPU clock, in nanoseconds"},
    {"cycles", NULL, 1, "CPU cycles"},
    {"cpu-cycles", "cycles", 1, "CPU cycles"},
    {"instructions", NULL, 1, "instructions executed"},
    {"insts", "instructions", 1, "instructions executed"},
    {"cache-references", NULL, 1, "last-level cache accesses"},
    {"cache-misses", NULL, 1, "last-level cache misses"},
    {"branch-instructions", NULL, 1, "branch instructions"},
    {"branches", "branch-instructions", 1, "branch instructions"},
    {"branch-misses", NULL, 1, "mispredicted branches"},
    {"bus-cycles", NULL, 1, "bus cycles"},
    {"ref-cycles", NULL, 1, "reference cycles (not scaled by frequency)"},
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
