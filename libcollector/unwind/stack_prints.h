/* What a thread's stack held beyond a sample's copy when the sample was
 * taken, in a few numbers: so that the stack read later beyond the copy
 * (stack_beyond_copy.c) is known to be the one the sample stood on.
 *
 * A walk beyond the copy reads the thread's live stack up to a cycle
 * after the sample.  Where the thread has since returned above the copy's
 * end, the bytes there are dead, and those left by calls made since (a
 * signal handler's frames, the runtime's own when the program samples
 * itself) make a wrong stack: 23 of 100 samples of a recursion returning
 * to main every few microseconds ended in the runtime's col_trace_reserve
 * in a loaded CI run, with the copy's last bytes unchanged.  Where the
 * program samples itself (perf events refused), the signal handler stands
 * on that very stack: it sums what lies beyond its copy, and a reading
 * whose sum differs is not used (the stack stays cut, and is counted).
 *
 * Only pointer-shaped words are summed (what a walk follows: return
 * addresses, saved frame pointers), each weighted by its place: a loop's
 * counter or a clock value in main's frame changes all the time without
 * changing the stack's frames.  The sum is taken for each length a walk
 * reads (4 KiB, 16 KiB, 64 KiB beyond the copy): about 2 cycles a word,
 * paid only by samples whose stack goes on beyond the copy. */
#ifndef GDBCOL_STACK_PRINTS_H
#define GDBCOL_STACK_PRINTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The lengths read beyond a copy, in turn: the first, then each GROWTH
 * times the one before, up to the most. */
#define COL_STACK_BEYOND_FIRST (4 * 1024)
#define COL_STACK_BEYOND_GROWTH 4
#define COL_STACK_BEYOND_MAX (64 * 1024)
#define COL_STACK_BEYOND_TIERS 3

struct col_beyond_prints {
  uint32_t copy_len; /* where they start: the copy's length they were taken with */
  uint32_t len;      /* the bytes the stack held beyond the copy (at most COL_STACK_BEYOND_MAX) */
  uint64_t sum[COL_STACK_BEYOND_TIERS]; /* of the first min(tier's length, len) of them */
};

/* The tier whose length is WANT (-1: none). */
static inline int col_beyond_tier(size_t want)
{
  size_t length = COL_STACK_BEYOND_FIRST;
  for (int t = 0; t < COL_STACK_BEYOND_TIERS; t++, length *= COL_STACK_BEYOND_GROWTH)
    if (length == want)
      return t;
  return -1;
}

/* Adds the words of BYTES[FROM, TO) (FROM and TO multiples of 8, as
 * places beyond the copy's end) to SUM. */
static inline uint64_t col_beyond_sum_more(uint64_t sum, const unsigned char *bytes, size_t from, size_t to)
{
  for (size_t at = from; at + 8 <= to; at += 8) {
    uint64_t w;
    memcpy(&w, bytes + at, 8);
    /* Pointer-shaped: at or above the lowest address a process can map
     * (64 KiB), below the top of user space (2^47). */
    uint64_t keep = -(uint64_t)(w - 0x10000 < (1ull << 47) - 0x10000);
    sum += (w & keep) * (2 * (uint64_t)(at / 8) + 1);
  }
  return sum;
}

/* The prints of the LEN bytes beyond a copy of COPY_LEN bytes, BEYOND
 * pointing at the first of them (in the thread's own stack, from its
 * signal handler: nothing is copied). */
static inline void col_beyond_prints_take(const unsigned char *beyond, size_t len, size_t copy_len,
                                          struct col_beyond_prints *p)
{
  len = len < COL_STACK_BEYOND_MAX ? len & ~(size_t)7 : COL_STACK_BEYOND_MAX;
  p->copy_len = (uint32_t)copy_len;
  p->len = (uint32_t)len;
  uint64_t sum = 0;
  size_t done = 0, length = COL_STACK_BEYOND_FIRST;
  for (int t = 0; t < COL_STACK_BEYOND_TIERS; t++, length *= COL_STACK_BEYOND_GROWTH) {
    size_t to = length < len ? length : len;
    sum = col_beyond_sum_more(sum, beyond, done, to);
    done = to;
    p->sum[t] = sum;
  }
}

#endif
