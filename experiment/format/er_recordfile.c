/* Whole-record append files; see er/er_recordfile.h. */
#define _GNU_SOURCE
#include "er/er_recordfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "er/er_fileutil.h"

/* The reserve grows in steps of this much (one fallocate per step). */
#define RESERVE_STEP (16 * 1024)

static void start(struct er_recordfile *f, int fd, uint64_t end)
{
  memset(f, 0, sizeof *f);
  f->fd = fd;
  f->end = end;
  f->reserved = end;
  f->can_reserve = 1;
}

int er_recordfile_create(struct er_recordfile *f, int dirfd, const char *name, size_t closing_reserve)
{
  int fd = er_create_exclusive(dirfd, name, O_RDWR);
  start(f, fd, 0);
  f->closing_reserve = closing_reserve;
  if (fd < 0)
    return fd;
  /* The closing records' space, taken now while there is some. */
  er_recordfile_room(f, 0, 0);
  return 0;
}

int er_recordfile_open_existing(struct er_recordfile *f, int dirfd, const char *name)
{
  int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    start(f, -1, 0);
    return -errno;
  }
  off_t end = lseek(fd, 0, SEEK_END);
  start(f, fd, end > 0 ? (uint64_t)end : 0);
  return 0;
}

static int is_out_of_space(int err)
{
  return err == ENOSPC || err == EDQUOT || err == EFBIG;
}

/* Reserves space up to NEED bytes from the start of the file: a whole
 * step when there is room for one, else exactly NEED. */
static int reserve_up_to(struct er_recordfile *f, uint64_t need)
{
  int rc = er_check_file_size_limit(need); /* a file-size cap is a full disk */
  if (rc != 0 || !f->can_reserve || need <= f->reserved)
    return rc;
  uint64_t targets[2] = {(need + RESERVE_STEP - 1) / RESERVE_STEP * RESERVE_STEP, need};
  int err = ENOSPC;
  for (int i = 0; i < 2; i++) {
    if (fallocate(f->fd, FALLOC_FL_KEEP_SIZE, (off_t)f->reserved, (off_t)(targets[i] - f->reserved)) == 0) {
      f->reserved = targets[i];
      return 0;
    }
    err = errno;
    if (!is_out_of_space(err)) {
      f->can_reserve = 0; /* not supported here: write without a reserve */
      return 0;
    }
  }
  return -err;
}

int er_recordfile_room(struct er_recordfile *f, size_t len, int final)
{
  if (f->fd < 0)
    return 0;
  if (f->error != 0 && !final)
    return 0;
  uint64_t need = f->end + len + (final ? 0 : f->closing_reserve);
  int rc = reserve_up_to(f, need);
  if (rc != 0 && f->error == 0)
    f->error = -rc;
  return rc == 0;
}

int er_recordfile_append(struct er_recordfile *f, const void *rec, size_t len, int final)
{
  if (!er_recordfile_room(f, len, final)) {
    f->dropped++;
    return f->fd < 0 ? -EBADF : -(f->error ? f->error : ENOSPC);
  }
  int limit = er_check_file_size_limit(f->end + len);
  if (limit != 0) {
    if (f->error == 0)
      f->error = -limit;
    f->dropped++;
    return limit;
  }
  const char *p = rec;
  size_t done = 0;
  while (done < len) {
    ssize_t n = pwrite(f->fd, p + done, len - done, (off_t)(f->end + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      /* Never leave part of a record: cut the file back to the last whole one. */
      if (done > 0)
        while (ftruncate(f->fd, (off_t)f->end) != 0 && errno == EINTR)
          ;
      if (f->error == 0)
        f->error = err;
      f->dropped++;
      return -err;
    }
    done += (size_t)n;
  }
  f->end += len;
  f->written++;
  return 0;
}

int er_recordfile_printf(struct er_recordfile *f, int final, const char *fmt, ...)
{
  char line[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line) {
    f->dropped++;
    return -EMSGSIZE; /* never a truncated tag: a fatal parse error (§13) */
  }
  return er_recordfile_append(f, line, (size_t)n, final);
}

void er_recordfile_close(struct er_recordfile *f)
{
  if (f->fd < 0)
    return;
  if (f->reserved > f->end)
    while (ftruncate(f->fd, (off_t)f->end) != 0 && errno == EINTR)
      ;
  close(f->fd);
  f->fd = -1;
}
