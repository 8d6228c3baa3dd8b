/* `collector limit`: data files sharing one budget stop at the cap, every
 * file stays a valid packet sequence, and nothing is granted afterwards. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_datafile.h"
#include "er/er_reader.h"
#include "test_util.h"

static void count_packet(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  if (type == ER_PKT_CLOCK)
    ++*(size_t *)arg;
}

static size_t valid_clock_packets(int dirfd, const char *name, size_t *invalid)
{
  int fd = openat(dirfd, name, O_RDONLY);
  struct stat st;
  CHECK(fd >= 0 && fstat(fd, &st) == 0);
  unsigned char *data = malloc((size_t)st.st_size + 1);
  CHECK(read(fd, data, (size_t)st.st_size) == st.st_size);
  close(fd);
  size_t n = 0;
  *invalid = er_walk_packets(data, (size_t)st.st_size, count_packet, &n);
  free(data);
  return n;
}

static struct er_clock_packet packet(int64_t t)
{
  struct er_clock_packet p;
  memset(&p, 0, sizeof p);
  p.tsize = sizeof p;
  p.type = ER_PKT_CLOCK;
  p.tstamp = t;
  p.ntick = 1;
  return p;
}

int main(void)
{
  char dir[] = "/tmp/gdbcol-limit-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY);

  enum { LIMIT_BLOCKS = 5 };
  struct er_budget budget;
  er_budget_init(&budget, LIMIT_BLOCKS * ER_BLOCK_SIZE);
  struct er_datafile a, b;
  CHECK(er_datafile_create(&a, dirfd, "profile") == 0);
  CHECK(er_datafile_create(&b, dirfd, "other") == 0);
  er_datafile_set_budget(&a, &budget);
  er_datafile_set_budget(&b, &budget);
  struct er_cursor *ca = malloc(sizeof *ca), *cb = malloc(sizeof *cb);
  er_cursor_init(ca, &a);
  er_cursor_init(cb, &b);

  size_t accepted = 0, refused = 0;
  for (int i = 0; i < 20000; i++) { /* far more than five blocks' worth */
    struct er_clock_packet p = packet(i);
    int rc = er_cursor_append(i % 3 ? ca : cb, &p, sizeof p);
    if (rc == 0)
      accepted++;
    else {
      CHECK(rc == -EFBIG);
      refused++;
    }
  }
  CHECK(er_cursor_flush(ca) == 0);
  CHECK(er_cursor_flush(cb) == 0);
  CHECK(er_budget_exhausted(&budget));
  CHECK(er_budget_used(&budget) == LIMIT_BLOCKS * ER_BLOCK_SIZE);
  CHECK(refused > 0);
  /* Five blocks hold at most 5 * (65536 / 56) packets. */
  CHECK(accepted <= LIMIT_BLOCKS * (ER_BLOCK_SIZE / sizeof(struct er_clock_packet)));
  CHECK(accepted >= (LIMIT_BLOCKS - 2) * (ER_BLOCK_SIZE / sizeof(struct er_clock_packet)));

  struct stat sa, sb;
  CHECK(fstat(a.fd, &sa) == 0 && fstat(b.fd, &sb) == 0);
  CHECK((uint64_t)(sa.st_size + sb.st_size) <= LIMIT_BLOCKS * ER_BLOCK_SIZE);
  size_t invalid_a, invalid_b;
  size_t on_disk = valid_clock_packets(dirfd, "profile", &invalid_a) + valid_clock_packets(dirfd, "other", &invalid_b);
  CHECK(invalid_a == 0 && invalid_b == 0);
  CHECK(on_disk == accepted);

  /* Spent stays spent: a file with room in no block gets nothing more. */
  struct er_cursor *late = malloc(sizeof *late);
  er_cursor_init(late, &a);
  struct er_clock_packet p = packet(1);
  CHECK(er_cursor_append(late, &p, sizeof p) == -EFBIG);

  /* No budget: no limit. */
  struct er_datafile free_file;
  CHECK(er_datafile_create(&free_file, dirfd, "unlimited") == 0);
  er_cursor_init(late, &free_file);
  for (int i = 0; i < 3000; i++)
    CHECK(er_cursor_append(late, &p, sizeof p) == 0);

  er_datafile_close(&a);
  er_datafile_close(&b);
  er_datafile_close(&free_file);
  const char *names[] = {"profile", "other", "unlimited"};
  for (size_t i = 0; i < 3; i++)
    unlinkat(dirfd, names[i], 0);
  close(dirfd);
  rmdir(dir);
  return TEST_EXIT();
}
