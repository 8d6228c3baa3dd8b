/* A stack cut where its copy ended, walked on in the thread's live stack.
 *
 * The copy a sample carries is 8 KiB by default (perf's default too): a
 * program whose outer frames hold more (gprofng's synprog keeps about
 * 5 KiB of locals in main) had 2.9 s of its CPU under <Truncated-stack>.
 * A larger copy for every sample costs every sample (32 KiB copies from 50
 * processes overflowed the rings), while the frames beyond the copy are
 * the outer ones, which a thread leaves last: where the thread is still
 * inside them, its live stack holds them as they were.  So the walk that
 * reaches the copy's end reads the stack beyond it from the process
 * (process_vm_readv: the sampler may read the program, as it reads blocked
 * threads' stacks), after checking that the copy's last bytes are still
 * there unchanged (else the thread has left those frames, or moved below
 * them: the stack stays cut), and where the program sampled itself, that
 * what lies beyond is what its signal handler saw there (stack_prints.h:
 * a thread that returned above the copy's end leaves dead bytes there,
 * which later calls overwrite), and walks the copy and the rest as one.
 * Kept only where that walk reaches farther than the copy alone.
 *
 * The sampler reads samples up to a cycle late; a thread (or process) that
 * has ended by then cannot be read (a run as an ordinary user lost its
 * last 5 of 96).  Each thread's last reading is kept, with up to
 * KEPT_BELOW bytes of its copy before it (a last sample taken deeper than
 * the ones before, in printf at a program's end, has its copy's end
 * below where their readings began: 1 run in 3 cut that sample), and
 * serves where the live stack cannot be read, under the same check: the
 * copy's last bytes equal to it at their address. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "unwind/stack_beyond_copy.h"

/* The copy's last bytes that must be unchanged in the live stack (all of
 * a shorter copy: perf's copies of samples taken in a system call are
 * often 4 KiB or less, down to a few hundred bytes). */
#define OVERLAP_BYTES 256
/* How far beyond the copy the live stack is read at most. */
#define BEYOND_BYTES COL_STACK_BEYOND_MAX

static unsigned char joined[COL_STACK_BEYOND_MAX_COPY + OVERLAP_BYTES + BEYOND_BYTES];

/* Each thread's last reading of its stack beyond a copy: the bytes from
 * FROM on (LEN of them; ENDED: the stack ends there), in a table indexed
 * by thread id. */
#define KEPT_THREADS 64
#define KEPT_BELOW (8 * 1024)
#define KEPT_BYTES (KEPT_BELOW + 32 * 1024)
static struct kept_reading {
  pid_t tid;
  uint32_t len;
  int ended;
  uint64_t from;
  unsigned char bytes[KEPT_BYTES];
} *kept;

/* The table (2.5 MB) is mapped at its first use, in the process that
 * walks stacks (the sampler, or the runtime's own writer thread), not in
 * every program the runtime is loaded into: as bss it took that much of
 * a program's address space (ulimit -v) whether used or not. */
static int have_kept_table(void)
{
  if (kept == NULL) {
    void *table = mmap(NULL, KEPT_THREADS * sizeof *kept, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED)
      return 0;
    kept = table;
  }
  return 1;
}

static void keep_reading(pid_t tid, uint64_t from, const unsigned char *bytes, size_t len, int ended)
{
  if (!have_kept_table())
    return;
  struct kept_reading *k = &kept[(unsigned)tid % KEPT_THREADS];
  k->tid = tid;
  k->from = from;
  k->len = (uint32_t)(len < KEPT_BYTES ? len : KEPT_BYTES);
  k->ended = ended && len <= KEPT_BYTES;
  memcpy(k->bytes, bytes, k->len);
}

/* Thread TID's last reading from address FROM on into BUF (at most LEN
 * bytes): how many it holds; *WHOLE: as many as a reading now would give
 * (LEN, or all there was up to the stack's end). */
