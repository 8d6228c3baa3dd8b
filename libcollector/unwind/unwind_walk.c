/* Walking a captured stack: the cached-rule fast path, libunwind otherwise.
 *
 * libunwind costs tens of microseconds per sample here, most of it in the
 * signal-mask system calls its global cache lock makes at every step (the
 * distribution's build has no per-thread cache).  With one sampler thread
 * walking thousands of stacks a second, that was the runtime's main cost.
 * The fast path follows the frame rules of unwind_rules.c over the stack
 * copy and gives the same call stack; any frame it cannot follow hands the
 * whole sample to libunwind.  GDBCOL_UNWIND_CHECK=1 runs both on every
 * sample and counts disagreements (the tests use it). */
#include <asm/perf_regs.h>
#include <string.h>

#include "collector_internal.h"
#include "er/er_format.h"

struct col_unwind_stats col_unwind_stats;
static int check_both;

void col_unwind_check_mode(int enabled)
{
  check_both = enabled;
}

int col_capture_read_stack(const struct col_capture *cap, uint64_t addr, uint64_t *value)
{
  uint64_t sp = cap->regs.r[PERF_REG_X86_SP];
  if (addr < sp)
    return -1;
  if (addr - sp + sizeof *value <= cap->stack_len) {
    memcpy(value, cap->stack + (addr - sp), sizeof *value);
    return 1;
  }
  return addr - sp < 8u * 1024 * 1024 ? 0 : -1;
}

enum walk_result { WALK_DONE, WALK_NEEDS_LIBUNWIND };

static enum walk_result walk_with_rules(const struct col_capture *cap, uint64_t *pcs, size_t max, size_t *count)
{
  uint64_t pc = cap->regs.r[PERF_REG_X86_IP], sp = cap->regs.r[PERF_REG_X86_SP];
  uint64_t bp = cap->regs.r[PERF_REG_X86_BP];
  int bp_known = 1;
  size_t n = 0;
  pcs[n++] = pc;
  uint64_t lookup = pc; /* the leaf's own PC, then each call site */
  for (;;) {
    const struct col_frame_rule *rule = col_frame_rule_for(lookup);
    if (rule->kind == COL_RULE_OUTERMOST)
      break;
    *count = n; /* what a walk that stops here found */
    if (rule->kind != COL_RULE_SIMPLE || (rule->cfa_base == COL_CFA_FROM_BP && !bp_known))
      return WALK_NEEDS_LIBUNWIND;
    uint64_t cfa = (rule->cfa_base == COL_CFA_FROM_SP ? sp : bp) + (int64_t)rule->cfa_offset;
    if (cfa <= sp)
      return WALK_NEEDS_LIBUNWIND; /* frames must move up the stack */
    uint64_t ra;
    int got = col_capture_read_stack(cap, cfa - 8, &ra);
    if (got == 0) {
      pcs[n++] = ER_PC_TRUNCATED; /* deeper than the copy */
      break;
    }
    if (got < 0)
      return WALK_NEEDS_LIBUNWIND;
    if (rule->bp == COL_BP_LOST)
      bp_known = 0;
    else if (rule->bp == COL_BP_SAVED)
      bp_known = col_capture_read_stack(cap, cfa + (int64_t)rule->bp_offset, &bp) == 1;
    if (ra == 0)
      break;
    if (n == max - 1) {
      pcs[n++] = ER_PC_TRUNCATED;
      break;
    }
    /* A return address points after the call; the call is one byte back
     * (what gprofng stores, and what resolves to the caller's line). */
    pcs[n++] = ra - 1;
    lookup = ra - 1;
    sp = cfa;
  }
  *count = n;
  return WALK_DONE;
}

size_t col_unwind(const struct col_capture *cap, uint64_t *pcs, size_t max)
{
  size_t n = 0;
  if (walk_with_rules(cap, pcs, max, &n) != WALK_DONE) {
    if (col_target_pid != 0) {
      /* Another process: libunwind would read its unwind tables from our
       * own memory.  The frames found so far, then the marker. */
      col_unwind_stats.stopped++;
      pcs[n < max ? n++ : max - 1] = ER_PC_UNWIND_FAILED;
      return n;
    }
    col_unwind_stats.by_libunwind++;
    return col_unwind_libunwind(cap, pcs, max);
  }
  col_unwind_stats.by_rules++;
  if (check_both) {
    uint64_t other[ER_MAX_STACK_DEPTH + 1];
    size_t m = col_unwind_libunwind(cap, other, max < ER_MAX_STACK_DEPTH + 1 ? max : ER_MAX_STACK_DEPTH + 1);
    if (m != n || memcmp(other, pcs, n * sizeof *pcs) != 0)
      col_unwind_stats.disagreements++;
  }
  return n;
}
