/* Walking a captured stack: the cached-rule fast path, libunwind otherwise.
 *
 * libunwind costs tens of microseconds per sample here, most of it in the
 * signal-mask system calls its global cache lock makes at every step (the
 * distribution's build has no per-thread cache).  With one sampler thread
 * walking thousands of stacks a second, that was the runtime's main cost.
 * The fast path follows the frame rules of unwind_rules.c over the stack
 * copy and gives the same call stack; any frame it cannot follow hands the
 * whole sample to libunwind.  GDBCOL_UNWIND_CHECK=1 runs both on every
 * sample and counts disagreements (the tests use it).
 *
 * Each thread's last walk is kept (walk_rules.h's memo): a sample whose
 * stack shares its outer frames with that thread's previous sample takes
 * them from it once the copy holds the same words there (the same frames
 * a walk would find, for a fraction of the rule lookups). */
#include <asm/perf_regs.h>
#include <string.h>

#include "core/capture.h"
#include "core/config.h"
#include "core/target.h"
#include "unwind/stack_beyond_copy.h"
#include "unwind/unwind.h"
#include "unwind/walk_rules.h"
#include "er/er_format.h"

static struct col_unwind_stats stats;

void col_unwind_describe(struct col_unwind_stats *out)
{
  *out = stats;
}

void col_unwind_reset_stats(void)
{
  memset(&stats, 0, sizeof stats);
}
static int check_both;

void col_unwind_check_mode(int enabled)
{
  check_both = enabled;
}

/* The sampler's own rules (unwind_rules.c). */
static inline __attribute__((always_inline)) int cached_rule(uint64_t lookup_pc, struct col_frame_rule *out,
                                                             void *unused)
{
  *out = *col_frame_rule_for(lookup_pc);
  return 1;
}

static enum col_walk_result walk_with_cached_rules(const struct col_capture *cap, uint64_t *pcs, size_t max,
                                                   size_t *count)
{
  int chain_ended = 0;
  enum col_walk_result r =
      col_walk_core(cap, cached_rule, NULL, pcs, max, count, col_walk_memo_of(cap->tid), NULL, &chain_ended);
  stats.chain_ended += r == COL_WALK_DONE && chain_ended;
  return r;
}

static size_t unwind(const struct col_capture *cap, uint64_t *pcs, size_t max);

size_t col_unwind(const struct col_capture *cap, uint64_t *pcs, size_t max)
{
  /* The frame limit the user set (a stack that fills MAX was cut there,
   * one that ends short of it where the stack copy ended). */
  if (max > (size_t)col_cfg.max_frames + 1 && col_cfg.max_frames >= ER_MIN_STACK_DEPTH)
    max = (size_t)col_cfg.max_frames + 1;
  size_t n = unwind(cap, pcs, max);
  if (n > 0 && pcs[n - 1] == ER_PC_TRUNCATED) {
    if (n == max)
      stats.truncated_depth++;
    else
      stats.truncated++;
  }
  return n;
}

size_t col_unwind_uncounted(const struct col_capture *cap, uint64_t *pcs, size_t max)
{
  struct col_unwind_stats counted = stats;
  size_t n = col_unwind(cap, pcs, max);
  stats = counted;
  return n;
}

/* A walk of CAP (N frames in PCS) that stopped where the copy ended:
 * walked on in the thread's live stack where it still holds the copy's
 * end (stack_beyond_copy.c), 4 KiB beyond it first, more where that walk
 * is cut again (outer frames rarely hold more: each read and copy costs).
 * A walk over the thread's last reading that fails is made again over the
 * live stack: that reading may have been taken while the thread ran
 * elsewhere above the copy's end (a recursion and its caller's other calls
 * in turn: with that reading kept, 77 of 99 stacks stayed cut).  The
 * frames found, or N. */
