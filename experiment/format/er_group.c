/* Experiment group files; see er/er_group.h. */
#define _GNU_SOURCE
#include "er/er_group.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_fileutil.h"

const char *er_check_group_name(const char *name)
{
  size_t len = strlen(name);
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (len < 4 || strcmp(name + len - 4, ".erg") != 0)
    return "a group name must end in .erg (for example: collector store group runs.erg)";
  if (strlen(base) <= 4)
    return "a group name needs something before .erg (for example: runs.erg)";
  return NULL;
}

int er_group_experiment_name(const char *group, char *out, size_t out_len)
{
  const char *base = strrchr(group, '/');
  base = base ? base + 1 : group;
  int stem = (int)strlen(base) - 4;
  return snprintf(out, out_len, "%.*s.1.er", stem, base) < (int)out_len ? 0 : -ENAMETOOLONG;
}

/* 1 when FD's first line is the group header, 0 when the file is empty,
 * -1 when it is something else. */
static int group_header_state(int fd)
{
  char first[sizeof ER_GROUP_HEADER];
  ssize_t n = pread(fd, first, sizeof first, 0);
  if (n == 0)
    return 0;
  if (n == (ssize_t)sizeof first && memcmp(first, ER_GROUP_HEADER, sizeof first - 1) == 0 &&
      (first[sizeof first - 1] == '\n' || first[sizeof first - 1] == '\r'))
    return 1;
  return -1;
}

int er_group_join(const char *group_path, const char *experiment_path, char *err, size_t err_len)
{
  return er_group_join_after(group_path, NULL, experiment_path, err, err_len);
}

int er_group_join_after(const char *group_path, const char *first_path, const char *experiment_path, char *err,
                        size_t err_len)
{
  int fd = open(group_path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    int rc = -errno;
    snprintf(err, err_len, "cannot open the experiment group %s: %s", group_path, strerror(-rc));
    return rc;
  }
  struct stat st;
  int rc = 0;
  while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
    ;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    rc = -EINVAL;
    snprintf(err, err_len, "the experiment group %s is not a regular file", group_path);
  } else {
    int header = group_header_state(fd);
    char line[8400];
    int n = snprintf(line, sizeof line, "%s%s%s%s\n", header == 0 ? ER_GROUP_HEADER "\n" : "",
                     header == 0 && first_path != NULL ? first_path : "",
                     header == 0 && first_path != NULL ? "\n" : "", experiment_path);
    if (header < 0) {
      rc = -EINVAL;
      snprintf(err, err_len, "%s exists and is not an experiment group (its first line is not \"%s\"); left unchanged",
               group_path, ER_GROUP_HEADER);
    } else if (n >= (int)sizeof line) {
      rc = -ENAMETOOLONG;
      snprintf(err, err_len, "the experiment path is too long for the group file");
    } else if ((rc = er_write_all(fd, line, (size_t)n)) < 0) {
      snprintf(err, err_len, "cannot write the experiment group %s: %s", group_path, strerror(-rc));
    }
  }
  flock(fd, LOCK_UN);
  close(fd);
  return rc;
}
