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
#include "unwind/walk_memo.h"
#include "er/er_format.h"

enum col_walk_result { COL_WALK_NEEDS_LIBUNWIND, COL_WALK_DONE };

/* Where the kernel's x86_64 signal frame keeps the interrupted registers,
 * from the frame's SP as the trampoline sees it (its struct ucontext:
 * uc_mcontext at 40, then the registers in <sys/ucontext.h>'s order). */
#define COL_UC_RBP (40 + 10 * 8)
#define COL_UC_RBX (40 + 11 * 8)
#define COL_UC_RSP (40 + 15 * 8)
#define COL_UC_RIP (40 + 16 * 8)

/* A capture whose RBP is not known (a blocked thread read from outside
 * gives its PC and SP only): where a frame's CFA is RBP-based and no frame
 * below saved RBP, FIND guesses the frame's RBP (unwind.h's col_bp_finder). */
struct col_bp_guess {
  col_bp_finder find;
  void *arg;
};

static inline __attribute__((always_inline)) enum col_walk_result
col_walk_core(const struct col_capture *cap, col_rule_source rules, void *arg, uint64_t *pcs, size_t max,
              size_t *count, struct col_walk_memo *memo, const struct col_bp_guess *guess, int *chain_ended);

/* Follows RULES frame by frame over CAP's stack (a copy, or the live stack
 * of the calling thread: every read is bounded by CAP's stack).  MEMO
 * (NULL: none) is the calling thread's last walk of its own stack: used,
 * then replaced by this one. */
static inline __attribute__((always_inline)) enum col_walk_result
col_walk_with_rules(const struct col_capture *cap, col_rule_source rules, void *arg, uint64_t *pcs, size_t max,
                    size_t *count, struct col_walk_memo *memo)
{
  return col_walk_core(cap, rules, arg, pcs, max, count, memo, NULL, NULL);
}

