/* Archiving: gprofng's archive names, and a copied load object that still
 * names functions after the original file is deleted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_archive.h"
#include "er/er_fileutil.h"
#include "er/er_reader.h"
#include "test_util.h"

static void check_name(const char *path, const char *want)
{
  char got[512];
  CHECK(er_archive_file_name(path, got, sizeof got) == 0);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "archive name of %s: got %s, want %s\n", path, got, want);
  CHECK(strcmp(got, want) == 0);
}

/* Names as found in experiments archived by gprofng 2.40 (format §9). */
static void test_names(void)
{
  check_name("/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6_dnWuQRcLhw9");
  check_name("/usr/lib/x86_64-linux-gnu/gprofng/libgp-collector.so", "libgp-collector.so_1doggXvug9f");
  check_name("/nonexistent/dir/cpu", "cpu_2bI0rF47g7e");
  char longname[400] = "/tmp/";
  memset(longname + 5, 'x', 300);
  char out[512];
  CHECK(er_archive_file_name(longname, out, sizeof out) == -1);
  CHECK(er_archive_parse_mode("copy") == ER_ARCHIVE_COPY && er_archive_parse_mode("on") == ER_ARCHIVE_ON &&
        er_archive_parse_mode("off") == ER_ARCHIVE_OFF && er_archive_parse_mode("yes") == -1);
}

static int copy_file(const char *from, const char *to)
{
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
  char buf[65536];
  ssize_t n;
  while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
    if (er_write_all(out, buf, (size_t)n) != 0)
      return -1;
  close(in);
  close(out);
  return in >= 0 && out >= 0 ? 0 : -1;
}

/* The file offset of FN's code in this executable, from /proc/self/maps. */
static uint64_t file_offset_of(void *fn)
{
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[512];
  uint64_t result = 0;
  while (fgets(line, sizeof line, maps)) {
    unsigned long long start, end, offset;
    if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &offset) == 3 && (uintptr_t)fn >= start &&
        (uintptr_t)fn < end)
      result = (uintptr_t)fn - start + offset;
  }
  fclose(maps);
  return result;
}

int marker_function(int x);
__attribute__((noinline)) int marker_function(int x)
{
  return x * 3 + 1;
}

static void test_copy_survives_deletion(void)
{
  char dir[] = "/tmp/gdbcol-archive-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char object[600], expt[600];
  snprintf(object, sizeof object, "%s/victim", dir);
  snprintf(expt, sizeof expt, "%s/t.1.er", dir);
  CHECK(copy_file("/proc/self/exe", object) == 0);
  CHECK(mkdir(expt, 0777) == 0);
  int expfd = open(expt, O_RDONLY | O_DIRECTORY);
  int map = er_create_exclusive(expfd, "map.xml", O_WRONLY);
  dprintf(map,
                 "<event kind=\"map\" object=\"segment\" tstamp=\"0.000000001\" vaddr=\"0x0\" size=\"16777216\" "
                 "pagesz=\"4096\" foffset=\"0x0\" modes=\"0x005\" chksum=\"0xFFFFFFFF\" name=\"%s\"/>\n",
                 object);
  dprintf(map,
                 "<event kind=\"map\" object=\"segment\" tstamp=\"0.000000001\" vaddr=\"0x7f0000000000\" "
                 "size=\"4096\" pagesz=\"4096\" foffset=\"0x0\" modes=\"0x005\" chksum=\"0xFFFFFFFF\" "
                 "name=\"/nonexistent/lib.so\"/>\n");
  close(map);

  struct er_archive_result r;
  char err[512];
  CHECK(er_archive_experiment(expt, ER_ARCHIVE_COPY, &r, err, sizeof err) == 0);
  CHECK(r.objects == 2 && r.copied == 1 && r.missing == 1 && r.failed == 0);
  /* A second run keeps the first copies and never replaces them. */
  CHECK(er_archive_experiment(expt, ER_ARCHIVE_COPY, &r, err, sizeof err) == 0);
  CHECK(r.copied == 0 && r.present == 1);

  char name[512], copy[1200];
  CHECK(er_archive_file_name(object, name, sizeof name) == 0);
  snprintf(copy, sizeof copy, "%s/archives/%s", expt, name);
  struct stat original, archived;
  CHECK(stat(object, &original) == 0 && stat(copy, &archived) == 0);
  CHECK(original.st_size == archived.st_size && original.st_mtime == archived.st_mtime);

  /* The log names the object with its build-id. */
  int logfd = openat(expfd, "archive.log", O_RDONLY);
  char log[8192] = "";
  CHECK(logfd >= 0 && read(logfd, log, sizeof log - 1) > 0);
  close(logfd);
  CHECK(strstr(log, "copied") != NULL && strstr(log, "build-id=") != NULL && strstr(log, object) != NULL);
  CHECK(strstr(log, "missing  /nonexistent/lib.so") != NULL);

  CHECK(unlink(object) == 0);
  struct er_experiment exp;
  CHECK(er_experiment_open_map(expt, &exp, err, sizeof err) == 0);
  uint64_t pc = file_offset_of((void *)marker_function);
  char fn[256];
  er_symbolize(&exp, er_experiment_segment(&exp, pc), pc, fn, sizeof fn);
  if (strcmp(fn, "marker_function") != 0)
    fprintf(stderr, "symbolized from the archive: %s\n", fn);
  CHECK(strcmp(fn, "marker_function") == 0);
  er_experiment_close(&exp);

  /* Mode on records without copying; off does nothing. */
  CHECK(er_archive_experiment(expt, ER_ARCHIVE_ON, &r, err, sizeof err) == 0);
  CHECK(r.objects == 2 && r.copied == 0 && r.missing == 2);
  CHECK(er_archive_experiment(expt, ER_ARCHIVE_OFF, &r, err, sizeof err) == 0 && r.objects == 0);
  close(expfd);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

int main(void)
{
  test_names();
  test_copy_survives_deletion();
  return TEST_EXIT();
}
