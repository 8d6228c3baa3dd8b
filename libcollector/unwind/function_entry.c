/* Which function a code address is in, by its entry address: the binary
 * search table of .eh_frame_hdr (PT_GNU_EH_FRAME) lists the first address
 * of every function with CFI, sorted, so the greatest entry at or below
 * the address is its function's (or, in a gap without CFI, the function
 * before).  Stripped objects keep the table: it is what unwinders use.
 * The OpenMP writer names regions and tasks by their outlined functions
 * with it (core/omp_sample.c).  Only the recording thread calls here. */
#define _GNU_SOURCE
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "unwind/unwind.h"

/* The table's encoding ld and gold write: DW_EH_PE_datarel | sdata4. */
#define TABLE_DATAREL_SDATA4 0x3b
#define ENC_FORMAT(enc) ((enc) & 0x0f)
#define ENC_UDATA4 0x03
#define ENC_SDATA4 0x0b
#define ENC_OMIT 0xff

static int32_t read_s32(const unsigned char *p)
{
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* ELF address of the function holding ELF address ADDR in ELF, or 0. */
static uint64_t entry_in(Elf *elf, uint64_t addr)
{
  size_t n;
  if (elf_getphdrnum(elf, &n) != 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_GNU_EH_FRAME || ph.p_filesz < 12)
      continue;
    Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
    if (d == NULL || d->d_size < 12)
      return 0;
    const unsigned char *h = d->d_buf;
    /* version, eh_frame_ptr's encoding, the count's, the table's */
    if (h[0] != 1 || h[3] != TABLE_DATAREL_SDATA4 || h[1] == ENC_OMIT ||
        (ENC_FORMAT(h[1]) != ENC_SDATA4 && ENC_FORMAT(h[1]) != ENC_UDATA4) ||
        (ENC_FORMAT(h[2]) != ENC_SDATA4 && ENC_FORMAT(h[2]) != ENC_UDATA4))
      return 0;
    uint32_t count = (uint32_t)read_s32(h + 8);
    if (count == 0 || 12 + (uint64_t)count * 8 > d->d_size)
      return 0;
    const unsigned char *table = h + 12;
    int64_t want = (int64_t)(addr - ph.p_vaddr); /* table entries are relative to the header */
    if (want < read_s32(table))
      return 0;
    uint32_t lo = 0, hi = count; /* the last entry <= want is in [lo, hi) */
    while (hi - lo > 1) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (read_s32(table + (uint64_t)mid * 8) <= want)
        lo = mid;
      else
        hi = mid;
    }
    return ph.p_vaddr + (uint64_t)(int64_t)read_s32(table + (uint64_t)lo * 8);
  }
  return 0;
}

/* Code addresses repeat from sample to sample: each looked up once. */
#define ENTRY_SLOTS 4096 /* power of two */
static struct {
  uint64_t pc, entry;
} cache[ENTRY_SLOTS];

static unsigned cache_generation;

uint64_t col_function_entry(uint64_t pc)
{
  if (cache_generation != col_unwind_objects_generation()) { /* the objects were forgotten: so is this */
    memset(cache, 0, sizeof cache);
    cache_generation = col_unwind_objects_generation();
  }
  size_t slot = (size_t)(pc * 0x9E3779B97F4A7C15ull >> 52) & (ENTRY_SLOTS - 1);
  if (cache[slot].pc == pc && pc != 0)
    return cache[slot].entry;
  Elf *elf;
  uint64_t bias, entry = 0;
  if (col_unwind_object_of(pc, &elf, &bias) == 0) {
    uint64_t at = entry_in(elf, pc - bias);
    entry = at != 0 ? at + bias : 0;
  }
  cache[slot].pc = pc;
  cache[slot].entry = entry;
  return entry;
}
