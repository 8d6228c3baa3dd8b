/* The page the runtime inside the program and the sampler process outside
 * it share (a small file beside the status file, mapped by both, its
 * descriptor closed at once): the program's requests (samples, pause,
 * resume, the end, an exec) go out through it, in order, and GDB's stop
 * counter comes in.  Any number of program threads may post, from signal
 * handlers too: a slot is reserved with a compare-and-swap, filled, then
 * marked ready; the sampler process takes slots in order. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector_internal.h"

#define CONTROL_MAGIC 0x67646263746c3031ULL /* "gdbctl01" */

struct col_control_page *col_control;
char col_control_file[PATH_MAX + 16]; /* the sampler process's, for the status file */

void col_control_path(char *out, size_t len, const char *status_path)
{
  snprintf(out, len, "%s.control", status_path);
}

int col_control_create(const char *status_path)
{
  char path[PATH_MAX + 16];
  col_control_path(path, sizeof path, status_path);
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST && unlink(path) == 0) /* one left by an earlier run of this session */
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -errno;
  int rc = ftruncate(fd, sizeof *col_control) == 0 ? 0 : -errno;
  void *page = rc == 0 ? mmap(NULL, sizeof *col_control, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (rc == 0 && page == MAP_FAILED)
    rc = -errno;
  close(fd);
  if (rc != 0)
    return rc;
  col_control = page;
  snprintf(col_control_file, sizeof col_control_file, "%s", path);
  __atomic_store_n(&col_control->magic, CONTROL_MAGIC, __ATOMIC_RELEASE);
  return 0;
}

int col_control_attach(const char *status_path)
{
  char path[PATH_MAX + 16];
  col_control_path(path, sizeof path, status_path);
  int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  void *page = mmap(NULL, sizeof *col_control, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = page == MAP_FAILED ? errno : 0;
  close(fd); /* the mapping stays; the program keeps no descriptor of ours */
  if (err != 0)
    return -err;
  if (((struct col_control_page *)page)->magic != CONTROL_MAGIC) {
    munmap(page, sizeof *col_control);
    return -EINVAL;
  }
  /* An earlier experiment's page stays mapped: a thread stopped in the
   * middle of a post may still write to it. */
  col_control = page;
  return 0;
}

int col_control_post(enum col_control_kind kind, const char *text, int err)
{
  struct col_control_page *c = col_control;
  if (c == NULL)
    return -ENODEV;
  uint64_t w = __atomic_load_n(&c->write_index, __ATOMIC_ACQUIRE);
  do {
    if (w - __atomic_load_n(&c->read_index, __ATOMIC_ACQUIRE) >= COL_CONTROL_SLOTS) {
      __atomic_fetch_add(&c->dropped, 1, __ATOMIC_RELAXED);
      return -ENOSPC;
    }
  } while (!__atomic_compare_exchange_n(&c->write_index, &w, w + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  struct col_control_record *r = &c->slots[w % COL_CONTROL_SLOTS];
  r->kind = kind;
  r->tstamp = col_hrtime();
  r->err = err;
  size_t n = text != NULL ? strnlen(text, sizeof r->text - 1) : 0;
  memcpy(r->text, text != NULL ? text : "", n);
  r->text[n] = '\0';
  __atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
  return 0;
}

size_t col_control_take(void (*fn)(const struct col_control_record *r, void *arg), void *arg)
{
  struct col_control_page *c = col_control;
  size_t n = 0;
  if (c == NULL)
    return 0;
  for (;;) {
    uint64_t r = __atomic_load_n(&c->read_index, __ATOMIC_ACQUIRE);
    if (r == __atomic_load_n(&c->write_index, __ATOMIC_ACQUIRE))
      break;
    struct col_control_record *slot = &c->slots[r % COL_CONTROL_SLOTS];
    if (!__atomic_load_n(&slot->ready, __ATOMIC_ACQUIRE))
      break; /* reserved, still being written: next cycle */
    fn(slot, arg);
    __atomic_store_n(&slot->ready, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&c->read_index, r + 1, __ATOMIC_RELEASE);
    n++;
  }
  return n;
}
