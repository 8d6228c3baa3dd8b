/* Reading /proc/PID/maps: one parser for the plugin's looks at a process
 * (process_inspect.c, thread_walk.c). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "proc_maps.h"

int gdbcol_for_each_mapping(int pid, gdbcol_mapping_fn fn, void *arg)
{
  char name[64], line[PATH_MAX + 128];
  snprintf(name, sizeof name, "/proc/%d/maps", pid);
  FILE *f = fopen(name, "re");
  if (f == NULL)
    return -1;
  int stop = 0;
  while (!stop && fgets(line, sizeof line, f) != NULL) {
    unsigned long long start, end, offset;
    unsigned long inode;
    char perms[8];
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %*s %lu %n", &start, &end, perms, &offset, &inode, &path_at) < 5)
      continue;
    char *path = path_at ? line + path_at : line + strlen(line);
    path[strcspn(path, "\n")] = '\0';
    struct gdbcol_mapping m = {start, end, offset, inode, perms[2] == 'x', path};
    stop = fn(&m, arg);
  }
  fclose(f);
  return 0;
}
