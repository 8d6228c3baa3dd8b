/* Kernel-side clock sampling: one perf_event software TASK_CLOCK event per
 * thread that records the user registers and a copy of the user stack into
 * a ring buffer.  No signal is sent, so a process running under GDB is never
 * stopped by profiling (a signal costs a round trip through the debugger),
 * and TASK_CLOCK is hrtimer based, so 1 ms intervals are honoured where
 * CPU-time POSIX timers are limited to the scheduler tick. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/capture.h"
#include "core/thread_slot.h"
#include "unwind/clock_perf.h"

/* Registers the unwinder needs: the general registers and IP; the segment
 * registers are not sampled by the kernel on x86_64. */
#define SAMPLED_REGS                                                                       \
  (((1ull << PERF_REG_X86_64_MAX) - 1) & ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | \
                                         (1ull << PERF_REG_X86_FS) | (1ull << PERF_REG_X86_GS)))

/* 64 data pages hold about 30 samples with 8 KiB stacks; the sampler is
 * woken at half full. */
#define RING_DATA_PAGES 64

/* Threads arm on the runtime's thread, while GDB's calls and the API may
 * write the status from theirs: each field is read and written whole. */
static struct col_clock_source_figures sources;

void col_clock_source_describe(struct col_clock_source_figures *out)
{
  out->perf_threads = __atomic_load_n(&sources.perf_threads, __ATOMIC_RELAXED);
  out->timer_threads = __atomic_load_n(&sources.timer_threads, __ATOMIC_RELAXED);
  out->failed_threads = __atomic_load_n(&sources.failed_threads, __ATOMIC_RELAXED);
  out->perf_exclude_kernel = __atomic_load_n(&sources.perf_exclude_kernel, __ATOMIC_RELAXED);
  out->last_perf_errno = __atomic_load_n(&sources.last_perf_errno, __ATOMIC_RELAXED);
  out->last_timer_errno = __atomic_load_n(&sources.last_timer_errno, __ATOMIC_RELAXED);
}

void col_clock_source_reset(void)
{
  memset(&sources, 0, sizeof sources);
}

/* One thread's outcome: counted when it started, else its errno kept. */
static void count_outcome(unsigned *started, int *last_errno, int err)
{
  if (err == 0)
    __atomic_fetch_add(started, 1, __ATOMIC_RELAXED);
  else
    __atomic_store_n(last_errno, err, __ATOMIC_RELAXED);
}

void col_clock_source_count_perf(int err)
{
  count_outcome(&sources.perf_threads, &sources.last_perf_errno, err);
}

void col_clock_source_count_timer(int err)
{
  count_outcome(&sources.timer_threads, &sources.last_timer_errno, err);
}

void col_clock_source_count_failed(void)
{
  __atomic_fetch_add(&sources.failed_threads, 1, __ATOMIC_RELAXED);
}

void col_perf_clock_attr(struct perf_event_attr *attr_out, long interval_us, size_t stack_bytes, int exclude_kernel)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = (uint64_t)interval_us * 1000; /* TASK_CLOCK counts ns */
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                     PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  attr.sample_regs_user = SAMPLED_REGS;
  attr.sample_stack_user = (uint32_t)stack_bytes;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC_RAW; /* the experiment's clock */
  attr.disabled = 1;
  attr.exclude_kernel = (unsigned)exclude_kernel;
  attr.exclude_hv = 1;
  attr.watermark = 1;
  attr.wakeup_watermark = RING_DATA_PAGES * 4096 / 2;
  *attr_out = attr;
}

static int open_event(pid_t tid, long interval_us, size_t stack_bytes, int exclude_kernel)
{
  struct perf_event_attr attr;
  col_perf_clock_attr(&attr, interval_us, stack_bytes, exclude_kernel);
  return (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int col_perf_open(struct col_thread *t, long interval_us, size_t stack_bytes)
{
  /* Sampling kernel mode too keeps system CPU time in the profile (the
   * sample is charged to the user-level call site).  Unprivileged processes
   * at perf_event_paranoid >= 2 may only sample user mode. */
  int fd = open_event(t->tid, interval_us, stack_bytes, 0);
  if (fd < 0 && (errno == EACCES || errno == EPERM)) {
    fd = open_event(t->tid, interval_us, stack_bytes, 1);
    if (fd >= 0)
      __atomic_store_n(&sources.perf_exclude_kernel, 1, __ATOMIC_RELAXED);
  }
  if (fd < 0)
    return -errno;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t bytes = (RING_DATA_PAGES + 1) * page;
  void *ring = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ring == MAP_FAILED) {
    int err = errno;
    close(fd);
    return -err;
  }
  t->perf_fd = fd;
  t->perf_ring = ring;
  t->perf_ring_bytes = bytes;
  if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    int err = errno;
    col_perf_close(t);
    return -err;
  }
  return 0;
}

void col_perf_close(struct col_thread *t)
{
  if (t->perf_fd >= 0) {
    ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
  }
}

/* Releases the event; only the sampler calls this, after a final drain. */
void col_perf_release(struct col_thread *t)
{
  if (t->perf_ring != NULL)
    munmap(t->perf_ring, t->perf_ring_bytes);
  if (t->perf_fd >= 0)
    close(t->perf_fd);
  t->perf_ring = NULL;
  t->perf_fd = -1;
}

