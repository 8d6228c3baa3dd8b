/* Write failures never leave a partial record and are counted: record
 * files (log.xml, overview) keep whole records only, data files end on
 * their last good flush with a valid trailer, and the packet counts say
 * exactly what reached the file.  The failure comes from RLIMIT_FSIZE
 * (a file-size cap the kernel enforces like a full disk), so the test
 * needs no mount; the writer must refuse before the kernel would send
 * SIGXFSZ, which is left at its default action here (it would kill the
 * test). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_datafile.h"
#include "er/er_format.h"
#include "er/er_reader.h"
#include "er/er_recordfile.h"
#include "test_util.h"

static char dir[] = "/tmp/gdbcol-werr-XXXXXX";

static void cap_file_size(rlim_t bytes)
{
  struct rlimit limit;
  getrlimit(RLIMIT_FSIZE, &limit);
  limit.rlim_cur = bytes;
  CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0);
}

static off_t size_of(int dirfd, const char *name)
{
  struct stat st;
  return fstatat(dirfd, name, &st, 0) == 0 ? st.st_size : -1;
}

static void record_file_keeps_whole_records(int dirfd)
{
  struct er_recordfile f;
  CHECK(er_recordfile_create(&f, dirfd, "log.xml", 100) == 0);
  cap_file_size(5000);
  char line[32];
  int appended = 0;
  for (int i = 0; i < 1000; i++) {
    snprintf(line, sizeof line, "<line n=\"%06d\"/>\n", i); /* 19 bytes: 5000 is no multiple */
    if (er_recordfile_append(&f, line, strlen(line), 0) != 0)
      break;
    appended++;
  }
  CHECK(f.error == EFBIG);
  CHECK(f.written == (uint64_t)appended && f.dropped >= 1);
  /* ordinary records stop 100 bytes short of the cap: room for the closing ones */
  CHECK(f.end <= 5000 - 100 && f.end + 19 + 100 > 5000);
  CHECK(er_recordfile_append(&f, "<exit/>\n", 8, 1) == 0); /* a final record uses the reserve */
  CHECK(er_recordfile_append(&f, "<more/>\n", 8, 0) != 0); /* ordinary ones stay stopped */
  uint64_t end = f.end;
  er_recordfile_close(&f);
  cap_file_size(RLIM_INFINITY);
  CHECK(size_of(dirfd, "log.xml") == (off_t)end);
  CHECK(end == (uint64_t)appended * 19 + 8);
}

static void count_clock_packets(const unsigned char *packet, uint16_t type, uint16_t len, void *arg)
{
  if (type == ER_PKT_CLOCK)
    ++*(size_t *)arg;
}

static void data_file_ends_on_last_good_flush(int dirfd)
{
  struct er_datafile file;
  CHECK(er_datafile_create(&file, dirfd, "profile") == 0);
  struct er_cursor *cursor = malloc(sizeof *cursor);
  er_cursor_init(cursor, &file);
  cap_file_size(100000); /* a block and a half */
  struct er_clock_packet p;
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_CLOCK;
  p.thrid = p.lwpid = 7;
  p.mstate = ER_MSTATE_LINUX_CPU;
  p.ntick = 1;
  int failed = 0;
  for (int i = 0; i < 10000 && !failed; i++) {
    p.tstamp = i;
    failed = er_cursor_append(cursor, &p, sizeof p) != 0;
    if (!failed && i % 97 == 96)
      failed = er_cursor_flush(cursor) != 0;
  }
  CHECK(failed);
  CHECK(er_budget_stop_errno(file.budget) == EFBIG);
  CHECK(er_cursor_append(cursor, &p, sizeof p) != 0); /* stopped for good */
  uint64_t written = cursor->written;
  er_datafile_close(&file);
  cap_file_size(RLIM_INFINITY);
  off_t size = size_of(dirfd, "profile");
  CHECK(size > 65536 && size <= 100000);
  /* what the reader finds is exactly what the writer counted */
  int fd = openat(dirfd, "profile", O_RDONLY);
  unsigned char *data = malloc((size_t)size);
  CHECK(read(fd, data, (size_t)size) == size);
  close(fd);
  size_t clock_packets = 0;
  CHECK(er_walk_packets(data, (size_t)size, count_clock_packets, &clock_packets) == 0);
  CHECK(clock_packets == written && written > 1000);
  free(data);
  free(cursor);
}

int main(void)
{
  CHECK(mkdtemp(dir) != NULL);
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
  record_file_keeps_whole_records(dirfd);
  data_file_ends_on_last_good_flush(dirfd);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (test_failures == 0)
    CHECK(system(cmd) == 0);
  return TEST_EXIT();
}