static inline __attribute__((always_inline)) enum col_walk_result
col_walk_core(const struct col_capture *cap, col_rule_source rules, void *arg, uint64_t *pcs, size_t max,
              size_t *count, struct col_walk_memo *memo, const struct col_bp_guess *guess, int *chain_ended)
{
  uint64_t pc = cap->regs.r[PERF_REG_X86_IP], sp = cap->regs.r[PERF_REG_X86_SP];
  uint64_t bp = cap->regs.r[PERF_REG_X86_BP];
  int bp_known = guess == NULL;
  /* RBX, for the rare frame whose CFA is RBX-based: where the current
   * frame's value is (in BX, or in the stack at BX_SLOT where a frame
   * below saved it), read only when such a frame needs it.  A capture
   * without it (0: a traced call's registers) has it unknown. */
  uint64_t bx = cap->regs.r[PERF_REG_X86_BX], bx_slot = 0;
  enum { BX_VALUE, BX_IN_SLOT, BX_UNKNOWN } bx_where = bx != 0 ? BX_VALUE : BX_UNKNOWN;
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
    if (rule->kind == COL_RULE_AFTER_CLONE) {
      /* (only the sampled PC itself can be there: no call is) */
      if (n == 1 && cap->regs.r[PERF_REG_X86_AX] == 0) {
        end = COL_WALK_END_OUTERMOST; /* the new thread's first instructions */
        break;
      }
      found = (struct col_frame_rule){COL_RULE_SIMPLE, COL_CFA_FROM_SP, COL_BP_SAME, COL_BP_SAME, 8, 0, 0};
      rule = &found; /* the parent: a leaf about to return */
    }
    if (rule->kind == COL_RULE_OUTERMOST) {
      end = COL_WALK_END_OUTERMOST;
      break;
    }
    *count = n; /* what a walk that stops here found */
    if (rule->kind == COL_RULE_SIGNAL) {
      /* A signal handler's caller: the code the signal interrupted, its
       * registers saved by the kernel (every sample in synprog's handlers
       * ended here under <Stack-unwind-failed>, 3.3 s).  Its PC is the
       * interrupted instruction itself, not a return address. */
      uint64_t rip = 0, rsp = 0;
      int got_ip = col_stack_word(cap, sp + COL_UC_RIP, &rip), got_sp = col_stack_word(cap, sp + COL_UC_RSP, &rsp);
      if (got_ip == 0 || got_sp == 0) {
        pcs[n++] = ER_PC_TRUNCATED; /* deeper than the copy */
        end = COL_WALK_END_STACK;
        end_at = sp + COL_UC_RIP;
        unkept = 1;
        break;
      }
      if (got_ip < 0 || got_sp < 0 || rip == 0 || rsp <= sp)
        return COL_WALK_NEEDS_LIBUNWIND; /* (an alternate signal stack: the interrupted one is elsewhere) */
      bp_known = col_stack_word(cap, sp + COL_UC_RBP, &bp) == 1;
      bx_where = BX_IN_SLOT;
      bx_slot = sp + COL_UC_RBX;
      unkept = 1; /* the memo's checks assume return addresses */
      if (n == max - 1) {
        pcs[n++] = ER_PC_TRUNCATED;
        break;
      }
      pcs[n++] = rip;
      lookup = rip;
      sp = rsp;
      continue;
    }
    if (rule->kind != COL_RULE_SIMPLE && rule->kind != COL_RULE_FRAME_CHAIN)
      return COL_WALK_NEEDS_LIBUNWIND;
    if (rule->cfa_base == COL_CFA_FROM_BP && !bp_known) {
      if (guess == NULL || !guess->find(lookup, sp, rule, cap, &bp, guess->arg))
        return COL_WALK_NEEDS_LIBUNWIND;
      bp_known = 1;
      unkept = 1; /* the memo cannot describe what the guess read */
    }
    if (rule->cfa_base == COL_CFA_FROM_BX) {
      if (bx_where == BX_IN_SLOT && col_stack_word(cap, bx_slot, &bx) == 1)
        bx_where = BX_VALUE;
      if (bx_where != BX_VALUE)
        return COL_WALK_NEEDS_LIBUNWIND;
      unkept = 1; /* the memo describes RBP-based frames only */
    }
    if (rule->cfa_base == COL_CFA_FROM_BP && bp == 0) {
      /* The end of a frame-pointer chain (a Go goroutine's first frame,
       * walked by frame pointers: its code has no unwind tables) */
      end = COL_WALK_END_ZERO;
      end_at = sp;
      break;
    }
    uint64_t cfa = (rule->cfa_base == COL_CFA_FROM_SP   ? sp
                    : rule->cfa_base == COL_CFA_FROM_BP ? bp
                                                        : bx) +
                   (int64_t)rule->cfa_offset;
    if (rule->bx == COL_BP_SAVED) { /* the caller's RBX: where this frame saved it */
      bx_where = BX_IN_SLOT;
      bx_slot = cfa + (int64_t)rule->bx_offset;
    } else if (rule->bx == COL_BP_LOST) {
      bx_where = BX_UNKNOWN;
    }
    uint64_t ra;
    int got = cfa <= sp ? -1 : col_stack_word(cap, cfa - 8, &ra); /* (frames must move up the stack) */
    if (got < 0 && rule->kind == COL_RULE_FRAME_CHAIN) {
      /* A frame-pointer chain that leaves the stack: its end (no unwind
       * tables tell otherwise), counted by CHAIN_ENDED. */
      if (chain_ended != NULL)
        *chain_ended = 1;
      end = COL_WALK_END_OUTERMOST;
      unkept = 1; /* the memo's ends are checked by what they read */
      break;
    }
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
    else if (rule->bp == COL_BP_SAVED && cfa + (int64_t)rule->bp_offset < sp) {
      /* The slot is below SP: the function has popped RBP already, in an
       * epilogue its CFI does not describe (glibc's pthread_mutex_trylock
       * at its `ret`: 1.4 s of mttest's samples under
       * <Stack-unwind-failed>).  RBP holds the caller's value again. */
      unkept = 1;
    } else if (rule->bp == COL_BP_SAVED) {
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
