/* Unwinding a captured stack with libunwind, outside any signal handler:
 * the general path, for frames the cached rules of unwind_rules.c cannot
 * follow (and the reference the fast path is checked against).
 *
 * libunwind's generic (remote) API with our own accessors: registers come
 * from the capture, stack memory from the copied bytes, and everything else
 * (the unwind tables of loaded objects) from this process's memory, checked
 * against the module map first so a corrupt frame can never make the
 * runtime fault.  Unwind info is found with libunwind's own local
 * find_proc_info (dl_iterate_phdr: fine here, we are not in a handler), as
 * `perf record --call-graph dwarf` does with its copies. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <libunwind.h>
#include <link.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/capture.h"
#include "unwind/unwind.h"
#include "unwind/walk_rules.h"
#include "er/er_format.h"

static unw_addr_space_t address_space;

/* Unwind tables are read 8 bytes at a time, many times over; a small
 * direct-mapped cache of whole pages turns most reads into a memcpy.  Text
 * and tables do not change while mapped; the cache is dropped whenever the
 * set of mappings changes (col_unwind_forget_modules). */
#define PAGE_CACHE_SLOTS 64
#define CACHE_PAGE 4096u
static struct {
  uint64_t page; /* page address + 1; 0 = empty */
  unsigned char bytes[CACHE_PAGE];
} page_cache[PAGE_CACHE_SLOTS];

/* Copies LEN bytes at ADDR of this process.  process_vm_readv on ourselves
 * turns an address that is not (or no longer, after a dlclose) mapped into
 * EFAULT instead of a crash.  Returns 0 or -UNW_EINVAL. */
static int read_self(void *dst, uint64_t addr, size_t len)
{
  struct iovec local = {dst, len}, remote = {(void *)(uintptr_t)addr, len};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -UNW_EINVAL;
}

static int read_own_memory(uint64_t addr, unw_word_t *value)
{
  uint64_t page = addr & ~(uint64_t)(CACHE_PAGE - 1);
  size_t offset = (size_t)(addr - page);
  if (offset + sizeof *value > CACHE_PAGE)
    return read_self(value, addr, sizeof *value); /* straddles two pages */
  size_t slot = (size_t)(page / CACHE_PAGE) % PAGE_CACHE_SLOTS;
  if (page_cache[slot].page != page + 1) {
    if (read_self(page_cache[slot].bytes, page, CACHE_PAGE) != 0) {
      page_cache[slot].page = 0;
      return -UNW_EINVAL;
    }
    page_cache[slot].page = page + 1;
  }
  memcpy(value, page_cache[slot].bytes + offset, sizeof *value);
  return 0;
}

struct unwind_context {
  const struct col_capture *cap;
  int read_past_copy; /* the walk needed stack bytes we did not capture */
};

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *value, int write, void *arg)
{
  struct unwind_context *ctx = arg;
  if (write)
    return -UNW_EINVAL;
  int got = col_stack_word(ctx->cap, addr, value);
  if (got == 1)
    return 0;
  if (got == 0) {
    ctx->read_past_copy = 1; /* above the copy, on what is most likely the same stack */
    return -UNW_EINVAL;
  }
  return read_own_memory(addr, value); /* unwind tables of loaded objects */
}

static int perf_register(unw_regnum_t reg)
{
  switch (reg) {
  case UNW_X86_64_RAX: return PERF_REG_X86_AX;
  case UNW_X86_64_RDX: return PERF_REG_X86_DX;
  case UNW_X86_64_RCX: return PERF_REG_X86_CX;
  case UNW_X86_64_RBX: return PERF_REG_X86_BX;
  case UNW_X86_64_RSI: return PERF_REG_X86_SI;
  case UNW_X86_64_RDI: return PERF_REG_X86_DI;
  case UNW_X86_64_RBP: return PERF_REG_X86_BP;
  case UNW_X86_64_RSP: return PERF_REG_X86_SP;
  case UNW_X86_64_RIP: return PERF_REG_X86_IP;
  default:
    if (reg >= UNW_X86_64_R8 && reg <= UNW_X86_64_R15)
      return PERF_REG_X86_R8 + (reg - UNW_X86_64_R8);
    return -1;
  }
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *value, int write, void *arg)
{
  struct unwind_context *ctx = arg;
  int r = perf_register(reg);
  if (write || r < 0)
    return -UNW_EBADREG;
  *value = ctx->cap->regs.r[r];
  return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *value, int write, void *arg)
{
  return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cursor, void *arg)
{
  return -UNW_EINVAL;
}

/* Unwind info registered at run time (JIT) is not supported: answering
 * "none" keeps every non-stack read inside file-backed mappings. */
static int no_dynamic_info(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
  return -UNW_ENOINFO;
}

/* The find_proc_info borrowed from the local address space finds objects
 * with the address space's iterate_phdr_function since libunwind 1.8
 * (dl_iterate_phdr itself before), and unw_create_addr_space leaves that
 * hook NULL: without it, the first sample the cached rules hand to
 * libunwind calls address 0 in the recording thread (Debian 13's libunwind
 * 1.8.1).  Declared weak, by its link name, so that one binary works with
 * either library, whatever headers it was built with: NULL where the
 * library predates the hook. */
typedef int (*col_iterate_phdr_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
extern void UNW_OBJ(set_iterate_phdr_function)(unw_addr_space_t, col_iterate_phdr_fn) __attribute__((weak));

int col_unwind_init(void)
{
  if (address_space != NULL)
    return 0; /* kept across experiments in one process */
  unw_accessors_t accessors = *unw_get_accessors(unw_local_addr_space);
  accessors.access_mem = access_mem;
  accessors.access_reg = access_reg;
  accessors.access_fpreg = access_fpreg;
  accessors.resume = resume;
  accessors.get_proc_name = NULL;
  accessors.get_dyn_info_list_addr = no_dynamic_info;
  address_space = unw_create_addr_space(&accessors, 0);
  if (address_space == NULL)
    return -1;
  if (UNW_OBJ(set_iterate_phdr_function) != NULL)
    UNW_OBJ(set_iterate_phdr_function)(address_space, dl_iterate_phdr);
  unw_set_caching_policy(address_space, UNW_CACHE_GLOBAL);
  return 0;
}

void col_unwind_forget_modules(void)
{
  for (size_t i = 0; i < PAGE_CACHE_SLOTS; i++)
    page_cache[i].page = 0;
  unw_flush_cache(address_space, 0, 0);
  col_frame_rules_forget();
}

size_t col_unwind_libunwind(const struct col_capture *cap, uint64_t *pcs, size_t max)
{
  size_t n = 0;
  pcs[n++] = cap->regs.r[PERF_REG_X86_IP];
  struct unwind_context ctx = {cap, 0};
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, address_space, &ctx) != 0)
    return n;
  int step, from_signal_frame = unw_is_signal_frame(&cursor) > 0;
  while ((step = unw_step(&cursor)) > 0) {
    unw_word_t ip;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0)
      break;
    if (n == max - 1) {
      pcs[n++] = ER_PC_TRUNCATED;
      return n;
    }
    /* A return address points after the call; the call is one byte back
     * (what gprofng stores, and what resolves to the caller's line).  The
     * code a signal interrupted: its own instruction (walk_rules.h). */
    pcs[n++] = from_signal_frame ? ip : ip - 1;
    from_signal_frame = unw_is_signal_frame(&cursor) > 0;
  }
  if (ctx.read_past_copy)
    pcs[n++] = ER_PC_TRUNCATED;
  else if (step < 0 && n == 1)
    pcs[n++] = ER_PC_UNWIND_FAILED;
  return n;
}
