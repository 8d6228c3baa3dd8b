/* Counters this user may count here, asked of the kernel. */
#define _GNU_SOURCE
#include <errno.h>
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

static void paranoid_level(char *out, size_t len)
{
  snprintf(out, len, "unknown");
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
  if (f == NULL)
    return;
  int level;
  if (fscanf(f, "%d", &level) == 1)
    snprintf(out, len, "%d", level);
  fclose(f);
}

int er_hwc_check_access(const struct er_hwc_resolved *r, char *err, size_t err_len)
{
  int refused = try_open(r, 0);
  if (refused == 0)
    return 0;
  char level[16];
  paranoid_level(level, sizeof level);
  if (refused == EACCES || refused == EPERM) {
    int user_mode = try_open(r, 1);
    if (user_mode == 0 && !er_hwc_kernel_only(r->perf_type, r->perf_config))
      return 0; /* counted in user mode, as the sampler will */
    if (user_mode == 0) {
      snprintf(err, err_len, "counter \"%s\" counts events inside the kernel only, and this user may count user "
               "mode only here (kernel.perf_event_paranoid is %s): it would always count 0. To count it: sudo "
               "sysctl kernel.perf_event_paranoid=1, or run GDB with CAP_PERFMON", r->name, level);
      return -1;
    }
    if (user_mode == EACCES || user_mode == EPERM) {
      int above_two = strcmp(level, "unknown") != 0 && level[0] != '-' && strcmp(level, "2") > 0;
      snprintf(err, err_len, "counter \"%s\" cannot be recorded: this user may not open perf events here "
               "(perf_event_open: %s; kernel.perf_event_paranoid is %s), and counters need them. To count: %s",
               r->name, strerror(user_mode), level,
               above_two ? "sudo sysctl kernel.perf_event_paranoid=2, or run GDB with CAP_PERFMON"
                         : "something other than kernel.perf_event_paranoid refuses them (a seccomp filter, a "
                           "container's policy or a security module): allow perf_event_open there");
      return -1;
    }
    refused = user_mode;
  }
  snprintf(err, err_len, "counter \"%s\" cannot be counted by this machine's kernel (perf_event_open: %s)", r->name,
           strerror(refused));
  return -1;
}
