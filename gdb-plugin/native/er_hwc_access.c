/* Counters this user may count here, asked of the kernel. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "er/er_hwc_access.h"

int er_hwc_kernel_only(uint32_t perf_type, uint64_t perf_config)
{
  return perf_type == PERF_TYPE_SOFTWARE &&
         (perf_config == PERF_COUNT_SW_CONTEXT_SWITCHES || perf_config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/* The event on this thread, opened disabled and closed: 0 or an errno. */
static int try_open(const struct er_hwc_resolved *r, int exclude_kernel)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = r->perf_type;
  attr.config = r->perf_config;
  attr.config1 = r->perf_config1;
  attr.config2 = r->perf_config2;
  attr.disabled = 1;
  attr.exclude_hv = 1;
  attr.exclude_kernel = (unsigned)exclude_kernel;
  int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return errno;
  close(fd);
  return 0;
}

/* kernel.perf_event_paranoid, or INT_MIN when it cannot be read. */
static int paranoid_level(void)
{
  int level = INT_MIN;
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
  if (f == NULL)
    return level;
  if (fscanf(f, "%d", &level) != 1)
    level = INT_MIN;
  fclose(f);
  return level;
}

void er_perf_access_hint(int needed_level, char *out, size_t len)
{
  int level = paranoid_level();
  if (level > needed_level)
    snprintf(out, len, "sudo sysctl kernel.perf_event_paranoid=%d, or run GDB with CAP_PERFMON", needed_level);
  else
    snprintf(out, len, "something other than kernel.perf_event_paranoid refuses them (a seccomp filter, a "
             "container's policy or a security module): allow perf_event_open there");
}

int er_hwc_check_access(const struct er_hwc_resolved *r, char *err, size_t err_len)
{
  int refused = try_open(r, 0);
  if (refused == 0)
    return 0;
  int level = paranoid_level();
  char hint[256];
  if (refused == EACCES || refused == EPERM) {
    int user_mode = try_open(r, 1);
    if (user_mode == 0 && !er_hwc_kernel_only(r->perf_type, r->perf_config))
      return 0; /* counted in user mode, as the sampler will */
    if (user_mode == 0) {
      er_perf_access_hint(1, hint, sizeof hint);
      snprintf(err, err_len, "counter \"%s\" counts events inside the kernel only, and this user may count user "
               "mode only here (kernel.perf_event_paranoid is %d): it would always count 0. To count it: %s",
               r->name, level, hint);
      return -1;
    }
    if (user_mode == EACCES || user_mode == EPERM) {
      er_perf_access_hint(2, hint, sizeof hint);
      snprintf(err, err_len, "counter \"%s\" cannot be recorded: this user may not open perf events here "
               "(perf_event_open: %s; kernel.perf_event_paranoid is %d), and counters need them. To count: %s",
               r->name, strerror(user_mode), level, hint);
      return -1;
    }
    refused = user_mode;
  }
  snprintf(err, err_len, "counter \"%s\" cannot be counted by this machine's kernel (perf_event_open: %s)", r->name,
           strerror(refused));
  return -1;
}
