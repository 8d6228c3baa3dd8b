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
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/hrtime.h"
#include "control_page.h"
#include "er/er_gdb_layout.h"
#include "sampler_wake.h"
#include "shared_file.h"
#include "slot_ring.h"

/* GDB's plugin writes and reads the page's head at the offsets of
 * er/er_gdb_layout.h. */
#define SAME_OFFSET(field) \
  _Static_assert(offsetof(struct col_control_page, field) == offsetof(struct er_control_head, field), \
                 "the control page's " #field " where GDB looks for it")
SAME_OFFSET(magic);
SAME_OFFSET(write_index);
SAME_OFFSET(read_index);
SAME_OFFSET(dropped);
SAME_OFFSET(debugger_stops);
SAME_OFFSET(status_asked);
SAME_OFFSET(stop_label);

#define CONTROL_MAGIC 0x67646263746c3034ULL /* "gdbctl04": the layout of shared/control_page.h */

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
  void *page;
  /* Its blocks allocated now: on a full memory file system a sparse page
   * made the program's first write to it a SIGBUS. */
  int rc = col_shared_file_create(path, sizeof *col_control, COL_SHARED_RESIDENT, &page);
  if (rc != 0)
    return rc;
  col_control = page;
  snprintf(col_control_file, sizeof col_control_file, "%s", path);
  col_control->sampler_pid = getpid();
  col_control->wake_armed = 1;
  __atomic_store_n(&col_control->magic, CONTROL_MAGIC, __ATOMIC_RELEASE);
  return 0;
}

