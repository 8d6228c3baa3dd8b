/* Reading one frame rule (unwind.h) from an object's call frame
 * information, with libdw: what the unwinder caches per code address, and
 * what GDB's plugin uses to walk a stopped thread's stack without GDB's
 * own unwinder (gdb-plugin/native/thread_walk.c).  No state: the caller
 * owns the objects. */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unwind/cfi_rules.h"

#define DWARF_REG_RBX 3
#define DWARF_REG_RBP 6
#define DWARF_REG_RSP 7
#define DWARF_REG_RA 16

/* ELF's call frame information: .eh_frame, what the C and C++ toolchains
 * write for unwinding; else .debug_frame (Go's linker writes only that:
 * every stack of a Go program was <Stack-unwind-failed>); *DEBUG, when
 * not NULL, owns it. */
Dwarf_CFI *col_open_cfi(Elf *elf, Dwarf **debug)
{
  *debug = NULL;
  Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
  if (cfi != NULL)
    return cfi;
  *debug = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
  return *debug != NULL ? dwarf_getcfi(*debug) : NULL;
}

Elf *col_open_elf_file(const char *path, unsigned long inode)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  Elf *elf = NULL;
  if (fstat(fd, &st) == 0 && (inode == 0 || inode == st.st_ino)) {
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    /* The whole file is mapped now; the descriptor is not needed, and the
     * program should not find one more open file than it opened. */
    if (elf != NULL && elf_cntl(elf, ELF_C_FDDONE) != 0) {
      elf_end(elf);
      elf = NULL;
    }
  }
  close(fd);
  return elf;
}

/* The vDSO is not a file, but it is a complete ELF image in memory. */
Elf *col_open_vdso(uint64_t base)
{
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(uintptr_t)base;
  size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
  return elf_memory((char *)(uintptr_t)base, size);
}

/* BASE - ELF address of the PT_LOAD holding file offset OFFSET (where the
 * code mapping at BASE begins).  A page may hold the end of one segment and
 * the start of the next (Rust's binaries: the read-only segment ends at
 * file offset 0x15604, the code begins at 0x15610 with its address 0x1000
 * further on): the code segment's, else the first that holds it (taking
 * the read-only one put every frame of such a program's code under
 * <Stack-unwind-failed>). */
int col_elf_bias(Elf *elf, uint64_t base, uint64_t offset, uint64_t *bias)
{
  size_t n;
  if (elf_getphdrnum(elf, &n) != 0)
    return -1;
  int found = 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD && offset >= (ph.p_offset & ~4095ULL) &&
        offset < ph.p_offset + ph.p_filesz && (!found || (ph.p_flags & PF_X))) {
      *bias = base - offset + ph.p_offset - ph.p_vaddr;
      found = 1;
      if (ph.p_flags & PF_X)
        break;
    }
  }
  return found ? 0 : -1;
}

int col_open_mapped_object(const char *name, const char *file, unsigned long inode, uint64_t start, uint64_t offset,
                           struct col_object_rules *out)
{
  memset(out, 0, sizeof *out);
  if (strcmp(name, "[vdso]") == 0) {
    /* One kernel, one vDSO image: ours is the process's. */
    uint64_t own = getauxval(AT_SYSINFO_EHDR);
    out->elf = own != 0 ? col_open_vdso(own) : NULL;
    offset = 0;
  } else {
    out->elf = col_open_elf_file(file, inode);
  }
  if (out->elf != NULL && col_elf_bias(out->elf, start, offset, &out->bias) != 0) {
    /* Not the file mapped there after all: no rules rather than frame
     * pointers guessed for code that may keep none. */
    elf_end(out->elf);
    out->elf = NULL;
  }
  if (out->elf == NULL)
    return -1;
  out->cfi = col_open_cfi(out->elf, &out->debug);
  return 0;
}

void col_close_object_rules(struct col_object_rules *rules)
{
  if (rules->debug != NULL)
    dwarf_end(rules->debug); /* (its CFI with it) */
  else if (rules->cfi != NULL)
    dwarf_cfi_end(rules->cfi);
  if (rules->elf != NULL)
    elf_end(rules->elf);
  memset(rules, 0, sizeof *rules);
}

/* Is OPS "at CFA + OFFSET" (libdw's form of DWARF's offset(N) rule)? */
static int cfa_relative_slot(const Dwarf_Op *ops, size_t nops, int32_t *offset)
{
  if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
    *offset = 0;
    return 1;
  }
  if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
    *offset = (int32_t)(int64_t)ops[1].number;
    return 1;
  }
  return 0;
}

