/* Heap tracing (`collector heaptrace`): every call of the table's heap
 * group (interposed_table.h) becomes an event on the trace ring while the
 * kind is on: the format's type (an allocation of any kind is MALLOC, a
 * realloc REALLOC with the block it replaced, so that a moved block is not
 * a leak; FREE; MMAP and MUNMAP of anonymous memory), the size asked for
 * and the block; the sampler process unwinds it and writes the heaptrace
 * packet.  gprofng's collector traces neither posix_memalign nor
 * aligned_alloc, and never records a realloc's old block.
 *
 * Times order the events between threads (gprofng sorts by them): a free
 * is stamped before the block is given back and an allocation after it is
 * obtained, so a block freed on one thread and handed out again on
 * another is always seen freed first.
 *
 * The real functions are the next definitions after ours (a program's own
 * allocator library included), looked up on the first call.  The lookup
 * (dlsym) may itself allocate: those few calls get memory from a static
 * arena, which free and realloc recognise.  Failed calls are not recorded
 * (gprofng counts no allocation without a block).  When the kind is off a
 * wrapper costs a test and a jump (the hot ones: heap_idle below); the
 * runtime's own calls and calls
 * made while recording are not traced (trace_record.c's guard). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/hrtime.h"
#include "er/er_data_kinds.h"
#include "er/er_format.h"
#include "interposed.h"
#include "trace_record.h"

/* ---- the real functions, and the arena for the lookup's own allocations -- */

static struct {
  col_fn_malloc malloc;
  col_fn_calloc calloc;
  col_fn_realloc realloc;
  col_fn_reallocarray reallocarray;
  col_fn_free free;
  col_fn_posix_memalign posix_memalign;
  col_fn_aligned_alloc aligned_alloc;
  col_fn_memalign memalign;
  col_fn_valloc valloc;
  col_fn_pvalloc pvalloc;
  col_fn_mmap mmap;
  col_fn_mmap64 mmap64;
  col_fn_munmap munmap;
} real;
static int resolved;
static __thread int resolving __attribute__((tls_model("initial-exec")));

#define ARENA_BYTES (64 * 1024)
static unsigned char arena[ARENA_BYTES] __attribute__((aligned(64)));
static size_t arena_used;

/* Each arena block is preceded by its size (for realloc). */
static void *arena_alloc(size_t size, size_t align)
{
  if (align < 16)
    align = 16;
  size_t at = __atomic_load_n(&arena_used, __ATOMIC_RELAXED), start, end;
  do {
    start = (at + sizeof(size_t) + align - 1) & ~(align - 1);
    end = start + size;
    if (size > ARENA_BYTES || end > ARENA_BYTES) {
      errno = ENOMEM;
      return NULL;
    }
  } while (!__atomic_compare_exchange_n(&arena_used, &at, end, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  memcpy(arena + start - sizeof(size_t), &size, sizeof size);
  return arena + start;
}

static int in_arena(const void *p)
{
  return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_BYTES;
}

static size_t arena_size(const void *p)
{
  size_t size;
  memcpy(&size, (const unsigned char *)p - sizeof(size_t), sizeof size);
  return size;
}

#define LOOK_UP(name) real.name = (col_fn_##name)col_real_function(#name, (void *)col_wrap_##name)

static void resolve(void)
{
  resolving = 1;
  LOOK_UP(malloc);
  LOOK_UP(calloc);
  LOOK_UP(realloc);
  LOOK_UP(reallocarray);
  LOOK_UP(free);
  LOOK_UP(posix_memalign);
  LOOK_UP(aligned_alloc);
  LOOK_UP(memalign);
  LOOK_UP(valloc);
  LOOK_UP(pvalloc);
  LOOK_UP(mmap);
  LOOK_UP(mmap64);
  LOOK_UP(munmap);
  __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
  resolving = 0;
}

/* In a wrapper, before the real function: an allocation made while the
 * lookup runs comes from the arena (FALLBACK). */
#define NEED_REAL(fallback)                                  \
  do {                                                       \
    if (__builtin_expect(!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE), 0)) { \
      if (resolving)                                         \
        return fallback;                                     \
      resolve();                                             \
    }                                                        \
  } while (0)

/* ---- recording ------------------------------------------------------------ */

static int heap_traced(void)
{
  struct col_trace_ring *t = col_trace; /* the kind's own flag first: off, that is the only test */
  return col_trace_kind_on(t, ER_KIND_HEAP) && col_trace_here() != NULL;
}

/* The real call of a traced wrapper, with this thread's tracing held off
 * meanwhile: an allocator's own calls of the others (glibc's reallocarray
 * calls realloc) are part of the one event. */
#define UNTRACED(call)            \
  ({                              \
    col_tracing_here = 1;         \
    __typeof__(call) rc_ = call;  \
    col_tracing_here = 0;         \
    rc_;                          \
  })

/* The heap packet's fields as the event's payload. */
static inline __attribute__((always_inline)) void record_heap(int64_t tstamp, int type, uint64_t size,
                                                              uint64_t block, uint64_t old, uint64_t ip,
                                                              uint64_t sp, uint64_t bp)
{
  struct er_heap_packet p = {.htype = type, .hsize = size, .hvaddr = block, .hovaddr = old};
  struct col_trace_fields f = COL_TRACE_PACKET(ER_KIND_HEAP, tstamp, tstamp, &p, sizeof p);
  col_trace_record(&f, ip, sp, bp);
}

/* One event, recorded from the wrapper's own frame (the unwinder's leaf). */
#define RECORD_HEAP(tstamp_, type_, size_, block_, old_)                                   \
  do {                                                                                     \
    uint64_t ip_, sp_, bp_;                                                                \
    HERE(ip_, sp_, bp_);                                                                   \
    record_heap((tstamp_), (type_), (size_), (uint64_t)(uintptr_t)(block_),               \
                (uint64_t)(uintptr_t)(old_), ip_, sp_, bp_);                               \
  } while (0)

/* An allocation: the call, then (traced) its block stamped after it. */
#define TRACED_ALLOCATION(call, size_)                        \
  do {                                                        \
    if (__builtin_expect(!heap_traced(), 1))                  \
      return call;                                            \
    void *block_ = UNTRACED(call);                            \
    if (block_ != NULL)                                       \
      RECORD_HEAP(col_hrtime(), ER_HEAP_MALLOC, size_, block_, 0); \
    return block_;                                            \
  } while (0)

/* ---- the wrappers ---------------------------------------------------------- */

/* Heap tracing off (or no experiment) and the real functions known: the
 * hot calls (malloc, calloc, realloc, free) go straight on, with two
 * loads, a test and a tail call before any register is saved (issue 38:
 * a kind that is off must cost nothing measurable); else their traced
 * bodies, also by a tail call, whose events start at the wrapper's entry
 * (col_here_entry, trace_record.h). */
static inline int heap_idle(void)
{
  const struct col_trace_ring *t = col_trace;
  return __builtin_expect(__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) && !col_trace_kind_on(t, ER_KIND_HEAP), 1);
}

