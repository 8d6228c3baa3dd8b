/* Single-producer single-consumer byte ring for the timer fallback: a
 * thread's signal handler pushes captures (registers + stack bytes), the
 * runtime thread pops them.  Memory comes from mmap, positions are
 * published with release/acquire atomics: no locks, no allocation. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>

#include "core/capture.h"
#include "inprocess/clock_sources.h"
#include "unwind/stack_prints.h"

struct col_sample_ring {
  uint64_t head; /* written by the producer */
  uint64_t tail; /* written by the consumer */
  size_t size;   /* bytes in data, power of two */
  unsigned char data[];
};

struct ring_record {
  uint32_t len; /* whole record, multiple of 8 */
  uint32_t cpu;
  int64_t tstamp;
  uint32_t weight;
  int32_t tid;
  struct col_regs regs;
  uint64_t stack_len;
  struct col_beyond_prints beyond;
  uint32_t unplaced;
  uint64_t unplaced_pc;
  uint8_t omp_regions;
};

struct col_sample_ring *col_ring_create(size_t bytes)
{
  size_t total = sizeof(struct col_sample_ring) + bytes;
  struct col_sample_ring *ring = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ring == MAP_FAILED)
    return NULL;
  ring->size = bytes;
  return ring;
}

void col_ring_reset(struct col_sample_ring *ring)
{
  __atomic_store_n(&ring->tail, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&ring->head, 0, __ATOMIC_RELEASE);
}

static void put(struct col_sample_ring *ring, uint64_t pos, const void *src, size_t len)
{
  size_t off = (size_t)(pos & (ring->size - 1));
  size_t first = len < ring->size - off ? len : ring->size - off;
  memcpy(ring->data + off, src, first);
  memcpy(ring->data, (const unsigned char *)src + first, len - first);
}

static void get(const struct col_sample_ring *ring, uint64_t pos, void *dst, size_t len)
{
  size_t off = (size_t)(pos & (ring->size - 1));
  size_t first = len < ring->size - off ? len : ring->size - off;
  memcpy(dst, ring->data + off, first);
  memcpy((unsigned char *)dst + first, ring->data, len - first);
}

int col_ring_push(struct col_sample_ring *ring, const struct col_capture *cap)
{
  struct ring_record rec;
  rec.len = (uint32_t)((sizeof rec + cap->stack_len + 7) & ~(size_t)7);
  rec.cpu = cap->cpu;
  rec.tstamp = cap->tstamp;
  rec.weight = cap->weight;
  rec.unplaced = cap->unplaced;
  rec.unplaced_pc = cap->unplaced_pc;
  rec.omp_regions = cap->omp_regions;
  rec.tid = cap->tid;
  rec.regs = cap->regs;
  rec.stack_len = cap->stack_len;
  memset(&rec.beyond, 0, sizeof rec.beyond); /* (copy_len 0: not known) */
  if (cap->beyond != NULL)
    rec.beyond = *cap->beyond;
  uint64_t head = ring->head; /* only this producer writes it */
  uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
  if (head + rec.len - tail > ring->size)
    return -1;
  put(ring, head, &rec, sizeof rec);
  put(ring, head + sizeof rec, cap->stack, cap->stack_len);
  __atomic_store_n(&ring->head, head + rec.len, __ATOMIC_RELEASE);
  return 0;
}

size_t col_ring_drain(struct col_sample_ring *ring, col_capture_fn fn, void *arg)
{
  static unsigned char stack[65536]; /* runtime thread only */
  uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
  uint64_t tail = ring->tail;
  size_t count = 0;
  while (tail < head) {
    struct ring_record rec;
    get(ring, tail, &rec, sizeof rec);
    size_t stack_len = rec.stack_len < sizeof stack ? rec.stack_len : sizeof stack;
    get(ring, tail + sizeof rec, stack, stack_len);
    struct col_capture cap = {rec.tid, rec.cpu, rec.tstamp, rec.weight, 0, rec.regs, stack, stack_len, 0, 0,
                              rec.beyond.copy_len != 0 ? &rec.beyond : NULL, rec.unplaced, rec.unplaced_pc,
                              rec.omp_regions};
    fn(&cap, arg);
    count++;
    tail += rec.len;
  }
  __atomic_store_n(&ring->tail, tail, __ATOMIC_RELEASE);
  return count;
}