static size_t walk_beyond_copy(const struct col_capture *cap, uint64_t *pcs, size_t max, size_t n)
{
  static uint64_t more[ER_MAX_STACK_DEPTH + 2];
  if (max > ER_MAX_STACK_DEPTH + 2)
    max = ER_MAX_STACK_DEPTH + 2;
  size_t found = n;
  int fresh = 0;
  for (size_t want = COL_STACK_BEYOND_FIRST; want <= COL_STACK_BEYOND_MAX;) {
    struct col_capture joined;
    struct col_stack_beyond_stats figures = {0, 0};
    int read = col_stack_beyond_copy(cap, want, fresh, &joined, &figures);
    if (read == 0) {
      stats.beyond_moved_on += figures.moved_on;
      stats.beyond_unreadable += figures.unreadable;
      break;
    }
    size_t m = 0;
    /* No memo: the next sample's copy does not reach what this walk read. */
    if (col_walk_core(&joined, cached_rule, NULL, more, max, &m, NULL, NULL, NULL) != COL_WALK_DONE) {
      if (!(read & COL_BEYOND_FROM_KEPT) || fresh) {
        stats.beyond_moved_on++; /* words that make no frame: not the sample's any more */
        break;
      }
      fresh = 1; /* the same again over the live stack */
      continue;
    }
    if (m > found) {
      memcpy(pcs, more, m * sizeof *pcs);
      found = m;
    }
    /* Cut again at the reading's end, with or without new frames (a frame
     * larger than the reading: main's 20 KB of locals stayed cut after
     * 4 KiB), read more. */
    if ((read & COL_BEYOND_STACK_ENDS) || m == max || more[m - 1] != ER_PC_TRUNCATED)
      break; /* the whole stack read, the frame limit, or a stack's end */
    want *= COL_STACK_BEYOND_GROWTH;
  }
  if (found > n)
    stats.beyond_copy++;
  return found;
}

static size_t unwind(const struct col_capture *cap, uint64_t *pcs, size_t max)
{
  size_t n = 0;
  if (walk_with_cached_rules(cap, pcs, max, &n) != COL_WALK_DONE) {
    if (col_target_pid != 0) {
      /* Another process: libunwind would read its unwind tables from our
       * own memory.  The frames found so far, then the marker. */
      stats.stopped++;
      pcs[n < max ? n++ : max - 1] = ER_PC_UNWIND_FAILED;
      return n;
    }
    stats.by_libunwind++;
    return col_unwind_libunwind(cap, pcs, max);
  }
  stats.by_rules++;
  if (check_both) { /* (on the copy: libunwind walks no further) */
    uint64_t other[ER_MAX_STACK_DEPTH + 1];
    size_t m = col_unwind_libunwind(cap, other, max < ER_MAX_STACK_DEPTH + 1 ? max : ER_MAX_STACK_DEPTH + 1);
    if (m != n || memcmp(other, pcs, n * sizeof *pcs) != 0)
      stats.disagreements++;
  }
  if (n > 0 && n < max && pcs[n - 1] == ER_PC_TRUNCATED)
    n = walk_beyond_copy(cap, pcs, max, n);
  return n;
}

size_t col_unwind_without_bp(const struct col_capture *cap, col_bp_finder find, void *arg, uint64_t *pcs, size_t max)
{
  if (max > (size_t)col_cfg.max_frames + 1 && col_cfg.max_frames >= ER_MIN_STACK_DEPTH)
    max = (size_t)col_cfg.max_frames + 1;
  struct col_bp_guess guess = {find, arg};
  size_t n = 0;
  /* No memo: a thread's walks from outside are few, and its clock
   * samples' memo holds frames whose RBP was known. */
  if (col_walk_core(cap, cached_rule, NULL, pcs, max, &n, NULL, &guess, NULL) != COL_WALK_DONE)
    pcs[n < max ? n++ : max - 1] = ER_PC_UNWIND_FAILED; /* libunwind would need RBP too */
  return n;
}

int col_walk_completes(const struct col_capture *cap)
{
  uint64_t pcs[ER_MAX_STACK_DEPTH + 1];
  size_t n = 0;
  enum col_walk_result r = col_walk_core(cap, cached_rule, NULL, pcs, ER_MAX_STACK_DEPTH + 1, &n, NULL, NULL, NULL);
  return r == COL_WALK_DONE ? (int)n : -1;
}
