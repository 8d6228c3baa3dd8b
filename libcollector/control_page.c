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

/* Both rings on the page (requests, thread starts) follow one protocol:
 * a writer reserves slot WRITE with a compare-and-swap (refused, and
 * counted in DROPPED, when the reader is COUNT slots behind), fills it and
 * sets its ready flag (each slot's first word); the reader takes ready
 * slots in order. */
struct ring_view {
  uint64_t *write, *read, *dropped;
  unsigned char *slots;
  size_t slot_size, count;
};

static void *reserve_slot(const struct ring_view *v)
{
  uint64_t w = __atomic_load_n(v->write, __ATOMIC_ACQUIRE);
  do {
    if (w - __atomic_load_n(v->read, __ATOMIC_ACQUIRE) >= v->count) {
      __atomic_fetch_add(v->dropped, 1, __ATOMIC_RELAXED);
      return NULL;
    }
  } while (!__atomic_compare_exchange_n(v->write, &w, w + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  return v->slots + (w % v->count) * v->slot_size;
}

static void mark_ready(void *slot)
{
  __atomic_store_n((uint32_t *)slot, 1, __ATOMIC_RELEASE);
}

static size_t take_slots(const struct ring_view *v, void (*fn)(const void *slot, void *arg), void *arg)
{
  size_t n = 0;
  for (;;) {
    uint64_t r = __atomic_load_n(v->read, __ATOMIC_ACQUIRE);
    if (r == __atomic_load_n(v->write, __ATOMIC_ACQUIRE))
      break;
    uint32_t *slot = (uint32_t *)(v->slots + (r % v->count) * v->slot_size);
    if (!__atomic_load_n(slot, __ATOMIC_ACQUIRE))
      break; /* reserved, still being written: next cycle */
    fn(slot, arg);
    __atomic_store_n(slot, 0, __ATOMIC_RELEASE);
    __atomic_store_n(v->read, r + 1, __ATOMIC_RELEASE);
    n++;
  }
  return n;
}

static struct ring_view requests_of(struct col_control_page *c)
{
  return (struct ring_view){&c->write_index, &c->read_index, &c->dropped, (unsigned char *)c->slots,
                            sizeof c->slots[0], COL_CONTROL_SLOTS};
}

/* Thread starts have a ring of their own: a burst of thread creations
 * between two of the sampler's cycles must not crowd out requests. */
static struct ring_view starts_of(struct col_control_page *c)
{
  return (struct ring_view){&c->starts_written, &c->starts_read, &c->starts_dropped, (unsigned char *)c->starts,
                            sizeof c->starts[0], COL_THREAD_STARTS};
}

int col_control_post(enum col_control_kind kind, const char *text, int err)
{
  struct col_control_page *c = col_control;
  if (c == NULL)
    return -ENODEV;
  struct ring_view v = requests_of(c);
  struct col_control_record *r = reserve_slot(&v);
  if (r == NULL)
    return -ENOSPC;
  r->kind = kind;
  r->tstamp = col_hrtime();
  r->err = err;
  r->pid = getpid();
  r->tid = gettid();
  size_t n = text != NULL ? strnlen(text, sizeof r->text - 1) : 0;
  memcpy(r->text, text != NULL ? text : "", n);
  r->text[n] = '\0';
  mark_ready(r);
  return 0;
}

int col_control_post_variant(enum col_control_kind kind, const char *variant, const char *what, int err)
{
  char text[sizeof col_control->slots[0].text]; /* copied by hand: no library call needed */
  size_t n = 0;
  for (const char *p = variant; p != NULL && *p != '\0' && n < sizeof text - 2; p++)
    text[n++] = *p;
  text[n++] = ':';
  for (const char *p = what; p != NULL && *p != '\0' && n < sizeof text - 1; p++)
    text[n++] = *p;
  text[n] = '\0';
  return col_control_post(kind, text, err);
}

struct request_taker {
  void (*fn)(const struct col_control_record *r, void *arg);
  void *arg;
};

static void take_request(const void *slot, void *p)
{
  const struct request_taker *t = p;
  t->fn(slot, t->arg);
}

size_t col_control_take(void (*fn)(const struct col_control_record *r, void *arg), void *arg)
{
  if (col_control == NULL)
    return 0;
  struct ring_view v = requests_of(col_control);
  struct request_taker t = {fn, arg};
  return take_slots(&v, take_request, &t);
}

void col_control_post_thread_start(pid_t tid, uint64_t start)
{
  if (col_control == NULL)
    return;
  struct ring_view v = starts_of(col_control);
  struct col_thread_start *e = reserve_slot(&v);
  if (e == NULL)
    return;
  e->tid = (int32_t)tid;
  e->start = start;
  mark_ready(e);
}

static void take_start(const void *slot, void *p)
{
  const struct col_thread_start *e = slot;
  void (**fn)(pid_t, uint64_t) = p;
  (*fn)((pid_t)e->tid, e->start);
}

size_t col_control_take_thread_starts(void (*fn)(pid_t tid, uint64_t start))
{
  if (col_control == NULL)
    return 0;
  struct ring_view v = starts_of(col_control);
  return take_slots(&v, take_start, &fn);
}