static size_t kept_reading_at(pid_t tid, uint64_t from, void *buf, size_t len, int *whole)
{
  *whole = 0;
  if (kept == NULL)
    return 0;
  const struct kept_reading *k = &kept[(unsigned)tid % KEPT_THREADS];
  if (k->tid != tid || from < k->from || from - k->from >= k->len)
    return 0;
  size_t have = k->len - (size_t)(from - k->from);
  *whole = have >= len || k->ended;
  if (have > len)
    have = len;
  memcpy(buf, k->bytes + (from - k->from), have);
  return have;
}

/* LEN bytes of thread TID's memory at ADDR into BUF: how many were read. */
static size_t read_live(pid_t tid, uint64_t addr, void *buf, size_t len)
{
  struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
  ssize_t got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
  return got > 0 ? (size_t)got : 0;
}

/* Whether BYTES (GOT of them, from OVERLAP bytes before CAP's copy's end)
 * hold what the thread's stack held when CAP was taken: its copy's last
 * bytes, and where the sample says what lay beyond (the program's own
 * samples: stack_prints.h), the same sum for WANT bytes beyond.  *USE: how
 * many of them to walk (the printed ones only). */
static int holds_sample(const struct col_capture *cap, const unsigned char *bytes, size_t got, size_t overlap,
                        size_t want, size_t *use)
{
  if (got <= overlap || memcmp(bytes, cap->stack + cap->stack_len - overlap, overlap) != 0)
    return 0;
  *use = got;
  const struct col_beyond_prints *p = cap->beyond;
  if (p == NULL)
    return 1;
  int tier = col_beyond_tier(want);
  size_t n = want < p->len ? want : p->len;
  /* (a copy whose later parts were lost is not the one printed) */
  if (p->copy_len != cap->stack_len || tier < 0 || got - overlap < n)
    return 0;
  if (col_beyond_sum_more(0, bytes + overlap, 0, n) != p->sum[tier])
    return 0;
  *use = overlap + n;
  return 1;
}

int col_stack_beyond_copy(const struct col_capture *cap, size_t want, int fresh, struct col_capture *out,
                          struct col_stack_beyond_stats *stats)
{
  size_t len = cap->stack_len;
  if (want > BEYOND_BYTES)
    want = BEYOND_BYTES;
  if (len < 8 || len > COL_STACK_BEYOND_MAX_COPY || cap->tid <= 0)
    return 0;
  size_t overlap = len < OVERLAP_BYTES ? len : OVERLAP_BYTES;
  uint64_t from = cap->regs.r[PERF_REG_X86_SP] + len - overlap;
  memcpy(joined, cap->stack, len - overlap);
  unsigned char *beyond = joined + len - overlap;
  /* The last reading first: where the copy's end still matches it, the
   * frames beyond are the same (a loop's samples, without a system call
   * each); else (or FRESH) the live stack; where that cannot be read (the
   * thread has ended), the last reading whatever it holds. */
  size_t asked = overlap + want, use = 0;
  int whole = 0, from_kept = 1;
  size_t got = fresh ? 0 : kept_reading_at(cap->tid, from, beyond, asked, &whole);
  int matched = holds_sample(cap, beyond, got, overlap, want, &use);
  if (!matched || !whole) {
    size_t live = read_live(cap->tid, from, beyond, asked);
    if (live > overlap) {
      got = live;
      from_kept = 0;
      matched = holds_sample(cap, beyond, got, overlap, want, &use);
      if (matched) {
        size_t below = len - overlap < KEPT_BELOW ? len - overlap : KEPT_BELOW;
        keep_reading(cap->tid, from - below, beyond - below, below + got, got < asked);
      }
    } else if ((got = kept_reading_at(cap->tid, from, beyond, asked, &whole)) > overlap) {
      /* (the failed read may have written some) */
      matched = holds_sample(cap, beyond, got, overlap, want, &use);
    } else {
      stats->unreadable++;
      return 0;
    }
  }
  if (!matched) {
    stats->moved_on++;
    return 0;
  }
  *out = *cap;
  out->stack = joined;
  out->stack_len = len - overlap + use;
  return COL_BEYOND_JOINED | (use < asked ? COL_BEYOND_STACK_ENDS : 0) | (from_kept ? COL_BEYOND_FROM_KEPT : 0);
}
