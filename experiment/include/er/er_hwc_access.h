/* Whether this user may count a counter here, asked of the kernel (GDB's
 * side, before a run): a perf_event_open of the encoded event, not a
 * guess from the machine's CPU model or PAPI's component flags. */
#ifndef ER_HWC_ACCESS_H
#define ER_HWC_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_hwc_events.h"

/* Nonzero for software events the kernel only raises in kernel context
 * (context switches, CPU migrations): counted in user mode only, they are
 * always 0. */
int er_hwc_kernel_only(uint32_t perf_type, uint64_t perf_config);
/* 0 when this process's user may count R as the sampler will (kernel mode
 * where allowed, else user mode), or -1 with why not and how to get it in
 * ERR: perf events refused altogether, a kernel-only event where only user
 * mode is allowed, or an event the kernel cannot count. */
int er_hwc_check_access(const struct er_hwc_resolved *r, char *err, size_t err_len);
/* How a user gets perf events up to kernel.perf_event_paranoid
 * NEEDED_LEVEL (2: user mode, 1: kernel too) here, as advice in OUT: the
 * sysctl where paranoid is higher, else what else refuses them. */
void er_perf_access_hint(int needed_level, char *out, size_t len);

#endif
