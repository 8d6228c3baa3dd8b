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

/* A thread's last walk of its own stack, kept to shorten its next one.
 * Each frame's state (its lookup PC, SP, RBP and whether RBP is known)
 * and where the walk read its caller's RBP.  A new walk that reaches a
 * frame in the same state as frame J of the last one, and finds every
 * stack word the last walk read from there on unchanged, would compute
 * the same frames from the same rules and words: it takes them from here
 * (a loop's caller chain, called again and again at the same depth, is
 * then walked once).  Exact: nothing is assumed that is not re-read. */
#define COL_WALK_MEMO_FRAMES 64
enum col_walk_end { COL_WALK_END_NONE, COL_WALK_END_OUTERMOST, COL_WALK_END_ZERO, COL_WALK_END_STACK };
#define COL_WALK_BP_KNOWN 1u /* in bp_read: RBP was known in this frame */
struct col_walk_memo {
  uint32_t frames;  /* frames kept, leaf first; 0: none */
  uint32_t end;     /* enum col_walk_end: how that walk ended */
  uint64_t end_at;  /* END_ZERO, END_STACK: the address of the word read last */
  uint64_t highest; /* the highest address any of its reads began at */
  uint64_t pc[COL_WALK_MEMO_FRAMES]; /* each frame's lookup PC: the walk's result, as returned */
  struct col_walk_frame {
    uint64_t sp, bp;
    uint64_t bp_read; /* where the caller's RBP was read (0: not read), | the flags above */
  } f[COL_WALK_MEMO_FRAMES];
};

/* The frames of MEMO from J on, when every word the walk read from frame J
 * outward is what it was: 1 (PCS[N..] filled, *COUNT set), else 0. */
static inline __attribute__((always_inline)) int col_walk_reuse(const struct col_capture *cap,
                                                                const struct col_walk_memo *memo, uint32_t j,
                                                                uint64_t *pcs, size_t n, size_t max, size_t *count)
{
  size_t total = n + (memo->frames - 1 - j);
  if (total > max - 1)
    return 0; /* the walk would stop at MAX first */
  /* Every read from frame J outward lies above its SP (this SP) and at or
   * below HIGHEST: inside the stack when HIGHEST is. */
  uint64_t word, sp = cap->regs.r[PERF_REG_X86_SP];
  if (memo->highest < sp || memo->highest - sp + sizeof word > cap->stack_len)
    return 0;
  const unsigned char *base = cap->stack - sp;
  for (uint32_t k = j; k + 1 < memo->frames; k++) {
    const struct col_walk_frame *here = &memo->f[k], *caller = &memo->f[k + 1];
    memcpy(&word, base + caller->sp - 8, sizeof word);
    if (word != memo->pc[k + 1] + 1)
      return 0;
    uint64_t at = here->bp_read & ~(uint64_t)7;
    if (at != 0) {
      memcpy(&word, base + at, sizeof word);
      if (word != caller->bp)
        return 0;
    }
  }
  if (memo->end == COL_WALK_END_ZERO && (col_stack_word(cap, memo->end_at, &word) != 1 || word != 0))
    return 0;
  if (memo->end == COL_WALK_END_STACK && col_stack_word(cap, memo->end_at, &word) != 0)
    return 0;
  memcpy(pcs + n, memo->pc + j + 1, (memo->frames - 1 - j) * sizeof *pcs);
  n += memo->frames - 1 - j;
  if (memo->end == COL_WALK_END_STACK)
    pcs[n++] = ER_PC_TRUNCATED;
  *count = n;
  return 1;
}

/* Follows RULES frame by frame over CAP's stack (a copy, or the live stack
 * of the calling thread: every read is bounded by CAP's stack).  MEMO
 * (NULL: none) is the calling thread's last walk of its own stack: used,
 * then replaced by this one. */
