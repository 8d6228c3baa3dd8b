/* Experiment group files: created with the header, appended to, never
 * written through a symlink or over a file that is not a group. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_group.h"
#include "test_util.h"

static void read_all(const char *path, char *out, size_t len)
{
  int fd = open(path, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;
  out[n > 0 ? n : 0] = '\0';
  if (fd >= 0)
    close(fd);
}

int main(void)
{
  CHECK(er_check_group_name("runs.erg") == NULL);
  CHECK(er_check_group_name("/tmp/x/runs.erg") == NULL);
  CHECK(er_check_group_name("runs.er") != NULL);
  CHECK(er_check_group_name(".erg") != NULL);
  CHECK(er_check_group_name("dir/.erg") != NULL);
  char name[64];
  CHECK(er_group_experiment_name("/a/b/runs.erg", name, sizeof name) == 0 && strcmp(name, "runs.1.er") == 0);

  char dir[] = "/tmp/gdbcol-group-XXXXXX", group[200], text[1024], err[512];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(group, sizeof group, "%s/runs.erg", dir);
  mode_t old = umask(027);
  CHECK(er_group_join(group, "/x/runs.1.er", err, sizeof err) == 0);
  umask(old);
  CHECK(er_group_join(group, "/x/runs.2.er", err, sizeof err) == 0);
  read_all(group, text, sizeof text);
  CHECK(strcmp(text, "#analyzer experiment group\n/x/runs.1.er\n/x/runs.2.er\n") == 0);
  struct stat st;
  CHECK(stat(group, &st) == 0 && (st.st_mode & 0777) == 0640);

  char other[200];
  snprintf(other, sizeof other, "%s/notes.erg", dir);
  int fd = open(other, O_WRONLY | O_CREAT, 0644);
  CHECK(write(fd, "precious\n", 9) == 9);
  close(fd);
  CHECK(er_group_join(other, "/x/runs.3.er", err, sizeof err) < 0);
  CHECK(strstr(err, "not an experiment group") != NULL);
  read_all(other, text, sizeof text);
  CHECK(strcmp(text, "precious\n") == 0);

  char link[200];
  snprintf(link, sizeof link, "%s/link.erg", dir);
  CHECK(symlink(group, link) == 0);
  CHECK(er_group_join(link, "/x/runs.4.er", err, sizeof err) < 0);
  read_all(group, text, sizeof text);
  CHECK(strstr(text, "runs.4.er") == NULL);

  unlink(link);
  unlink(other);
  unlink(group);
  rmdir(dir);
  return TEST_EXIT();
}
