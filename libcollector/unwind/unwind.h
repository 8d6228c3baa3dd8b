/* Unwinding a capture into a call stack: cached frame rules first,
 * libunwind for what they cannot follow. */
#ifndef COL_UNWIND_UNWIND_H
#define COL_UNWIND_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/capture.h"

/* Unwinds CAP into PCS (leaf first; callers as call-site addresses).  Adds
 * the truncated or unwind-failed marker when the walk ends early.  Cached
 * frame rules first, libunwind for what they cannot follow. */
size_t col_unwind(const struct col_capture *cap, uint64_t *pcs, size_t max);
/* The same, left out of the walks' figures (stacks that are mostly not
 * written: where threads left their CPU, for off-CPU time). */
size_t col_unwind_uncounted(const struct col_capture *cap, uint64_t *pcs, size_t max);
/* Nonzero: also unwind every sample with libunwind and count disagreements. */
void col_unwind_check_mode(int enabled);
struct col_unwind_stats {
  uint64_t by_rules, by_libunwind, disagreements;
  uint64_t truncated; /* stacks cut where the stack copy ended */
  uint64_t truncated_depth; /* stacks cut at the frame limit (col_cfg.max_frames) */
  uint64_t stopped; /* another process's stacks the rules could not finish */
  /* Stacks that reached the copy's end, walked on in the live stack
   * (stack_beyond_copy.c): done; left cut because the thread had moved
   * on from those frames; left cut because its memory was not readable. */
  uint64_t beyond_copy, beyond_moved_on, beyond_unreadable;
  /* Stacks walked by frame pointers (code with no unwind tables) whose
   * chain left the stack: ended there. */
  uint64_t chain_ended;
};
/* The walks' figures so far (for the status and log.xml), and a new start. */
void col_unwind_describe(struct col_unwind_stats *out);
void col_unwind_reset_stats(void);

/* How to find the caller's frame from one code address (x86_64). */
/* SIGNAL: the kernel's signal frame (a trampoline whose CFI is marked as
 * one: glibc's __restore_rt): the interrupted registers are in the
 * ucontext at the frame's SP. */
/* FRAME_CHAIN: code with no call frame information at all, walked by its
 * frame pointers (RBP-based, as SIMPLE): where the chain leaves the stack
 * (a thread's first function set up no frame: a stripped Go program's
 * runtime.mstart), the walk ends there, as perf's fp mode does, counted. */
/* AFTER_CLONE: clone()'s or clone3()'s instructions between the system
 * call and the child's own CFI, which glibc leaves without CFI: the child
 * (RAX 0) is at its thread's outermost frame, the parent about to return
 * (its return address at SP). */
enum col_rule_kind {
  COL_RULE_COMPLEX,
  COL_RULE_SIMPLE,
  COL_RULE_OUTERMOST,
  COL_RULE_SIGNAL,
  COL_RULE_AFTER_CLONE,
  COL_RULE_FRAME_CHAIN
};
/* FROM_BX: the dynamic linker's lazy-binding trampolines realign the
 * stack and keep their frame in RBX (every sample under _dl_fixup was
 * <Stack-unwind-failed>: most of an Open MPI 5 rank's start-up). */
enum col_cfa_base { COL_CFA_FROM_SP, COL_CFA_FROM_BP, COL_CFA_FROM_BX };
enum col_bp_rule { COL_BP_SAME, COL_BP_SAVED, COL_BP_LOST }; /* (RBX's too) */
struct col_frame_rule {
  unsigned char kind, cfa_base, bp, bx; /* enums above */
  int32_t cfa_offset;                   /* CFA = base register + offset */
  int32_t bp_offset;                    /* COL_BP_SAVED: caller's RBP at CFA + offset */
  int32_t bx_offset;                    /* bx COL_BP_SAVED: caller's RBX at CFA + offset */
};
/* A frame's RBP where the capture's is not known: the frame at code
 * address LOOKUP_PC, whose SP is SP and whose CFA RULE computes from RBP.
 * 1 with *BP set, 0 when no guess holds. */
struct col_capture;
typedef int (*col_bp_finder)(uint64_t lookup_pc, uint64_t sp, const struct col_frame_rule *rule,
                             const struct col_capture *cap, uint64_t *bp, void *arg);
/* col_unwind_uncounted for a capture with PC and SP only (its RBP not
 * known): FIND guesses RBP where a frame needs it. */
size_t col_unwind_without_bp(const struct col_capture *cap, col_bp_finder find, void *arg, uint64_t *pcs, size_t max);
/* The frames a walk of CAP (its registers all known) finds with the
 * frame rules alone when it ends as a stack ends (the outermost frame, a
 * 0 return address, the copy's end), or -1 where a frame's rule fails. */
int col_walk_completes(const struct col_capture *cap);
/* Where a walk (walk_rules.h) gets each frame's rule: 1 with *OUT filled, 0 when unknown. */
typedef int (*col_rule_source)(uint64_t lookup_pc, struct col_frame_rule *out, void *arg);
/* The rule at LOOKUP_PC (a leaf PC or a call site), cached. */
const struct col_frame_rule *col_frame_rule_for(uint64_t lookup_pc);
/* The leaf PC of a thread stopped on a breakpoint: one byte back where PC
 * has no frame rule and that byte has (a trap leaves PC one past its int3:
 * past GDB's breakpoint on the loader's one-byte _dl_debug_state, in no
 * function); else PC. */
uint64_t col_pc_before_trap(uint64_t pc);
void col_frame_rules_forget(void);
/* Thread TID's last walk (walk_rules.h), kept with the rules it was made
 * with: forgetting them forgets it. */
struct col_walk_memo;
struct col_walk_memo *col_walk_memo_of(pid_t tid);

/* The ELF image of the object holding PC (the unwinder's own, kept until
 * col_frame_rules_forget) and its run-time minus ELF address: 0, or -1. */
struct Elf;
int col_unwind_object_of(uint64_t pc, struct Elf **elf, uint64_t *bias);
/* The entry address of the function holding code address PC (from the
 * object's .eh_frame_hdr table, which lists every function with CFI), or
 * 0 when unknown. */
uint64_t col_function_entry(uint64_t pc);
/* The name of the function holding code address PC (its object's symbol
 * tables), or NULL. */
const char *col_function_name(uint64_t pc);
/* Changes each time the objects are forgotten (what was learned of their
 * code may no longer hold). */
unsigned col_unwind_objects_generation(void);

int col_unwind_init(void);
/* Drops cached unwind info after the set of loaded objects changed. */
void col_unwind_forget_modules(void);
/* The libunwind walk (DWARF CFI interpreted at every step). */
size_t col_unwind_libunwind(const struct col_capture *cap, uint64_t *pcs, size_t max);

#endif