/* A CFA given as a DWARF expression that comes to RSP plus a constant once
 * RIP is known: the PLT's (RSP + 8, or + 16 from the entry's 11th byte on,
 * since the entry pushed a word there), the one expression compiled code
 * here carries.  Values are kept as K + S*RSP; RIP is the rule's own
 * address PC (the expression is evaluated for one address, as the rule is
 * cached per address).  Anything else: 0. */
static int cfa_expression_from_sp(const Dwarf_Op *ops, size_t nops, uint64_t pc, int32_t *offset)
{
  struct {
    int64_t k;
    int s; /* 0: a constant, 1: RSP plus K */
  } stack[8];
  size_t depth = 0;
  for (size_t i = 0; i < nops; i++) {
    uint8_t op = ops[i].atom;
    if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
      if (depth == 8)
        return 0;
      stack[depth].k = op - DW_OP_lit0;
      stack[depth++].s = 0;
      continue;
    }
    if (op == DW_OP_breg7 || op == DW_OP_breg16) {
      if (depth == 8)
        return 0;
      stack[depth].k = (int64_t)ops[i].number + (op == DW_OP_breg16 ? (int64_t)pc : 0);
      stack[depth++].s = op == DW_OP_breg7;
      continue;
    }
    if (op == DW_OP_plus_uconst && depth >= 1) {
      stack[depth - 1].k += (int64_t)ops[i].number;
      continue;
    }
    if (depth < 2)
      return 0;
    int64_t a = stack[depth - 2].k, b = stack[depth - 1].k;
    int sa = stack[depth - 2].s, sb = stack[depth - 1].s;
    depth--;
    if (op == DW_OP_plus && sa + sb <= 1) {
      stack[depth - 1].k = a + b;
      stack[depth - 1].s = sa + sb;
      continue;
    }
    if (sa || sb)
      return 0; /* RSP only ever added to */
    int64_t r;
    switch (op) {
    case DW_OP_minus: r = a - b; break;
    case DW_OP_and: r = a & b; break;
    case DW_OP_shl: r = b < 64 && b >= 0 ? (int64_t)((uint64_t)a << b) : 0; break;
    case DW_OP_ge: r = a >= b; break;
    case DW_OP_gt: r = a > b; break;
    case DW_OP_le: r = a <= b; break;
    case DW_OP_lt: r = a < b; break;
    default: return 0;
    }
    stack[depth - 1].k = r;
  }
  if (depth != 1 || stack[0].s != 1 || stack[0].k <= 0 || stack[0].k > 4096)
    return 0;
  *offset = (int32_t)stack[0].k;
  return 1;
}

static void read_rule(Dwarf_Frame *frame, uint64_t pc, struct col_frame_rule *rule)
{
  rule->kind = COL_RULE_COMPLEX;
  Dwarf_Addr start, end;
  bool signal_frame;
  if (dwarf_frame_info(frame, &start, &end, &signal_frame) != DWARF_REG_RA)
    return;
  if (signal_frame) {
    rule->kind = COL_RULE_SIGNAL;
    return;
  }
  Dwarf_Op ops_mem[3], *ops;
  size_t nops;
  /* Return address: at CFA - 8, or undefined in the outermost frame. */
  if (dwarf_frame_register(frame, DWARF_REG_RA, ops_mem, &ops, &nops) != 0)
    return;
  if (nops == 0 && ops == ops_mem) {
    rule->kind = COL_RULE_OUTERMOST;
    return;
  }
  int32_t ra_offset;
  if (!cfa_relative_slot(ops, nops, &ra_offset) || ra_offset != -8)
    return;
  /* CFA: RSP or RBP plus a constant (libdw gives DW_OP_bregx REG OFFSET),
   * or an expression that is RSP plus a constant at PC. */
  if (dwarf_frame_cfa(frame, &ops, &nops) != 0)
    return;
  if (nops != 1 || ops[0].atom != DW_OP_bregx) {
    if (!cfa_expression_from_sp(ops, nops, pc, &rule->cfa_offset))
      return;
    rule->cfa_base = COL_CFA_FROM_SP;
  } else if (ops[0].number == DWARF_REG_RSP)
    rule->cfa_base = COL_CFA_FROM_SP;
  else if (ops[0].number == DWARF_REG_RBP)
    rule->cfa_base = COL_CFA_FROM_BP;
  else if (ops[0].number == DWARF_REG_RBX)
    rule->cfa_base = COL_CFA_FROM_BX;
  else
    return;
  if (nops == 1 && ops[0].atom == DW_OP_bregx)
    rule->cfa_offset = (int32_t)(int64_t)ops[0].number2;
  /* RBP: untouched, saved at CFA + offset, or clobbered. */
  if (dwarf_frame_register(frame, DWARF_REG_RBP, ops_mem, &ops, &nops) != 0)
    return;
  if (nops == 0)
    rule->bp = ops == NULL ? COL_BP_SAME : COL_BP_LOST;
  else if (cfa_relative_slot(ops, nops, &rule->bp_offset))
    rule->bp = COL_BP_SAVED;
  else
    return;
  /* RBX the same way, for the frames whose CFA is RBX-based above. */
  if (dwarf_frame_register(frame, DWARF_REG_RBX, ops_mem, &ops, &nops) != 0)
    rule->bx = COL_BP_LOST;
  else if (nops == 0)
    rule->bx = ops == NULL ? COL_BP_SAME : COL_BP_LOST;
  else
    rule->bx = cfa_relative_slot(ops, nops, &rule->bx_offset) ? COL_BP_SAVED : COL_BP_LOST;
  rule->kind = COL_RULE_SIMPLE;
}

