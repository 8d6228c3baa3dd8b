/* Files shared by the runtime and the sampler process: see shared_file.h. */
#define _GNU_SOURCE
#include "shared_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files this process created (few: the control page, the trace ring). */
#define MAX_CREATED 4
static struct {
  dev_t dev;
  ino_t ino;
} created[MAX_CREATED];
static int n_created;
static struct {
  int set;
  uid_t uid;
  gid_t gid;
} owner;

void col_shared_file_owner(uid_t uid, gid_t gid)
{
  owner.set = 1;
  owner.uid = uid;
  owner.gid = gid;
}

static void remember(int fd)
{
  struct stat st;
  if (fstat(fd, &st) != 0)
    return;
  int slot = n_created < MAX_CREATED ? n_created++ : MAX_CREATED - 1;
  created[slot].dev = st.st_dev;
  created[slot].ino = st.st_ino;
}

void col_shared_file_remove(const char *path)
{
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  for (int i = 0; i < n_created; i++)
    if (created[i].dev == st.st_dev && created[i].ino == st.st_ino) {
      unlink(path);
      return;
    }
}

static int map_flags(enum col_shared_backing backing)
{
  return MAP_SHARED | (backing == COL_SHARED_RESIDENT ? MAP_POPULATE : 0);
}

int col_shared_file_create(const char *path, size_t size, enum col_shared_backing backing, void **out)
{
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST && unlink(path) == 0) /* one left by an earlier run of this session */
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -errno;
  remember(fd);
  int rc = !owner.set || fchown(fd, owner.uid, owner.gid) == 0 ? 0 : -errno;
  if (rc == 0 && ftruncate(fd, (off_t)size) != 0)
    rc = -errno;
  if (rc == 0 && backing == COL_SHARED_RESIDENT)
    rc = -posix_fallocate(fd, 0, (off_t)size);
  void *p = rc == 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE, map_flags(backing), fd, 0) : MAP_FAILED;
  if (rc == 0 && p == MAP_FAILED)
    rc = -errno;
  close(fd);
  if (rc == 0)
    *out = p;
  else
    unlink(path); /* never a partial file left behind (a small tmpfs stayed full) */
  return rc;
}

int col_shared_file_attach(const char *path, size_t size, uint64_t magic, enum col_shared_backing backing,
                           void **out)
{
  int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  int err = fstat(fd, &st) != 0 ? errno : (size_t)st.st_size < size ? EINVAL : 0;
  void *p = err == 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE, map_flags(backing), fd, 0) : MAP_FAILED;
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
