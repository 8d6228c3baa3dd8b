/* A thread's last walk of its own stack (struct col_walk_memo) and the
 * check that lets the next walk take its outer frames from it; the stack
 * reads both walks make.  Inline: walk_rules.h's walk runs at malloc rates. */
#ifndef GDBCOL_WALK_MEMO_H
#define GDBCOL_WALK_MEMO_H

#include <asm/perf_regs.h>
#include <string.h>

#include "core/capture.h"
#include "er/er_format.h"

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
  /* Each frame is copied as it is checked (a failed check leaves PCS past N
   * unspecified): a separate copy of a few words costs more than it moves. */
  uint64_t *out = pcs + n;
  for (uint32_t k = j; k + 1 < memo->frames; k++) {
    const struct col_walk_frame *here = &memo->f[k], *caller = &memo->f[k + 1];
    uint64_t pc = memo->pc[k + 1];
    memcpy(&word, base + caller->sp - 8, sizeof word);
    if (word != pc + 1)
      return 0;
    *out++ = pc;
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
  n += memo->frames - 1 - j;
  if (memo->end == COL_WALK_END_STACK)
    pcs[n++] = ER_PC_TRUNCATED;
  *count = n;
  return 1;
}

#endif
