/* libFuzzer target for the experiment reader: every input is one
 * experiment, its files one after another, each introduced by
 * "\n@@@ NAME\n" (see pack_experiment.py, which turns a real experiment into
 * this form for the seed corpus).  The reader must never crash, hang or
 * read out of bounds, whatever the files hold; run under AddressSanitizer.
 * What the tools do with an experiment is done too: stacks looked up for
 * every sample, segments for every PC, names resolved. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er/er_reader.h"

static const char *const names[] = {"log.xml", "map.xml", "data.frameinfo", "profile", "overview"};
static char dir[64];

static void write_part(const char *name, const uint8_t *data, size_t len)
{
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    abort();
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n <= 0)
      abort();
    data += n;
    len -= (size_t)n;
  }
  close(fd);
}

#define MARKER "\n@@@ "

static const uint8_t *find_marker(const uint8_t *from, const uint8_t *end)
{
  size_t n = strlen(MARKER);
  for (const uint8_t *p = from; p + n <= end; p++)
    if (memcmp(p, MARKER, n) == 0)
      return p;
  return NULL;
}

/* Splits the input into the experiment's files; files not named are absent. */
static void unpack(const uint8_t *data, size_t size)
{
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  const uint8_t *end = data + size, *p = find_marker(data, end);
  while (p != NULL) {
    const uint8_t *name = p + strlen(MARKER), *nl = memchr(name, '\n', (size_t)(end - name));
    if (nl == NULL)
      return;
    const uint8_t *body = nl + 1, *next = find_marker(body, end);
    const uint8_t *body_end = next != NULL ? next : end;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if ((size_t)(nl - name) == strlen(names[i]) && memcmp(name, names[i], strlen(names[i])) == 0)
        write_part(names[i], body, (size_t)(body_end - body));
    p = next;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (dir[0] == '\0') {
    snprintf(dir, sizeof dir, "/tmp/gdbcol-fuzz-XXXXXX");
    if (mkdtemp(dir) == NULL)
      abort();
  }
  unpack(data, size);
  struct er_experiment exp;
  char err[512];
  if (er_experiment_open(dir, &exp, err, sizeof err) != 0)
    return 0;
  /* Names for the first samples only: each opens ELF files, slow to fuzz. */
  for (size_t i = 0; i < exp.n_clock && i < 64; i++) {
    const struct er_stack *st = er_experiment_stack(&exp, exp.clock[i].frinfo);
    for (size_t k = 0; st != NULL && k < st->n && k < 4; k++) {
      const struct er_segment *seg = er_experiment_segment(&exp, st->pcs[k]);
      char name[256];
      if (seg != NULL)
        er_symbolize(&exp, seg, st->pcs[k], name, sizeof name);
    }
  }
  er_experiment_close(&exp);
  return 0;
}