/* A record may wrap around the end of the ring: copy it out first. */
static void copy_from_ring(const unsigned char *data, size_t data_size, uint64_t pos, void *out, size_t len)
{
  size_t off = (size_t)(pos % data_size);
  size_t first = len < data_size - off ? len : data_size - off;
  memcpy(out, data + off, first);
  memcpy((unsigned char *)out + first, data, len - first);
}

/* One PERF_RECORD_SAMPLE of our sample_type into CAP; 0, or -1 when it is
 * malformed or has no user context.  PID gets the sample's process id. */
int col_perf_parse_sample(const unsigned char *rec, size_t len, struct col_capture *out, pid_t *pid)
{
  const unsigned char *p = rec + sizeof(struct perf_event_header), *end = rec + len;
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  uint32_t pid_tid[2];
  uint64_t word;
  if (p + 48 > end)
    return -1;
  memcpy(&cap.event_id, p, 8), p += 8;
  memcpy(pid_tid, p, 8), p += 8;
  *pid = (pid_t)pid_tid[0];
  memcpy(&cap.tstamp, p, 8), p += 8;
  memcpy(&cap.cpu, p, 4), p += 8;
  memcpy(&word, p, 8), p += 8;
  if (word > PERF_SAMPLE_REGS_ABI_64) { /* the clock's period (at least 100 us in ns), then the regs ABI */
    cap.period = word;
    memcpy(&word, p, 8), p += 8;
  } /* else a counter's sample (no period: cap.period stays 0), and that was the regs ABI */
  cap.tid = (pid_t)pid_tid[1];
  cap.weight = 1;
  cap.in_kernel = (((const struct perf_event_header *)rec)->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
                  PERF_RECORD_MISC_KERNEL;
  if (word != PERF_SAMPLE_REGS_ABI_NONE) {
    for (int r = 0; r < PERF_REG_X86_64_MAX && r < COL_NREGS; r++) {
      if (!(SAMPLED_REGS & (1ull << r)))
        continue;
      if (p + 8 > end)
        return -1;
      memcpy(&cap.regs.r[r], p, 8), p += 8;
    }
  }
  if (p + 8 > end)
    return -1;
  uint64_t stack_size;
  memcpy(&stack_size, p, 8), p += 8;
  if (stack_size > 0) {
    uint64_t dyn_size;
    if (p + stack_size + 8 > end)
      return -1;
    memcpy(&dyn_size, p + stack_size, 8);
    cap.stack = p;
    cap.stack_len = dyn_size < stack_size ? dyn_size : stack_size;
  }
  if (word == PERF_SAMPLE_REGS_ABI_NONE)
    return -1; /* no user context (should not happen for a user thread) */
  *out = cap;
  return 0;
}

/* The ring's data area (after its header page). */
static const unsigned char *ring_data(void *ring, size_t ring_bytes, size_t *data_size)
{
  static size_t page;
  if (page == 0)
    page = (size_t)sysconf(_SC_PAGESIZE);
  *data_size = ring_bytes - page;
  return (const unsigned char *)ring + page;
}

void col_perf_ring_copy(void *ring, size_t ring_bytes, uint64_t pos, void *out, size_t len)
{
  size_t data_size;
  const unsigned char *data = ring_data(ring, ring_bytes, &data_size);
  copy_from_ring(data, data_size, pos, out, len);
}

const unsigned char *col_perf_ring_record(void *ring, size_t ring_bytes, uint64_t pos, size_t len,
                                          unsigned char *scratch)
{
  size_t data_size;
  const unsigned char *data = ring_data(ring, ring_bytes, &data_size);
  if (pos % data_size + len <= data_size)
    return data + pos % data_size; /* in place: nearly every record */
  copy_from_ring(data, data_size, pos, scratch, len);
  return scratch;
}

size_t col_perf_ring_drain(void *ring, size_t ring_bytes, col_record_fn fn, void *arg)
{
  static unsigned char record[65536]; /* one draining thread; h.size is 16-bit */
  struct perf_event_mmap_page *meta = ring;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  size_t count = 0;
  while (tail < head) {
    struct perf_event_header h;
    col_perf_ring_copy(ring, ring_bytes, tail, &h, sizeof h);
    if (h.size < sizeof h)
      break;
    fn(col_perf_ring_record(ring, ring_bytes, tail, h.size, record), h.type, h.size, arg);
    count++;
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  return count;
}

struct thread_drain {
  struct col_thread *thread;
  col_capture_fn fn;
  void *arg;
  size_t samples;
};

static void thread_record(const unsigned char *rec, uint16_t type, uint16_t size, void *p)
{
  struct thread_drain *d = p;
  struct col_capture cap;
  pid_t pid;
  if (type == PERF_RECORD_SAMPLE && col_perf_parse_sample(rec, size, &cap, &pid) == 0) {
    d->thread->samples++;
    d->samples++;
    d->fn(&cap, d->arg);
  } else if (type == PERF_RECORD_LOST && size >= sizeof(struct perf_event_header) + 16) {
    uint64_t lost;
    memcpy(&lost, rec + sizeof(struct perf_event_header) + 8, 8);
    d->thread->lost += lost;
  }
}

size_t col_perf_drain(struct col_thread *t, col_capture_fn fn, void *arg)
{
  if (t->perf_ring == NULL)
    return 0;
  struct thread_drain d = {t, fn, arg, 0};
  col_perf_ring_drain(t->perf_ring, t->perf_ring_bytes, thread_record, &d);
  return d.samples;
}
