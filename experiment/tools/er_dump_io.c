/* er-dump's I/O section: totals by kind, and per file what was read and
 * written.  A descriptor's file is what opened it last (a path, or the
 * file of the descriptor a dup or fdopen copied); a close forgets it, so
 * a reused descriptor is charged to the file it holds at the time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er_dump_io.h"

enum { IO_READ, IO_WRITE, IO_OPEN, IO_CLOSE, IO_OTHER, IO_ERROR };

struct file_total {
  const char *name;
  unsigned long long read_bytes, write_bytes, calls;
};

#define MAX_FD 65536

static int by_end(const void *a, const void *b)
{
  const struct er_io_call *x = *(const struct er_io_call *const *)a, *y = *(const struct er_io_call *const *)b;
  return x->end < y->end ? -1 : x->end > y->end;
}

static const char *unopened(int fd)
{
  static const char *std[] = {"<stdin>", "<stdout>", "<stderr>"};
  return fd >= 0 && fd < 3 ? std[fd] : "<file opened before the experiment>";
}

static struct file_total *total_for(struct file_total **files, size_t *n, const char *name)
{
  for (size_t i = 0; i < *n; i++)
    if (strcmp((*files)[i].name, name) == 0)
      return &(*files)[i];
  *files = realloc(*files, (*n + 1) * sizeof **files);
  (*files)[*n] = (struct file_total){name, 0, 0, 0};
  return &(*files)[(*n)++];
}

void er_dump_io(const struct er_experiment *exp)
{
  /* unsigned: a damaged trace's byte counts may pass 2^63 in sum */
  unsigned long long bytes[2] = {0, 0}, calls[5] = {0, 0, 0, 0, 0}, errors = 0;
  double seconds = 0;
  const struct er_io_call **order = malloc((exp->n_io_calls + 1) * sizeof *order);
  const char **names = calloc(MAX_FD, sizeof *names);
  struct file_total *files = NULL;
  size_t n_files = 0;
  if (order == NULL || names == NULL)
    return;
  for (size_t i = 0; i < exp->n_io_calls; i++)
    order[i] = &exp->io_calls[i];
  qsort(order, exp->n_io_calls, sizeof *order, by_end);
  for (size_t i = 0; i < exp->n_io_calls; i++) {
    const struct er_io_call *c = order[i];
    int kind = c->iotype % IO_ERROR, failed = c->iotype >= IO_ERROR;
    int known = c->fd >= 0 && c->fd < MAX_FD;
    calls[kind]++;
    errors += failed;
    seconds += (c->end - c->start) / 1e9;
    if (kind == IO_OPEN && !failed && known) {
      const char *copied = c->ofd >= 0 && c->ofd < MAX_FD ? (names[c->ofd] ? names[c->ofd] : unopened(c->ofd)) : NULL;
      names[c->fd] = c->name != NULL ? c->name : copied;
    }
    const char *name = kind == IO_OPEN && c->name != NULL           ? c->name /* a failed open too */
                       : known && names[c->fd] != NULL ? names[c->fd]
                                                       : unopened(c->fd);
    struct file_total *t = total_for(&files, &n_files, name);
    t->calls++;
    if (!failed && (kind == IO_READ || kind == IO_WRITE)) {
      bytes[kind] += c->nbytes;
      *(kind == IO_READ ? &t->read_bytes : &t->write_bytes) += c->nbytes;
    }
    if (kind == IO_CLOSE && !failed && known)
      names[c->fd] = NULL;
  }
  printf("io_calls: %zu\n", exp->n_io_calls);
  printf("io_read_calls: %llu\nio_write_calls: %llu\nio_open_calls: %llu\nio_close_calls: %llu\n"
         "io_other_calls: %llu\nio_errors: %llu\n", calls[IO_READ], calls[IO_WRITE], calls[IO_OPEN], calls[IO_CLOSE],
         calls[IO_OTHER], errors);
  printf("io_read_bytes: %llu\nio_write_bytes: %llu\nio_seconds: %.4f\n", bytes[IO_READ], bytes[IO_WRITE], seconds);
  printf("io_files: (\"read_bytes write_bytes calls name\")\n");
  for (size_t i = 0; i < n_files; i++)
    printf("%llu %llu %llu %s\n", files[i].read_bytes, files[i].write_bytes, files[i].calls, files[i].name);
  free(files);
  free(names);
  free(order);
}
