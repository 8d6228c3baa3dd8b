/* For test programs a debugger attaches to: whether the collector's
 * runtime is mapped in this process yet, so a program waits for the attach
 * itself (an event) rather than for a fixed head start. */
#ifndef TEST_RUNTIME_MAPPED_H
#define TEST_RUNTIME_MAPPED_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Nonzero when /proc/self/maps names the runtime. */
static inline int runtime_mapped(void)
{
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  while (maps != NULL && !found && fgets(line, sizeof line, maps) != NULL)
    found = strstr(line, "libcollector.so") != NULL;
  if (maps != NULL)
    fclose(maps);
  return found;
}

/* Waits until the runtime is mapped, up to LIMIT_S seconds: 1 if it came. */
static inline int wait_for_runtime(double limit_s)
{
  for (int i = 0; i < (int)(limit_s * 100); i++) {
    if (runtime_mapped())
      return 1;
    usleep(10000);
  }
  return 0;
}

#endif