__attribute__((noinline)) static void *traced_malloc(size_t size);
__attribute__((noinline)) static void *traced_calloc(size_t n, size_t size);
__attribute__((noinline)) static void *traced_realloc(void *old, size_t size);
__attribute__((noinline)) static void traced_free(void *block);

void *col_wrap_malloc(size_t size)
{
  if (heap_idle())
    return real.malloc(size);
  return traced_malloc(size);
}

void *col_wrap_calloc(size_t n, size_t size)
{
  if (heap_idle())
    return real.calloc(n, size);
  return traced_calloc(n, size);
}

void *col_wrap_realloc(void *old, size_t size)
{
  if (heap_idle() && !in_arena(old))
    return real.realloc(old, size);
  return traced_realloc(old, size);
}

void col_wrap_free(void *block)
{
  if (heap_idle() && !in_arena(block)) {
    real.free(block);
    return;
  }
  traced_free(block);
}

static void *traced_malloc(size_t size)
{
  void *const col_here_entry = (void *)col_wrap_malloc;
  NEED_REAL(arena_alloc(size, 16));
  TRACED_ALLOCATION(real.malloc(size), size);
}

static void *traced_calloc(size_t n, size_t size)
{
  void *const col_here_entry = (void *)col_wrap_calloc;
  if (__builtin_expect(!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE), 0) && resolving) {
    size_t bytes;
    return __builtin_mul_overflow(n, size, &bytes) ? NULL : arena_alloc(bytes, 16); /* static: zeroed */
  }
  NEED_REAL(NULL);
  TRACED_ALLOCATION(real.calloc(n, size), n * size);
}

/* realloc of an arena block: moved to the real heap. */
static void *out_of_arena(void *block, size_t size)
{
  void *moved = real.malloc(size);
  if (moved != NULL) {
    size_t had = arena_size(block);
    memcpy(moved, block, had < size ? had : size);
  }
  return moved;
}

/* A realloc that returned BLOCK for OLD: the old block replaced (or freed,
 * for a size of 0), the new one stamped after the call. */
