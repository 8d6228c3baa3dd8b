/* The sampler process's perf events: task-clock sampling events on the
 * program, and one ring per CPU that all of them write into, as `perf
 * record` does.  The rings fit the locked memory an unprivileged user gets
 * (perf_event_mlock_kb per CPU) whatever the number of threads; the
 * descriptors are the sampler's, never the program's.
 *
 * Launch: one event per CPU on the launcher, enabled by its exec and
 * inherited by every thread and child it makes.
 * Attach: the threads exist already, and inheritance only reaches threads
 * created later, so each thread gets one event per CPU (the kernel keeps
 * a ring for one CPU, so an event for "any CPU" cannot share it), each
 * redirected into its CPU's ring; threads created later inherit from their
 * creator's.  GDB keeps the process stopped meanwhile; the thread list is
 * read again until it holds no thread without events. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/config.h"
#include "unwind/clock_perf.h"
#include "sampler_events.h"

struct sampler_ring sampler_rings[SAMPLER_MAX_RINGS];
int sampler_n_rings;
size_t sampler_ring_data_bytes;
int sampler_exclude_kernel;
static struct sampler_events_figures figures;

void sampler_events_describe(struct sampler_events_figures *out)
{
  *out = figures;
}

/* Each counter event's kernel id, and its counter (samples of the threads
 * that inherit an event carry the id of the event they inherit from). */
struct counter_event {
  uint64_t id;
  int counter;
  int fd;
};
static struct counter_event *counter_events;
static size_t n_counter_events, counter_events_room;

/* Room for one more element in the growing array at *ARRAY (COUNT used
 * of *ROOM, each SIZE bytes; FIRST the first room): 0, or -1 (out of
 * memory: the array is as it was). */
static int room_for_one(void *array, size_t *room, size_t count, size_t size, size_t first)
{
  if (count < *room)
    return 0;
  void *old;
  memcpy(&old, array, sizeof old);
  size_t bigger = *room ? *room * 2 : first;
  void *more = realloc(old, bigger * size);
  if (more == NULL)
    return -1;
  memcpy(array, &more, sizeof more);
  *room = bigger;
  return 0;
}

static void remember_counter_event(int fd, int counter)
{
  uint64_t id;
  if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
    return;
  if (room_for_one(&counter_events, &counter_events_room, n_counter_events, sizeof *counter_events, 64) != 0)
    return;
  counter_events[n_counter_events++] = (struct counter_event){id, counter, fd};
}

/* Reading every counter event costs a system call each: after an attach
 * to many threads, at most one reading per this much record time. */
#define MANY_COUNTER_EVENTS 64
#define MANY_EVENTS_READ_EVERY_NS 5000000LL

int sampler_counter_totals(uint64_t *totals, int64_t now)
{
  static int64_t last_read = INT64_MIN;
  if (n_counter_events == 0 || (n_counter_events > MANY_COUNTER_EVENTS && last_read != INT64_MIN &&
                                now - last_read < MANY_EVENTS_READ_EVERY_NS))
    return -1;
  last_read = now;
  memset(totals, 0, sizeof *totals * ER_HWC_MAX_COUNTERS);
  for (size_t i = 0; i < n_counter_events; i++) {
    uint64_t count;
    if (read(counter_events[i].fd, &count, sizeof count) == (ssize_t)sizeof count)
      totals[counter_events[i].counter] += count;
  }
  return 0;
}

/* The events that sample each switch out (off-CPU stacks), by id. */
static uint64_t *switch_stack_ids;
static size_t n_switch_stack_ids, switch_stack_ids_room;

static void remember_switch_stack_event(int fd)
{
  uint64_t id;
  if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
    return;
  if (room_for_one(&switch_stack_ids, &switch_stack_ids_room, n_switch_stack_ids, sizeof *switch_stack_ids, 64) != 0)
    return;
  /* Kept sorted, for the lookup every sample makes (the kernel numbers
   * events in the order they are made: this is nearly always the end). */
  size_t at = n_switch_stack_ids++;
  for (; at > 0 && switch_stack_ids[at - 1] > id; at--)
    switch_stack_ids[at] = switch_stack_ids[at - 1];
  switch_stack_ids[at] = id;
}

