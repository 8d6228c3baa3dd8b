/* Experiment naming and creation; see er/er_naming.h. */
#define _GNU_SOURCE
#include "er/er_naming.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *er_check_experiment_name(const char *name)
{
  if (name == NULL || *name == '\0')
    return "the experiment name is empty";
  if (strchr(name, '/') != NULL)
    return "the experiment name must not contain '/'; use 'collector store directory DIR' for the directory";
  if (!ends_with(name, ".er") || strlen(name) <= 3)
    return "the experiment name must end in \".er\" (for example test.1.er)";
  if (name[0] == '.' || name[0] == '_')
    return "the experiment name must not start with '.' or '_'";
  return NULL;
}

/* Splits "STEM.N.er" into STEM (copied to STEM_OUT) and N.  Returns N, or -1
 * when NAME has no number before ".er". */
static long split_numbered(const char *name, char *stem_out, size_t stem_len)
{
  size_t len = strlen(name);
  if (len < 6 || !ends_with(name, ".er"))
    return -1;
  size_t digits_end = len - 3, digits_start = digits_end;
  while (digits_start > 0 && name[digits_start - 1] >= '0' && name[digits_start - 1] <= '9')
    digits_start--;
  if (digits_start == digits_end || digits_start < 2 || name[digits_start - 1] != '.')
    return -1;
  if (digits_end - digits_start > 9)
    return -1;
  size_t stem_chars = digits_start - 1;
  if (stem_chars + 1 > stem_len)
    return -1;
  memcpy(stem_out, name, stem_chars);
  stem_out[stem_chars] = '\0';
  return strtol(name + digits_start, NULL, 10);
}

static long highest_number(DIR *dir, const char *stem)
{
  long highest = 0;
  struct dirent *entry;
  char entry_stem[NAME_MAX + 1];
  while ((entry = readdir(dir)) != NULL) {
    long n = split_numbered(entry->d_name, entry_stem, sizeof entry_stem);
    if (n > highest && strcmp(entry_stem, stem) == 0)
      highest = n;
  }
  return highest;
}

static int exists_in(const char *dir, const char *name)
{
  char path[PATH_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return lstat(path, &st) == 0;
}

static int copy_name(char *out, size_t out_len, const char *name)
{
  return snprintf(out, out_len, "%s", name) < (int)out_len ? 0 : -ENAMETOOLONG;
}

int er_next_experiment_name(const char *dir, const char *name, char *out, size_t out_len)
{
  char stem[NAME_MAX + 1] = "test";
  if (name != NULL) {
    if (er_check_experiment_name(name) != NULL)
      return -EINVAL;
    int numbered = split_numbered(name, stem, sizeof stem) >= 0;
    if (!exists_in(dir, name))
      return copy_name(out, out_len, name);
    if (!numbered)
      return -EEXIST;
  }
  DIR *d = opendir(dir);
  if (d == NULL)
    return -errno;
  long next = highest_number(d, stem) + 1;
  closedir(d);
  return snprintf(out, out_len, "%s.%ld.er", stem, next) < (int)out_len ? 0 : -ENAMETOOLONG;
}

int er_create_experiment_dir(const char *dir, const char *name, char *path_out, size_t path_len)
{
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return -errno;
  for (int attempt = 0; attempt < 100; attempt++) {
    char chosen[NAME_MAX + 1];
    int rc = er_next_experiment_name(dir, name, chosen, sizeof chosen);
    if (rc < 0) {
      close(dirfd);
      return rc;
    }
    /* mkdirat fails with EEXIST on anything already there, a dangling
     * symlink included, so nothing is ever followed or clobbered. */
    if (mkdirat(dirfd, chosen, 0777) != 0) {
      if (errno == EEXIST)
        continue; /* taken meanwhile: compute the next name again */
      rc = -errno;
      close(dirfd);
      return rc;
    }
    int expfd = openat(dirfd, chosen, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    rc = expfd < 0 ? -errno : expfd;
    close(dirfd);
    if (rc >= 0 && snprintf(path_out, path_len, "%s/%s", dir, chosen) >= (int)path_len) {
      close(rc);
      return -ENAMETOOLONG;
    }
    return rc;
  }
  close(dirfd);
  return -EEXIST;
}

int er_create_descendant_dir(const char *founder, const char *lineage, char *path_out, size_t path_len)
{
  char name[NAME_MAX + 1];
  if ((lineage[0] != '_' && strncmp(lineage, ER_RANK_PREFIX, strlen(ER_RANK_PREFIX)) != 0) ||
      strchr(lineage, '/') != NULL ||
      snprintf(name, sizeof name, "%s.er", lineage) >= (int)sizeof name)
    return -EINVAL;
  int dirfd = open(founder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirfd < 0)
    return -errno;
  /* mkdirat refuses anything already there: nothing is followed or reused. */
  int rc = mkdirat(dirfd, name, 0777) != 0 ? -errno : openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (rc == -1)
    rc = -errno;
  close(dirfd);
  if (rc >= 0 && snprintf(path_out, path_len, "%s/%s", founder, name) >= (int)path_len) {
    close(rc);
    return -ENAMETOOLONG;
  }
  return rc;
}
