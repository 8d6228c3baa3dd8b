/* test.N.er numbering and safe creation of experiment directories. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_naming.h"
#include "test_util.h"

static char dir[] = "/tmp/gdbcol-naming-XXXXXX";

static void touch_dir(const char *name)
{
  char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  mkdir(p, 0777);
}

static int next_is(const char *name, const char *expected)
{
  char out[256];
  return er_next_experiment_name(dir, name, out, sizeof out) == 0 && strcmp(out, expected) == 0;
}

int main(void)
{
  CHECK(mkdtemp(dir) != NULL);
  CHECK(next_is(NULL, "test.1.er"));
  touch_dir("test.1.er");
  touch_dir("test.2.er");
  touch_dir("test.7.er");
  touch_dir("other.9.er");
  CHECK(next_is(NULL, "test.8.er")); /* one more than the highest, not the first gap */
  CHECK(next_is("other.1.er", "other.1.er"));  /* a free name is used as given */
  CHECK(next_is("other.9.er", "other.10.er")); /* a taken numbered name moves on */
  CHECK(next_is("fresh.er", "fresh.er"));
  touch_dir("fresh.er");
  char out[256];
  CHECK(er_next_experiment_name(dir, "fresh.er", out, sizeof out) == -EEXIST);
  CHECK(er_check_experiment_name("x") != NULL);
  CHECK(er_check_experiment_name("a/b.er") != NULL);
  CHECK(er_check_experiment_name(".er") != NULL);
  CHECK(er_check_experiment_name("_f1.er") != NULL);
  CHECK(er_check_experiment_name("ok.er") == NULL);

  /* A symlink squatting on the next name is never followed: creation moves
   * on to the following number and the link target stays untouched. */
  char link[512], target[512];
  snprintf(target, sizeof target, "%s/elsewhere", dir);
  snprintf(link, sizeof link, "%s/test.8.er", dir);
  CHECK(symlink(target, link) == 0);
  char path[1024];
  int fd = er_create_experiment_dir(dir, NULL, path, sizeof path);
  CHECK(fd >= 0);
  CHECK(strstr(path, "/test.9.er") != NULL);
  struct stat st;
  CHECK(lstat(target, &st) != 0);
  if (fd >= 0)
    close(fd);

  /* An explicit name that exists is refused, not reused. */
  CHECK(er_create_experiment_dir(dir, "fresh.er", path, sizeof path) == -EEXIST);

  /* The directory gets the umask's permissions. */
  mode_t old = umask(077);
  fd = er_create_experiment_dir(dir, "private.er", path, sizeof path);
  umask(old);
  CHECK(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0700);
  if (fd >= 0)
    close(fd);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  return TEST_EXIT();
}
