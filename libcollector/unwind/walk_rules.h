/* The cached-rule walk over a stack (a copy, or the calling thread's live
 * stack), inline so that each caller's rule lookup is inlined into it: the
 * sampler's walk (unwind_walk.c) and the walk a program thread makes of its
 * own stack when it records a traced call (trace_record.c), where it runs
 * at malloc rates. */
#ifndef GDBCOL_WALK_RULES_H
#define GDBCOL_WALK_RULES_H

#include <asm/perf_regs.h>
#include <string.h>

#include "core/capture.h"
#include "unwind/unwind.h"
#include "er/er_format.h"

enum col_walk_result { COL_WALK_NEEDS_LIBUNWIND, COL_WALK_DONE };

/* The word at ADDR of CAP's stack: 1; 0 beyond the stack's end (within 8
 * MiB of its start: deeper than the copy); -1 elsewhere. */
static inline __attribute__((always_inline)) int col_stack_word(const struct col_capture *cap, uint64_t addr,
                                                                uint64_t *value)
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

/* Follows RULES frame by frame over CAP's stack (a copy, or the live stack
 * of the calling thread: every read is bounded by CAP's stack). */
static inline __attribute__((always_inline)) enum col_walk_result
col_walk_with_rules(const struct col_capture *cap, col_rule_source rules, void *arg, uint64_t *pcs, size_t max,
                    size_t *count)
{
  uint64_t pc = cap->regs.r[PERF_REG_X86_IP], sp = cap->regs.r[PERF_REG_X86_SP];
  uint64_t bp = cap->regs.r[PERF_REG_X86_BP];
  int bp_known = 1;
  size_t n = 0;
  pcs[n++] = pc;
  uint64_t lookup = pc; /* the leaf's own PC, then each call site */
  for (;;) {
    struct col_frame_rule found;
    const struct col_frame_rule *rule = &found;
    if (!rules(lookup, &found, arg))
      return COL_WALK_NEEDS_LIBUNWIND;
    if (rule->kind == COL_RULE_OUTERMOST)
      break;
    *count = n; /* what a walk that stops here found */
    if (rule->kind != COL_RULE_SIMPLE || (rule->cfa_base == COL_CFA_FROM_BP && !bp_known))
      return COL_WALK_NEEDS_LIBUNWIND;
    uint64_t cfa = (rule->cfa_base == COL_CFA_FROM_SP ? sp : bp) + (int64_t)rule->cfa_offset;
    if (cfa <= sp)
      return COL_WALK_NEEDS_LIBUNWIND; /* frames must move up the stack */
    uint64_t ra;
    int got = col_stack_word(cap, cfa - 8, &ra);
    if (got == 0) {
      pcs[n++] = ER_PC_TRUNCATED; /* deeper than the copy */
      break;
    }
    if (got < 0)
      return COL_WALK_NEEDS_LIBUNWIND;
    if (rule->bp == COL_BP_LOST)
      bp_known = 0;
    else if (rule->bp == COL_BP_SAVED)
      bp_known = col_stack_word(cap, cfa + (int64_t)rule->bp_offset, &bp) == 1;
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
  return COL_WALK_DONE;
}

#endif