static void *record_realloc(void *old, void *block, size_t size, uint64_t ip, uint64_t sp, uint64_t bp)
{
  int64_t now = col_hrtime();
  if (block != NULL)
    record_heap(now, ER_HEAP_REALLOC, size, (uint64_t)(uintptr_t)block, (uint64_t)(uintptr_t)old, ip, sp, bp);
  else if (old != NULL && size == 0) /* glibc frees the block and returns NULL */
    record_heap(now, ER_HEAP_FREE, 0, (uint64_t)(uintptr_t)old, 0, ip, sp, bp);
  /* else failed: the old block stays */
  return block;
}

static void *traced_realloc(void *old, size_t size)
{
  void *const col_here_entry = (void *)col_wrap_realloc;
  if (in_arena(old))
    return resolving ? arena_alloc(size, 16) : out_of_arena(old, size);
  NEED_REAL(arena_alloc(size, 16));
  if (__builtin_expect(!heap_traced(), 1))
    return real.realloc(old, size);
  uint64_t ip, sp, bp;
  HERE(ip, sp, bp);
  return record_realloc(old, UNTRACED(real.realloc(old, size)), size, ip, sp, bp);
}

void *col_wrap_reallocarray(void *old, size_t n, size_t size)
{
  NEED_REAL(NULL);
  if (__builtin_expect(!heap_traced(), 1))
    return real.reallocarray(old, n, size);
  uint64_t ip, sp, bp;
  HERE(ip, sp, bp);
  return record_realloc(old, UNTRACED(real.reallocarray(old, n, size)), n * size, ip, sp, bp);
}

static void traced_free(void *block)
{
  void *const col_here_entry = (void *)col_wrap_free;
  if (block == NULL || in_arena(block))
    return;
  NEED_REAL();
  if (__builtin_expect(!heap_traced(), 1)) {
    real.free(block);
    return;
  }
  int64_t before = col_hrtime(); /* before the block can be handed out again */
  col_tracing_here = 1;
  real.free(block);
  col_tracing_here = 0;
  RECORD_HEAP(before, ER_HEAP_FREE, 0, block, 0);
}

int col_wrap_posix_memalign(void **out, size_t align, size_t size)
{
  NEED_REAL(ENOMEM);
  if (__builtin_expect(!heap_traced(), 1))
    return real.posix_memalign(out, align, size);
  int rc = UNTRACED(real.posix_memalign(out, align, size));
  if (rc == 0)
    RECORD_HEAP(col_hrtime(), ER_HEAP_MALLOC, size, *out, 0);
  return rc;
}

void *col_wrap_aligned_alloc(size_t align, size_t size)
{
  NEED_REAL(arena_alloc(size, align));
  TRACED_ALLOCATION(real.aligned_alloc(align, size), size);
}

void *col_wrap_memalign(size_t align, size_t size)
{
  NEED_REAL(arena_alloc(size, align));
  TRACED_ALLOCATION(real.memalign(align, size), size);
}

void *col_wrap_valloc(size_t size)
{
  NEED_REAL(arena_alloc(size, 4096));
  TRACED_ALLOCATION(real.valloc(size), size);
}

void *col_wrap_pvalloc(size_t size)
{
  NEED_REAL(arena_alloc(size, 4096));
  TRACED_ALLOCATION(real.pvalloc(size), size);
}

/* While the lookup runs, a mapping is made with the system call itself. */
static void *raw_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
  return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* Anonymous mappings are allocations of their own kind; file mappings are
 * not heap. */
#define TRACED_MAPPING(call)                                           \
  do {                                                                 \
    if (__builtin_expect(!heap_traced(), 1))                           \
      return call;                                                     \
    void *block_ = UNTRACED(call);                                     \
    if (block_ != MAP_FAILED && (flags & MAP_ANONYMOUS))               \
      RECORD_HEAP(col_hrtime(), ER_HEAP_MMAP, len, block_, 0);         \
    return block_;                                                     \
  } while (0)

void *col_wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
  NEED_REAL(raw_mmap(addr, len, prot, flags, fd, off));
  TRACED_MAPPING(real.mmap(addr, len, prot, flags, fd, off));
}

void *col_wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
  NEED_REAL(raw_mmap(addr, len, prot, flags, fd, off));
  TRACED_MAPPING(real.mmap64(addr, len, prot, flags, fd, off));
}

int col_wrap_munmap(void *addr, size_t len)
{
  NEED_REAL((int)syscall(SYS_munmap, addr, len));
  if (__builtin_expect(!heap_traced(), 1))
    return real.munmap(addr, len);
  int64_t before = col_hrtime(); /* before the range can be mapped again */
  int rc = UNTRACED(real.munmap(addr, len));
  if (rc == 0) /* the length also in HOVADDR, where gprofng's reader takes it */
    RECORD_HEAP(before, ER_HEAP_MUNMAP, len, addr, len);
  return rc;
}

COL_PRELOAD_ALIASES(COL_HEAP_FUNCTIONS)