static inline __attribute__((always_inline)) enum col_walk_result
col_walk_with_rules(const struct col_capture *cap, col_rule_source rules, void *arg, uint64_t *pcs, size_t max,
                    size_t *count, struct col_walk_memo *memo)
{
  uint64_t pc = cap->regs.r[PERF_REG_X86_IP], sp = cap->regs.r[PERF_REG_X86_SP];
  uint64_t bp = cap->regs.r[PERF_REG_X86_BP];
  int bp_known = 1;
  size_t n = 0;
  pcs[n++] = pc;
  uint64_t lookup = pc; /* the leaf's own PC, then each call site */
  /* This walk's frames before it met the last walk's (MEMO): their state. */
  struct {
    uint64_t sp, bp, bp_read;
  } fresh[COL_WALK_MEMO_FRAMES];
  uint32_t cursor = 0, met = UINT32_MAX;
  uint64_t highest = 0; /* the highest address this walk read at */
  int unkept = 0; /* a read the memo cannot describe: this walk is not kept */
  enum col_walk_end end = COL_WALK_END_NONE;
  uint64_t end_at = 0;
  for (;;) {
    if (memo != NULL && n <= COL_WALK_MEMO_FRAMES) {
      /* The last walk's frames at or above this SP (SPs grow outward). */
      while (cursor < memo->frames && memo->f[cursor].sp < sp)
        cursor++;
      if (cursor < memo->frames && memo->f[cursor].sp == sp && memo->pc[cursor] == lookup &&
          (memo->f[cursor].bp_read & COL_WALK_BP_KNOWN) == (bp_known ? COL_WALK_BP_KNOWN : 0) &&
          (!bp_known || memo->f[cursor].bp == bp) && col_walk_reuse(cap, memo, cursor, pcs, n, max, count)) {
        met = cursor;
        break;
      }
      fresh[n - 1].sp = sp;
      fresh[n - 1].bp = bp;
      fresh[n - 1].bp_read = bp_known ? COL_WALK_BP_KNOWN : 0;
    }
    struct col_frame_rule found;
    const struct col_frame_rule *rule = &found;
    if (!rules(lookup, &found, arg))
      return COL_WALK_NEEDS_LIBUNWIND;
    if (rule->kind == COL_RULE_OUTERMOST) {
      end = COL_WALK_END_OUTERMOST;
      break;
    }
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
      end = COL_WALK_END_STACK;
      end_at = cfa - 8;
      break;
    }
    if (got < 0)
      return COL_WALK_NEEDS_LIBUNWIND;
    highest = cfa - 8 > highest ? cfa - 8 : highest;
    if (rule->bp == COL_BP_LOST)
      bp_known = 0;
    else if (rule->bp == COL_BP_SAVED) {
      uint64_t at = cfa + (int64_t)rule->bp_offset;
      bp_known = col_stack_word(cap, at, &bp) == 1;
      if (memo != NULL && n <= COL_WALK_MEMO_FRAMES) {
        fresh[n - 1].bp_read |= at;
        highest = at > highest ? at : highest;
        /* The flags live in its low bits; a read that failed is not re-read. */
        unkept |= (at & 7) != 0 || at < sp || !bp_known;
      }
    }
    if (ra == 0) {
      end = COL_WALK_END_ZERO;
      end_at = cfa - 8;
      break;
    }
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
  if (memo != NULL) {
    /* This walk becomes the last one: its own frames, then those it took
     * from the last walk (moved to their depth in this one). */
    size_t own = met != UINT32_MAX ? n - 1 : n - (end == COL_WALK_END_STACK);
    size_t kept = met != UINT32_MAX ? memo->frames - met : 0;
    if ((end == COL_WALK_END_NONE && met == UINT32_MAX) || own + kept > COL_WALK_MEMO_FRAMES || unkept) {
      memo->frames = 0;
    } else {
      if (met != UINT32_MAX && met != own) {
        memmove(&memo->f[own], &memo->f[met], kept * sizeof memo->f[0]);
        memmove(&memo->pc[own], &memo->pc[met], kept * sizeof memo->pc[0]);
      }
      for (size_t k = 0; k < own; k++) {
        memo->pc[k] = pcs[k];
        memo->f[k].sp = fresh[k].sp;
        memo->f[k].bp = fresh[k].bp;
        memo->f[k].bp_read = fresh[k].bp_read;
      }
      if (met == UINT32_MAX) {
        memo->end = end;
        memo->end_at = end_at;
        memo->highest = highest; /* (an END_STACK word is beyond the stack: checked on its own) */
      } else if (highest > memo->highest) {
        memo->highest = highest;
      }
      memo->frames = (uint32_t)(own + kept);
    }
    if (met != UINT32_MAX)
      return COL_WALK_DONE; /* *COUNT set by col_walk_reuse */
  }
  *count = n;
  return COL_WALK_DONE;
}

#endif