int sampler_event_samples_switches(uint64_t id)
{
  size_t lo = 0, hi = n_switch_stack_ids; /* one per thread and CPU after an attach: thousands */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (switch_stack_ids[mid] == id)
      return 1;
    if (switch_stack_ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

int sampler_counter_of_event(uint64_t id)
{
  for (size_t i = 0; i < n_counter_events; i++)
    if (counter_events[i].id == id)
      return counter_events[i].counter;
  return -1;
}

static int ring_of_cpu[SAMPLER_MAX_CPUS];        /* samples */
static int switch_ring_of_cpu[SAMPLER_MAX_CPUS]; /* switches, exits, mappings */
static int stack_ring_of_cpu[SAMPLER_MAX_CPUS];  /* samples at switches out (off-CPU stacks) */
static pid_t launched; /* launch: the process given events */
static pid_t *known_tids; /* attach: the threads given events */
static size_t n_known, known_room;
static int *event_fds; /* every event, for enabling and disabling */
static size_t n_event_fds, event_fds_room;

/* 256 KiB: about 6000 switch records.  64 KiB lost 2600 records of 1000
 * threads of 1 ms beside two CPU hogs and another test suite (load 11). */
#define SWITCH_RING_PAGES 64

static long cpu_count(void)
{
  long n = sysconf(_SC_NPROCESSORS_CONF);
  return n < 1 ? 1 : n > SAMPLER_MAX_CPUS ? SAMPLER_MAX_CPUS : n;
}

/* The data pages of a ring every user may lock on each CPU: a power of two
 * that fits the allowance (perf_event_mlock_kb). */
static size_t allowance_pages(size_t page)
{
  long kb = 516;
  FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
  if (f != NULL) {
    if (fscanf(f, "%ld", &kb) != 1)
      kb = 516;
    fclose(f);
  }
  size_t pages = 1;
  while ((pages * 2 + 1) * page <= (size_t)kb * 1024 && pages < 1024)
    pages *= 2;
  return pages;
}

/* Data pages per CPU ring: the allowance's, larger where the process's
 * own locked-memory limit leaves room.  Each wake-up of the sampler costs
 * more than a sample's unwinding (86 us of its CPU in epoll_wait per
 * wake-up on this VM, the kernel's switch), and a ring woken at half full
 * of 8 KiB stack copies wakes it every 31 samples.  The kernel charges
 * what passes the user's allowance (shared with the user's other
 * profilers) to the process's RLIMIT_MEMLOCK, so that limit alone is
 * counted on: at most RING_BUDGET_BYTES in all, shared by the CPUs' rings
 * (the samples ring, the switch ring, and the off-CPU stacks ring when
 * that is on), at most MAX_RING_BYTES a ring. */
#define RING_BUDGET_BYTES (8u << 20)
#define MAX_RING_BYTES (2u << 20)
static size_t ring_pages(long cpus)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = allowance_pages(page);
  struct rlimit lock;
  size_t budget = RING_BUDGET_BYTES;
  if (getrlimit(RLIMIT_MEMLOCK, &lock) == 0 && lock.rlim_cur != RLIM_INFINITY && lock.rlim_cur < budget)
    budget = (size_t)lock.rlim_cur;
  size_t per_cpu = budget / (size_t)cpus, others = (SWITCH_RING_PAGES + 1) * page;
  size_t sample_rings = col_cfg.offcpu ? 2 : 1; /* (the off-CPU stacks ring is as large) */
  if (per_cpu <= others)
    return pages;
  size_t room = (per_cpu - others) / sample_rings;
  while ((pages * 2 + 1) * page <= room && pages * 2 * page <= MAX_RING_BYTES)
    pages *= 2;
  return pages;
}

/* What an event brings: the records of threads' switches and exits,
 * mappings and execs (no samples); the clock's samples; or (0 and up)
 * that counter's samples (the same sample layout: one parser). */
#define EVENT_SWITCH_STACKS (-3)
#define EVENT_SWITCHES (-2)
#define EVENT_CLOCK (-1)

static int open_event(pid_t pid, int cpu, int exclude_kernel, int from_exec, int counter)
{
  struct perf_event_attr attr;
  col_perf_clock_attr(&attr, col_cfg.clock_interval_us, col_cfg.stack_copy_bytes, exclude_kernel);
  attr.inherit = 1;              /* threads (and children) created later */
  attr.enable_on_exec = (unsigned)from_exec;
  attr.disabled = 1;
  attr.sample_id_all = 1;
  if (counter >= 0) {
    attr.type = col_cfg.hwc[counter].perf_type;
    attr.config = col_cfg.hwc[counter].perf_config;
    attr.config1 = col_cfg.hwc[counter].perf_config1; /* libpfm4's extra fields (offcore, ...) */
    attr.config2 = col_cfg.hwc[counter].perf_config2;
    attr.sample_period = col_cfg.hwc[counter].interval; /* at least 1: the counter list refuses 0 */
    /* No PERIOD: with it a software event samples every single event (the
     * kernel reports each with period 1).  The word after CPU is then the
     * registers' ABI (col_perf_parse_sample tells); the id says which
     * counter it is. */
    attr.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
    attr.wakeup_watermark = (uint32_t)(sampler_ring_data_bytes / 2);
    return (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  }
  if (counter == EVENT_CLOCK) {
    attr.wakeup_watermark = (uint32_t)(sampler_ring_data_bytes / 2);
    return (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  }
  if (counter == EVENT_SWITCH_STACKS) {
    /* A sample at every switch out, for its user registers and stack:
     * taken in the kernel's context, so only where kernel samples are
     * allowed (with exclude_kernel the kernel drops every one). */
    attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
    attr.sample_period = 1;
    attr.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD; /* as a counter's: the registers' ABI follows CPU */
    attr.exclude_kernel = 0;
    attr.wakeup_watermark = (uint32_t)(sampler_ring_data_bytes / 2);
    return (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  }
  attr.config = PERF_COUNT_SW_DUMMY; /* records only, no samples */
  attr.sample_period = 0;
  attr.context_switch = 1;       /* each thread's CPU time, for its tail */
  attr.task = 1;                 /* each thread's exit (PERF_RECORD_EXIT) */
  attr.comm = 1;
  attr.comm_exec = 1;            /* an exec is a COMM record with MISC_COMM_EXEC */
  attr.mmap = 1;                 /* executable mappings, as MMAP2 records */
  attr.mmap2 = 1;
  /* Woken at half full (either ring): fewer wake-ups (each costs more
   * than a sample's unwinding here), half a ring of slack (~30 ms of
   * samples at 1 ms per thread). */
  attr.wakeup_watermark = (uint32_t)(SWITCH_RING_PAGES * (size_t)sysconf(_SC_PAGESIZE) / 2);
  return (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Kernel sampling too where allowed (system time is then charged to the
 * call site); user mode only at perf_event_paranoid >= 2. */
static int open_event_allowed(pid_t pid, int cpu, int from_exec, int counter)
{
  int fd = open_event(pid, cpu, sampler_exclude_kernel, from_exec, counter);
  if (fd < 0 && (errno == EACCES || errno == EPERM) && !sampler_exclude_kernel) {
    sampler_exclude_kernel = 1;
    fd = open_event(pid, cpu, 1, from_exec, counter);
  }
  return fd;
}

static int remember_fd(int fd)
{
  if (room_for_one(&event_fds, &event_fds_room, n_event_fds, sizeof *event_fds, 256) != 0)
    return -1;
  event_fds[n_event_fds++] = fd;
  return 0;
}

static int map_ring(int fd, size_t data_bytes, int holds_switches, int holds_samples, int holds_switch_stacks)
{
  if (sampler_n_rings == SAMPLER_MAX_RINGS)
    return -1;
  size_t bytes = data_bytes + (size_t)sysconf(_SC_PAGESIZE);
  void *ring = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ring == MAP_FAILED)
    return -1;
  sampler_rings[sampler_n_rings] =
      (struct sampler_ring){fd, ring, bytes, holds_switches, holds_samples, holds_switch_stacks};
  return sampler_n_rings++;
}

/* FD's records into ring RING (made on FD itself, or another's): 0 or -1. */
static int output_into(int fd, int ring)
{
  return sampler_rings[ring].fd == fd || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, sampler_rings[ring].fd) == 0 ? 0 : -1;
}

/* FD's output (an event of KIND on CPU): its CPU's ring of that kind, made
 * on FD when there is none yet.  A switch ring that cannot be mapped
 * (beyond the locked memory allowed) leaves the switches in the samples
 * ring, as one ring held everything before. */
static int connect_output(int fd, int cpu, int kind)
{
  if (kind == EVENT_SWITCH_STACKS) {
    /* A ring of their own: a program switching tens of thousands of times
     * a second fills it, and what it loses then is stacks of off-CPU
     * periods, never clock samples.  Where it cannot be mapped, the
     * samples ring takes them. */
    if (stack_ring_of_cpu[cpu] < 0)
      stack_ring_of_cpu[cpu] = map_ring(fd, sampler_ring_data_bytes, 0, 0, 1);
    if (stack_ring_of_cpu[cpu] >= 0)
      return output_into(fd, stack_ring_of_cpu[cpu]);
    kind = EVENT_CLOCK;
  }
  int *ring_of = kind == EVENT_SWITCHES ? switch_ring_of_cpu : ring_of_cpu;
  if (ring_of[cpu] >= 0)
    return output_into(fd, ring_of[cpu]);
  if (kind == EVENT_SWITCHES) {
    ring_of[cpu] = map_ring(fd, SWITCH_RING_PAGES * (size_t)sysconf(_SC_PAGESIZE), 1, 0, 0);
    if (ring_of[cpu] >= 0)
      return 0;
    ring_of[cpu] = ring_of_cpu[cpu] = map_ring(fd, sampler_ring_data_bytes, 1, 1, 0);
    return ring_of[cpu] >= 0 ? 0 : -1;
  }
  ring_of[cpu] = map_ring(fd, sampler_ring_data_bytes, 0, 1, 0);
  return ring_of[cpu] >= 0 ? 0 : -1;
}

static void prepare(void)
{
  sampler_ring_data_bytes = ring_pages(cpu_count()) * (size_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < SAMPLER_MAX_CPUS; i++)
    ring_of_cpu[i] = switch_ring_of_cpu[i] = stack_ring_of_cpu[i] = -1;
}

/* The counters' events of PID on CPU, into the CPU's ring (after the
 * clock's, which made it).  A counter the kernel refuses is counted. */
static void open_counters(pid_t pid, int cpu, int from_exec)
{
  for (int i = 0; i < col_cfg.n_hwc; i++) {
    int fd = open_event_allowed(pid, cpu, from_exec, i);
    if (fd < 0) {
      if (errno != ESRCH) {
        figures.counters_refused++;
        figures.counter_errno = errno;
      }
      continue;
    }
    if (connect_output(fd, cpu, i) != 0 || remember_fd(fd) != 0) {
      figures.counters_refused++;
      figures.counter_errno = errno;
      close(fd);
      continue;
    }
    remember_counter_event(fd, i);
  }
}

/* Off-CPU stacks (collector profile offcpu): the switch sampling event of
 * PID on CPU, into the CPU's samples ring, where kernel samples are
 * allowed; a refusal is counted (the stacks are then not recorded). */
static void open_switch_stacks(pid_t pid, int cpu, int from_exec)
{
  if (!col_cfg.offcpu)
    return;
  if (sampler_exclude_kernel) {
    figures.switch_stacks_errno = EACCES;
    return;
  }
  int fd = open_event(pid, cpu, 0, from_exec, EVENT_SWITCH_STACKS);
  if (fd < 0) {
    if (errno != ESRCH)
      figures.switch_stacks_errno = errno;
    return;
  }
  if (connect_output(fd, cpu, EVENT_SWITCH_STACKS) != 0 || remember_fd(fd) != 0) {
    figures.switch_stacks_errno = errno;
    close(fd);
    return;
  }
  figures.switch_stacks_opened++;
  remember_switch_stack_event(fd);
}

/* FD, an event of KIND on CPU, into its ring and the list: 0, or -1 (FD
 * closed, *LAST_ERRNO set). */
static int keep_event(int fd, int cpu, int kind, int *last_errno)
{
  if (connect_output(fd, cpu, kind) != 0 || remember_fd(fd) != 0) {
    *last_errno = errno;
    close(fd);
    return -1;
  }
  return 0;
}

/* Opens PID's (a thread's) events on every CPU: its switches and records,
 * the clock's samples (unless counters alone), the counters; the number of
 * CPUs where the first opened.  An offline CPU refuses; so does a thread
 * that just ended (ESRCH). */
static int open_on_every_cpu(pid_t pid, int from_exec, int *last_errno)
{
  int opened = 0;
  for (int cpu = 0; cpu < cpu_count(); cpu++) {
    int fd = open_event_allowed(pid, cpu, from_exec, EVENT_SWITCHES);
    if (fd < 0) {
      *last_errno = errno;
      if (errno == ESRCH)
        return opened;
      continue;
    }
    if (keep_event(fd, cpu, EVENT_SWITCHES, last_errno) != 0)
      continue;
    if (col_cfg.clock_interval_us > 0) {
      fd = open_event_allowed(pid, cpu, from_exec, EVENT_CLOCK);
      if (fd < 0) {
        *last_errno = errno;
        continue;
      }
      if (keep_event(fd, cpu, EVENT_CLOCK, last_errno) != 0)
        continue;
    }
    open_counters(pid, cpu, from_exec);
    open_switch_stacks(pid, cpu, from_exec);
    opened++;
  }
  return opened;
}

/* The kernel swaps two threads' event contexts at a context switch when
 * they are equivalent (clones of one context, made at the same generation
 * of it): the sampling progress one thread made goes on in the other, whose
 * samples it becomes (measured under load: 0.1 s of a thread's 1.5 s
 * recorded in the other's).  An event added to and removed from that
 * context (THREAD's, the one the events were opened on) moves it to a new
 * generation, so the threads cloned before are no longer equivalent to it
 * or to those cloned after.  Called at each new thread; nothing counts. */
void sampler_events_split_contexts(pid_t thread)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &attr, thread, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0)
    close(fd);
}

int sampler_open_for_launch(pid_t pid, char *err, size_t err_len)
{
  int last_errno = 0;
  prepare();
  launched = pid;
  if (open_on_every_cpu(pid, 1, &last_errno) == 0) {
    snprintf(err, err_len, "the kernel refused clock sampling of process %d (perf_event_open: %s)", (int)pid,
             strerror(last_errno));
    return last_errno > 0 ? -last_errno : -1;
  }
  return 0;
}

/* ---- attach ----------------------------------------------------------------- */


static int known(pid_t tid)
{
  for (size_t i = 0; i < n_known; i++)
    if (known_tids[i] == tid)
      return 1;
  return 0;
}

int sampler_thread_owns_events(pid_t tid)
{
  return tid == launched || known(tid);
}

static void add_known(pid_t tid)
{
  if (room_for_one(&known_tids, &known_room, n_known, sizeof *known_tids, 256) != 0)
    return;
  known_tids[n_known++] = tid;
}

/* One pass over /proc/PID/task: events on every thread not seen before;
 * the number of new threads, -1 when the list cannot be read. */
static int attach_new_threads(pid_t pid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *dir = opendir(path);
  if (dir == NULL)
    return -1;
  int found = 0;
  struct dirent *d;
  while ((d = readdir(dir)) != NULL) {
    pid_t tid = (pid_t)atoi(d->d_name);
    if (tid <= 0 || known(tid))
      continue;
    add_known(tid);
    found++;
    int err = 0;
    if (open_on_every_cpu(tid, 0, &err) > 0) {
      figures.attached_threads++;
    } else if (err != ESRCH) {
      figures.unattached_threads++;
      figures.attach_errno = err;
    }
  }
  closedir(dir);
  return found;
}

/* Each attached thread costs the sampler one descriptor per CPU: use the
 * whole allowance the system gives. */
static void raise_descriptor_limit(void)
{
  struct rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

int sampler_open_for_attach(pid_t pid, char *err, size_t err_len)
{
  prepare();
  raise_descriptor_limit();
  int passes = 0, found;
  while ((found = attach_new_threads(pid)) > 0 && ++passes < 100)
    ;
  if (found < 0 && n_known == 0) {
    snprintf(err, err_len, "cannot list the threads of process %d: %s", (int)pid, strerror(errno));
    return -1;
  }
  if (figures.attached_threads == 0) {
    snprintf(err, err_len, "the kernel refused clock sampling of process %d (perf_event_open: %s)", (int)pid,
             strerror(figures.attach_errno ? figures.attach_errno : ESRCH));
    return figures.attach_errno ? -figures.attach_errno : -ESRCH;
  }
  return 0;
}

void sampler_events_enable(int enabled)
{
  for (size_t i = 0; i < n_event_fds; i++)
    ioctl(event_fds[i], enabled ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void sampler_events_forget(void)
{
  for (int i = 0; i < sampler_n_rings; i++)
    munmap(sampler_rings[i].ring, sampler_rings[i].bytes);
  for (size_t i = 0; i < n_event_fds; i++)
    close(event_fds[i]);
  sampler_n_rings = 0;
  n_event_fds = 0;
  n_counter_events = 0;
}

void sampler_events_watch(int epoll_fd)
{
  for (int i = 0; i < sampler_n_rings; i++) {
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = sampler_rings[i].fd};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, sampler_rings[i].fd, &ev);
  }
}