int col_control_attach(const char *status_path)
{
  char path[PATH_MAX + 16];
  col_control_path(path, sizeof path, status_path);
  void *page;
  int rc = col_shared_file_attach(path, sizeof *col_control, CONTROL_MAGIC, COL_SHARED_SPARSE, &page);
  if (rc != 0)
    return rc;
  /* An earlier experiment's page stays mapped: a thread stopped in the
   * middle of a post may still write to it. */
  col_control = page;
  return 0;
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

/* One signal when a ring passes half full (the flag first: tested at each
 * post, written once a fill); async-signal-safe. */
static void wake_sampler_at_half(struct col_control_page *c, const struct ring_view *v)
{
  if (!__atomic_load_n(&c->wake_armed, __ATOMIC_RELAXED))
    return;
  uint64_t used = __atomic_load_n(v->write, __ATOMIC_RELAXED) - __atomic_load_n(v->read, __ATOMIC_RELAXED);
  if (used >= v->count / 2 && __atomic_exchange_n(&c->wake_armed, 0, __ATOMIC_ACQ_REL) == 1 && c->sampler_pid > 0)
    kill(c->sampler_pid, COL_SAMPLER_WAKE_SIGNAL);
}

static void fill(struct col_control_record *r, enum col_control_kind kind, const char *text, int err)
{
  r->kind = kind;
  r->tstamp = col_hrtime();
  r->err = err;
  r->pid = getpid();
  r->tid = gettid();
  size_t n = text != NULL ? strnlen(text, sizeof r->text - 1) : 0;
  memcpy(r->text, text != NULL ? text : "", n);
  r->text[n] = '\0';
}

/* KIND's record into a free slot: 0, -ENODEV without a page, -ENOSPC when
 * every slot is taken (counted as dropped unless LAST is 0: a try that
 * will be made again). */
static int post_try(enum col_control_kind kind, const char *text, int err, int last)
{
  struct col_control_page *c = col_control;
  if (c == NULL)
    return -ENODEV;
  struct ring_view v = requests_of(c);
  struct col_control_record *r = last ? col_ring_reserve(&v) : col_ring_try_reserve(&v, 0);
  if (r == NULL) {
    if (last && (unsigned)kind < COL_CTL_KINDS)
      __atomic_fetch_add(&c->dropped_of_kind[kind], 1, __ATOMIC_RELAXED);
    return -ENOSPC;
  }
  fill(r, kind, text, err);
  col_ring_mark_ready(r);
  wake_sampler_at_half(c, &v);
  return 0;
}

static int post(enum col_control_kind kind, const char *text, int err)
{
  return post_try(kind, text, err, 1);
}

const char *col_stop_label(const char *wrote, char copy[ER_STOP_LABEL_BYTES])
{
  memcpy(copy, wrote, ER_STOP_LABEL_BYTES);
  copy[ER_STOP_LABEL_BYTES - 1] = '\0';
  return strncmp(copy, ER_STOP_LABEL_PREFIX, strlen(ER_STOP_LABEL_PREFIX)) == 0 ? copy : ER_STOP_LABEL_PREFIX;
}

void col_control_post_founder_end(const char *why)
{
  struct col_control_page *c = col_control;
  if (c == NULL)
    return;
  fill(&c->founder_end, COL_CTL_CLOSE, why, 0);
  __atomic_store_n(&c->founder_end.ready, 1, __ATOMIC_RELEASE);
  if (c->sampler_pid > 0) /* (GDB's disable waits for the experiment's end) */
    kill(c->sampler_pid, COL_SAMPLER_WAKE_SIGNAL);
}

/* (a recheck's period where a wake is missed: a sampler that stored the
 * field before the waiter read the word wakes nobody, and one that is
 * gone never wakes) */
#define WAIT_SLICE_MS 10

void col_control_wait_for(const int64_t *field, int64_t at_least, int limit_ms, pid_t sampler)
{
  struct col_control_page *c = col_control;
  if (c == NULL)
    return;
  int64_t deadline = col_hrtime() + (int64_t)limit_ms * 1000000;
  for (int slices = 0;; slices++) {
    uint32_t seq = __atomic_load_n(&c->waiters_seq, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(field, __ATOMIC_ACQUIRE) >= at_least || col_hrtime() >= deadline)
      return;
    if (sampler > 0 && slices % 10 == 9 && kill(sampler, 0) != 0 && errno == ESRCH)
      return;
    struct timespec slice = {0, WAIT_SLICE_MS * 1000000L};
    syscall(SYS_futex, &c->waiters_seq, FUTEX_WAIT, seq, &slice, NULL, 0); /* (shared: not FUTEX_PRIVATE) */
  }
}

void col_control_wake_waiters(void)
{
  struct col_control_page *c = col_control;
  if (c == NULL)
    return;
  __atomic_add_fetch(&c->waiters_seq, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &c->waiters_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int col_control_post(enum col_control_kind kind, const char *text, int err)
{
  return post(kind, text, err);
}

int col_control_post_waiting(enum col_control_kind kind, const char *text, int err, int limit_ms)
{
  int rc = post_try(kind, text, err, limit_ms <= 0);
  for (int waited = 1; rc == -ENOSPC && waited <= limit_ms; waited++) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    rc = post_try(kind, text, err, waited == limit_ms);
  }
  return rc;
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
  size_t taken = col_ring_take(&v, take_request, &t);
  __atomic_store_n(&col_control->wake_armed, 1, __ATOMIC_RELEASE); /* (thread starts are taken first) */
  /* (after the ring: what the founder posted before its end comes first) */
  struct col_control_record *end = &col_control->founder_end;
  if (__atomic_load_n(&end->ready, __ATOMIC_ACQUIRE)) {
    fn(end, arg);
    __atomic_store_n(&end->ready, 0, __ATOMIC_RELEASE);
    taken++;
  }
  return taken;
}

void col_control_post_thread_start(pid_t tid, uint64_t start)
{
  if (col_control == NULL)
    return;
  struct ring_view v = starts_of(col_control);
  struct col_thread_start *e = col_ring_reserve(&v);
  if (e == NULL)
    return;
  e->tid = (int32_t)tid;
  e->start = start;
  col_ring_mark_ready(e);
  wake_sampler_at_half(col_control, &v);
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
  return col_ring_take(&v, take_start, &fn);
}