/* The dynamic loader's entry code (its _start, then _dl_start_user,
 * which calls the constructors through _dl_init) is assembly with no CFI:
 * a sample in a constructor ended under <Stack-unwind-failed> (our
 * runtime's own start, 1 sample in 52 of a Rust program in a CI run).
 * Nothing calls an object's entry point: where an ELF address within the
 * first bytes from it has no CFI, the frame is the outermost one, as a
 * program's _start says in its CFI. */
#define ENTRY_CODE_BYTES 128
static int in_entry_code(Elf *elf, uint64_t elf_address)
{
  GElf_Ehdr header;
  if (elf == NULL || gelf_getehdr(elf, &header) == NULL || header.e_entry == 0)
    return 0;
  return elf_address >= header.e_entry && elf_address < header.e_entry + ENTRY_CODE_BYTES;
}

/* Is ELF address ADDR of OBJ within clone()'s or clone3()'s code right
 * after their system call: "syscall; test %rax,%rax; jl ERR; je CHILD;
 * ret" (glibc's clone.S and clone3.S end the parent's CFI before the
 * system call, and the child's begins at CHILD: a new thread sampled in
 * between was <Stack-unwind-failed>, one sample in a Rust program's
 * clean-clone CI run).  ADDR may be at any of the four instructions. */
static int after_clone_syscall(Elf *elf, uint64_t addr)
{
  static const unsigned char tail[] = {0x48, 0x85, 0xc0, 0x7c, 0x00, 0x74, 0x01, 0xc3}; /* [4]: jl's offset */
  static const unsigned back[] = {0, 3, 5, 7}; /* each instruction's distance from the syscall's end */
  size_t n;
  if (elf == NULL || elf_getphdrnum(elf, &n) != 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
        addr < ph.p_vaddr + 9 || addr + 8 > ph.p_vaddr + ph.p_filesz)
      continue;
    Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + (addr - 9 - ph.p_vaddr)), 17, ELF_T_BYTE);
    if (d == NULL || d->d_size < 17)
      return 0;
    const unsigned char *code = (const unsigned char *)d->d_buf + 9; /* code[0] is ADDR's byte */
    for (size_t k = 0; k < sizeof back / sizeof back[0]; k++) {
      const unsigned char *end = code - back[k]; /* the syscall's end */
      if (end[-2] != 0x0f || end[-1] != 0x05)
        continue;
      size_t same = 0;
      while (same < sizeof tail && (same == 4 || end[same] == tail[same]))
        same++;
      if (same == sizeof tail)
        return 1;
    }
    return 0;
  }
  return 0;
}

void col_rule_from_cfi(Elf *elf, Dwarf_CFI *cfi, uint64_t bias, uint64_t lookup_pc, struct col_frame_rule *rule)
{
  rule->kind = COL_RULE_COMPLEX;
  if (elf != NULL && cfi == NULL) {
    /* A file with no call frame information at all (a Go program built
     * with -ldflags=-s, which drops .debug_frame): its code keeps frame
     * pointers, walked as perf's fp mode does (a leaf that has not set
     * up its frame yet loses its caller). */
    rule->kind = COL_RULE_FRAME_CHAIN;
    rule->cfa_base = COL_CFA_FROM_BP;
    rule->cfa_offset = 16;
    rule->bp = COL_BP_SAVED;
    rule->bp_offset = -16;
    return;
  }
  if (cfi == NULL)
    return;
  Dwarf_Frame *frame;
  if (dwarf_cfi_addrframe(cfi, lookup_pc - bias, &frame) != 0) {
    if (in_entry_code(elf, lookup_pc - bias))
      rule->kind = COL_RULE_OUTERMOST;
    else if (after_clone_syscall(elf, lookup_pc - bias))
      rule->kind = COL_RULE_AFTER_CLONE;
    return;
  }
  read_rule(frame, lookup_pc, rule);
  free(frame);
}
