/* The counter list of `collector hwprofile counter DEF[,DEF...]`
 * (collector-commands.md): parsed and checked here, shared by the GDB
 * plugin (which validates and shows it) and the runtime (which will
 * program the counters).
 *
 * DEF is [+]name[~attr=value]...[/register] followed, after a comma or a
 * space, by an optional interval: on (the default rate), hi (about 10 times
 * more often), lo (about 10 times less often), or a positive number,
 * decimal or 0x hexadecimal.  "cycles,on,insts" is two counters. */
#ifndef ER_HWC_SPEC_H
#define ER_HWC_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define ER_HWC_MAX_COUNTERS 16
#define ER_HWC_MAX_ATTRS 8
#define ER_HWC_MAX_REGISTER 63

enum er_hwc_rate { ER_HWC_RATE_ON, ER_HWC_RATE_HI, ER_HWC_RATE_LO, ER_HWC_RATE_VALUE };

struct er_hwc_counter {
  char name[64];
  int backtrack; /* '+': find the memory-referencing instruction */
  int reg;       /* -1: any register */
  int n_attrs;
  struct {
    char name[32];
    uint64_t value;
  } attrs[ER_HWC_MAX_ATTRS];
  enum er_hwc_rate rate;
  uint64_t interval; /* events per overflow when rate is ER_HWC_RATE_VALUE */
};

struct er_hwc_spec {
  int n;
  struct er_hwc_counter counters[ER_HWC_MAX_COUNTERS];
};

/* Returns 0, or -1 with a message in ERR that names the offending part. */
int er_parse_hwc_spec(const char *text, struct er_hwc_spec *spec, char *err, size_t err_len);
/* The canonical form, every interval spelled out ("cycles,on,insts,on"). */
int er_format_hwc_spec(const struct er_hwc_spec *spec, char *out, size_t out_len);

#endif
