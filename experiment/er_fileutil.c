/* Safe file creation helpers; see er/er_fileutil.h. */
#define _GNU_SOURCE
#include "er/er_fileutil.h"

#include <errno.h>
#include <fcntl.h>
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
