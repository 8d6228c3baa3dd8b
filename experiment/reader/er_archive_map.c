/* Archiving an experiment by what its map.xml names (er_archive.c does the
 * archiving): for tools that read finished experiments.  Kept apart so that
 * what archives a list it already holds (the runtime, the sampler) does not
 * link the XML reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_archive.h"
#include "er/er_reader.h"

static int is_load_object(const struct er_segment *seg)
{
  return seg->modes == 5 && seg->name[0] == '/'; /* what gprofng makes load objects of (§4.2) */
}

static int seen_before(const struct er_experiment *map, size_t i)
{
  for (size_t j = 0; j < i; j++)
    if (is_load_object(&map->segments[j]) && strcmp(map->segments[j].name, map->segments[i].name) == 0)
      return 1;
  return 0;
}

int er_archive_experiment(const char *experiment_path, enum er_archive_mode mode, struct er_archive_result *result,
                          char *err, size_t err_len)
{
  memset(result, 0, sizeof *result);
  if (mode == ER_ARCHIVE_OFF)
    return 0;
  struct er_experiment map;
  if (er_experiment_open_map(experiment_path, &map, err, err_len) != 0)
    return -1;
  const char **paths = calloc(map.n_segments + 1, sizeof *paths);
  size_t n = 0;
  for (size_t i = 0; paths != NULL && i < map.n_segments; i++)
    if (is_load_object(&map.segments[i]) && !seen_before(&map, i))
      paths[n++] = map.segments[i].name;
  int rc = paths != NULL ? er_archive_objects(experiment_path, mode, paths, n, result, err, err_len) : -1;
  if (paths == NULL)
    snprintf(err, err_len, "cannot archive %s: out of memory", experiment_path);
  free(paths);
  er_experiment_close(&map);
  return rc;
}
