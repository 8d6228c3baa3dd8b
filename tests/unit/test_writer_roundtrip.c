/* The writer's packets read back through the reader exactly, including
 * across block boundaries, after a crash-like stop, and with dedup. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_datafile.h"
#include "er/er_fileutil.h"
#include "er/er_overview.h"
#include "er/er_reader.h"
#include "er/er_stacks.h"
#include "test_util.h"

static char dir[] = "/tmp/gdbcol-writer-XXXXXX";

static void write_log(int dirfd)
{
  int fd = er_create_exclusive(dirfd, "log.xml", O_WRONLY | O_APPEND);
  CHECK(fd >= 0);
  dprintf(fd, "<experiment version=\"12.4\">\n</experiment>\n");
  dprintf(fd, "<event kind=\"run\" tstamp=\"1.000000000\" time=\"0\" tm_zone=\"0\"/>\n");
  dprintf(fd, "<profile name=\"profile\" ptimer=\"1000\" numstates=\"1\">\n</profile>\n");
  dprintf(fd, "<event kind=\"comment\" id=\"400\">a &amp; b</event>\n");
  dprintf(fd, "<event kind=\"exit\" tstamp=\"2.000000000\"/>\n");
  close(fd);
}

int main(void)
{
  CHECK(mkdtemp(dir) != NULL);
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
  write_log(dirfd);

  struct er_datafile prof, frames;
  CHECK(er_datafile_create(&prof, dirfd, "profile") == 0);
  CHECK(er_datafile_create(&frames, dirfd, "data.frameinfo") == 0);
  struct er_datafile again;
  CHECK(er_datafile_create(&again, dirfd, "profile") < 0); /* never clobbers */
  struct er_cursor *pc = malloc(sizeof *pc), *fc = malloc(sizeof *fc), *pc2 = malloc(sizeof *pc2);
  er_cursor_init(pc, &prof);
  er_cursor_init(pc2, &prof); /* a second producer interleaves blocks */
  er_cursor_init(fc, &frames);
  struct er_idset seen;
  er_idset_init(&seen);

  enum { N = 5000 }; /* several blocks per cursor */
  uint64_t stack_a[3] = {0x1111, 0x2222, 0x3333}, stack_b[2] = {0x4444, 0x3333};
  uint64_t fa = er_frameinfo_record(fc, &seen, stack_a, 3);
  uint64_t fb = er_frameinfo_record(fc, &seen, stack_b, 2);
  CHECK(fa != 0 && fb != 0 && fa != fb);
  CHECK(er_frameinfo_record(fc, &seen, stack_a, 3) == fa); /* dedup: same id, no new packet */
  for (int i = 0; i < N; i++) {
    struct er_clock_packet p = {0};
    p.tsize = sizeof p;
    p.type = ER_PKT_CLOCK;
    p.lwpid = p.thrid = (uint64_t)(i % 2 ? 200 : 100);
    p.tstamp = 1000000000 + i;
    p.frinfo = i % 3 ? fa : fb;
    p.mstate = ER_MSTATE_LINUX_CPU;
    p.ntick = 1 + i % 4;
    CHECK(er_cursor_append(i % 2 ? pc2 : pc, &p, sizeof p) == 0);
    if (i == 1000) {
      /* a flush in the middle of a block, then more packets in it */
      CHECK(er_cursor_flush(pc) == 0);
    }
  }
  CHECK(er_cursor_append(pc, "x", 3) < 0); /* sizes must be multiples of 8 */
  CHECK(er_cursor_flush(pc) == 0 && er_cursor_flush(pc2) == 0 && er_cursor_flush(fc) == 0);

  struct er_recordfile ov;
  CHECK(er_recordfile_create(&ov, dirfd, "overview", 0) == 0);
  struct er_overview_record rec;
  er_overview_fill(&rec, 1000, 2000);
  CHECK(er_overview_append(&ov, &rec, 0) == 0);
  CHECK(rec.lwpid == getpid() && rec.rtime.nsec == 1000);
  er_recordfile_close(&ov);

  struct er_experiment exp;
  char err[256];
  CHECK(er_experiment_open(dir, &exp, err, sizeof err) == 0);
  CHECK(exp.n_clock == N);
  CHECK(exp.invalid_packets == 0);
  CHECK(exp.n_stacks == 2);
  CHECK(exp.ptimer_us == 1000 && exp.numstates == 1);
  CHECK(exp.has_run && exp.has_exit);
  CHECK(exp.n_comments == 1 && strcmp(exp.comments[0], "a & b") == 0);
  CHECK(exp.overview_bytes == 504);
  long ticks = 0;
  int order_ok = 1;
  int64_t last[2] = {0, 0};
  for (size_t i = 0; i < exp.n_clock; i++) {
    ticks += exp.clock[i].ntick;
    int t = exp.clock[i].thrid == 200;
    order_ok &= exp.clock[i].tstamp > last[t]; /* each producer's packets stay in order */
    last[t] = exp.clock[i].tstamp;
    const struct er_stack *st = er_experiment_stack(&exp, exp.clock[i].frinfo);
    CHECK(st != NULL);
  }
  CHECK(order_ok);
  CHECK(ticks == (N / 4) * (1 + 2 + 3 + 4));
  const struct er_stack *sa = er_experiment_stack(&exp, fa);
  CHECK(sa && sa->n == 3 && sa->pcs[0] == 0x1111 && sa->pcs[2] == 0x3333);
  er_experiment_close(&exp);

  /* A kill in the middle of a block: only what was flushed survives, and it
   * is still a valid packet stream (no invalid packets, no torn packet). */
  struct er_datafile crash;
  CHECK(er_datafile_create(&crash, dirfd, "hwcounters") == 0);
  struct er_cursor *cc = malloc(sizeof *cc);
  er_cursor_init(cc, &crash);
  struct er_clock_packet p = {0};
  p.tsize = sizeof p;
  p.type = ER_PKT_CLOCK;
  for (int i = 0; i < 10; i++)
    er_cursor_append(cc, &p, sizeof p);
  er_cursor_flush(cc);
  for (int i = 0; i < 10; i++)
    er_cursor_append(cc, &p, sizeof p); /* never flushed: "killed" here */
  struct stat st;
  CHECK(fstat(crash.fd, &st) == 0 && st.st_size == 10 * 56 + 4);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  free(pc), free(pc2), free(fc), free(cc);
  return TEST_EXIT();
}
