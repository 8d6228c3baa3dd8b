/* Files shared by the runtime and the sampler process: see shared_file.h. */
#define _GNU_SOURCE
#include "shared_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int col_shared_file_create(const char *path, size_t size, void **out)
{
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST && unlink(path) == 0) /* one left by an earlier run of this session */
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -errno;
  int rc = ftruncate(fd, (off_t)size) == 0 ? 0 : -errno;
  void *p = rc == 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (rc == 0 && p == MAP_FAILED)
    rc = -errno;
  close(fd);
  if (rc == 0)
    *out = p;
  return rc;
}

int col_shared_file_attach(const char *path, size_t size, uint64_t magic, void **out)
{
  int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  int err = fstat(fd, &st) != 0 ? errno : (size_t)st.st_size < size ? EINVAL : 0;
  void *p = err == 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (err == 0 && p == MAP_FAILED)
    err = errno;
  close(fd); /* the mapping stays; the program keeps no descriptor of ours */
  if (err != 0)
    return -err;
  if (__atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE) != magic) {
    munmap(p, size);
    return -EINVAL;
  }
  *out = p;
  return 0;
}
