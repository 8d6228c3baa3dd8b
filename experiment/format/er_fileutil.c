/* Safe file creation helpers; see er/er_fileutil.h. */
#define _GNU_SOURCE
#include "er/er_fileutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int er_create_exclusive(int dirfd, const char *name, int extra_flags)
{
  int fd;
  do
    fd = openat(dirfd, name, O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra_flags, 0666);
  while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : fd;
}

int er_write_all(int fd, const void *bytes, size_t len)
{
  const char *p = bytes;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int er_check_file_size_limit(uint64_t end)
{
  struct rlimit limit;
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return 0;
  return end <= (uint64_t)limit.rlim_cur ? 0 : -EFBIG;
}

int er_open_regular_file(const char *path)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

int er_read_file(const char *dir, const char *name, size_t head, size_t tail, size_t max, char **out, size_t *len)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  *out = NULL;
  *len = 0;
  int fd = er_open_regular_file(path);
  if (fd < 0)
    return -errno;
  struct stat st;
  int rc = fstat(fd, &st) != 0 ? -errno : (uint64_t)st.st_size > max ? -EFBIG : 0;
  if (rc != 0) {
    close(fd);
    return rc;
  }
  size_t size = (size_t)st.st_size, got = 0;
  char *buf = malloc(head + size + tail + 1);
  while (buf != NULL && got < size) {
    ssize_t n = read(fd, buf + head + got, size - got);
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  close(fd);
  if (buf == NULL)
    return -ENOMEM;
  buf[head + got] = '\0';
  *out = buf;
  *len = got;
  return 0;
}

long er_read_text(const char *path, char *out, size_t len)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || len == 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t got = 0;
  ssize_t n;
  while (got < len - 1 && ((n = read(fd, out + got, len - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
    if (n > 0)
      got += (size_t)n;
  close(fd);
  out[got] = '\0';
  return (long)got;
}

const char *er_proc_stat_fields(const char *path, char *text, size_t len)
{
  const char *paren = er_read_text(path, text, len) > 0 ? strrchr(text, ')') : NULL;
  return paren != NULL && paren[1] == ' ' && paren[2] != '\0' ? paren + 2 : NULL;
}

int er_proc_alive(const char *stat_path)
{
  char text[512];
  const char *fields = er_proc_stat_fields(stat_path, text, sizeof text);
  return fields != NULL && fields[0] != 'Z' && fields[0] != 'X';
}
