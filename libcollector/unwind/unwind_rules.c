/* Frame rules: where the caller's frame is, for one code address.
 *
 * Nearly every frame of compiled code on x86_64 follows one of a handful of
 * CFI rules: the CFA is RSP or RBP plus a constant, the return address sits
 * just below the CFA, and RBP is either untouched or saved at a constant
 * offset from the CFA.  We read that rule once per code address from the
 * object's .eh_frame (elfutils libdw) and keep it in a hash table, so a
 * repeated address costs one probe instead of a CFI interpretation (the
 * "unwind intervals" hpcrun caches, reduced to what x86_64 needs).  Anything
 * else (signal trampolines, CFA expressions other than the PLT's, a CFA
 * kept in another register, code without CFI) is reported as complex and
 * left to libunwind.
 *
 * Only the thread that records (the sampler process's, or the runtime
 * thread when sampling from inside) calls into this file; it owns every
 * table. */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/module_map.h"
#include "core/target.h"
#include "unwind/unwind.h"
#include "unwind/walk_rules.h"

#define DWARF_REG_RBX 3
#define DWARF_REG_RBP 6
#define DWARF_REG_RSP 7
#define DWARF_REG_RA 16

/* ---- loaded objects and their CFI ------------------------------------------ */

#define MAX_OBJECTS 512

struct object_cfi {
  uint64_t lo, hi; /* run-time address range of the PT_LOAD segments */
  uint64_t bias;   /* run-time address minus ELF address */
  Elf *elf;
  Dwarf_CFI *cfi; /* NULL: no usable CFI (deleted file, JIT, ...) */
  Dwarf *debug;   /* where CFI is .debug_frame's: it owns it */
};

/* OBJ's call frame information: .eh_frame, what the C and C++ toolchains
 * write for unwinding; else .debug_frame (Go's linker writes only that:
 * every stack of a Go program was <Stack-unwind-failed>). */
static void open_cfi(struct object_cfi *obj)
{
  obj->cfi = dwarf_getcfi_elf(obj->elf);
  if (obj->cfi != NULL)
    return;
  obj->debug = dwarf_begin_elf(obj->elf, DWARF_C_READ, NULL);
  if (obj->debug != NULL)
    obj->cfi = dwarf_getcfi(obj->debug);
}

static struct object_cfi objects[MAX_OBJECTS];
static size_t n_objects;
static int libelf_ready;

/* The vDSO is not a file, but it is a complete ELF image in memory. */
static Elf *open_vdso(uint64_t base)
{
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(uintptr_t)base;
  size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
  return elf_memory((char *)(uintptr_t)base, size);
}

/* Opens the file behind a loaded object, refusing a file that is no longer
 * the one mapped (replaced on disk since it was loaded). */
static Elf *open_object_file(const char *path, uint64_t some_address)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  unsigned long mapped_inode = col_modules_inode_at(some_address);
  Elf *elf = NULL;
  if (fstat(fd, &st) == 0 && (mapped_inode == 0 || mapped_inode == st.st_ino)) {
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

struct find_object {
  uint64_t pc;
  struct object_cfi *found;
};

static int find_object_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct find_object *want = arg;
  uint64_t lo = UINT64_MAX, hi = 0;
  int contains = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uint64_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
    lo = start < lo ? start : lo;
    hi = end > hi ? end : hi;
    if (want->pc >= start && want->pc < end)
      contains = 1;
  }
  if (!contains || n_objects == MAX_OBJECTS)
    return 0;
  struct object_cfi *obj = &objects[n_objects++];
  memset(obj, 0, sizeof *obj);
  obj->lo = lo;
  obj->hi = hi;
  obj->bias = info->dlpi_addr;
  const char *name = info->dlpi_name;
  uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
  if (vdso != 0 && vdso >= lo && vdso < hi)
    obj->elf = open_vdso(vdso);
  else if (name[0] == '/')
    obj->elf = open_object_file(name, want->pc);
  else if (name[0] == '\0')
    obj->elf = open_object_file("/proc/self/exe", want->pc); /* the main program */
  if (obj->elf != NULL)
    open_cfi(obj);
  want->found = obj;
  return 1;
}

/* BASE - ELF address of the PT_LOAD holding file offset OFFSET (where the
 * code mapping at BASE begins).  A page may hold the end of one segment and
 * the start of the next (Rust's binaries: the read-only segment ends at
 * file offset 0x15604, the code begins at 0x15610 with its address 0x1000
 * further on): the code segment's, else the first that holds it (taking
 * the read-only one put every frame of such a program's code under
 * <Stack-unwind-failed>). */
static int bias_of(Elf *elf, uint64_t base, uint64_t offset, uint64_t *bias)
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

/* Another process's object (the sampler process): its executable mapping
 * from the last scan of /proc/PID/maps, the file by path (checked against
 * the mapped inode), the vDSO from our own (the kernel maps one image into
 * every process). */
static struct object_cfi *remote_object_for(uint64_t pc)
{
  struct col_mapped_object m;
  if (col_modules_object_at(pc, &m) != 0 || n_objects == MAX_OBJECTS)
    return NULL;
  struct object_cfi *obj = &objects[n_objects++];
  memset(obj, 0, sizeof *obj);
  obj->lo = m.start;
  obj->hi = m.end;
  uint64_t offset = m.offset;
  if (strcmp(m.name, "[vdso]") == 0) {
    uint64_t own = getauxval(AT_SYSINFO_EHDR);
    obj->elf = own != 0 ? open_vdso(own) : NULL;
    offset = 0;
  } else {
    obj->elf = open_object_file(m.name, pc);
  }
  if (obj->elf != NULL && bias_of(obj->elf, m.start, offset, &obj->bias) == 0)
    open_cfi(obj);
  return obj;
}

static struct object_cfi *object_for(uint64_t pc)
{
  for (size_t i = 0; i < n_objects; i++)
    if (pc >= objects[i].lo && pc < objects[i].hi)
      return &objects[i];
  if (!libelf_ready) {
    elf_version(EV_CURRENT);
    libelf_ready = 1;
  }
  if (col_target_pid != 0)
    return remote_object_for(pc);
  /* Not in a handler: dl_iterate_phdr's lock is fine in the recording thread. */
  struct find_object want = {pc, NULL};
  dl_iterate_phdr(find_object_cb, &want);
  return want.found;
}

static unsigned objects_generation;

unsigned col_unwind_objects_generation(void)
{
  return objects_generation;
}

int col_unwind_object_of(uint64_t pc, Elf **elf, uint64_t *bias)
{
  struct object_cfi *obj = object_for(pc);
  if (obj == NULL || obj->elf == NULL)
    return -1;
  *elf = obj->elf;
  *bias = obj->bias;
  return 0;
}

/* ---- reading one rule ------------------------------------------------------- */

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
static int in_entry_code(const struct object_cfi *obj, uint64_t elf_address)
{
  GElf_Ehdr header;
  if (obj->elf == NULL || gelf_getehdr(obj->elf, &header) == NULL || header.e_entry == 0)
    return 0;
  return elf_address >= header.e_entry && elf_address < header.e_entry + ENTRY_CODE_BYTES;
}

/* Is ELF address ADDR of OBJ within clone()'s or clone3()'s code right
 * after their system call: "syscall; test %rax,%rax; jl ERR; je CHILD;
 * ret" (glibc's clone.S and clone3.S end the parent's CFI before the
 * system call, and the child's begins at CHILD: a new thread sampled in
 * between was <Stack-unwind-failed>, one sample in a Rust program's
 * clean-clone CI run).  ADDR may be at any of the four instructions. */
static int after_clone_syscall(const struct object_cfi *obj, uint64_t addr)
{
  static const unsigned char tail[] = {0x48, 0x85, 0xc0, 0x7c, 0x00, 0x74, 0x01, 0xc3}; /* [4]: jl's offset */
  static const unsigned back[] = {0, 3, 5, 7}; /* each instruction's distance from the syscall's end */
  size_t n;
  if (obj->elf == NULL || elf_getphdrnum(obj->elf, &n) != 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(obj->elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
        addr < ph.p_vaddr + 9 || addr + 8 > ph.p_vaddr + ph.p_filesz)
      continue;
    Elf_Data *d = elf_getdata_rawchunk(obj->elf, (int64_t)(ph.p_offset + (addr - 9 - ph.p_vaddr)), 17, ELF_T_BYTE);
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

static void compute_rule(uint64_t lookup_pc, struct col_frame_rule *rule)
{
  rule->kind = COL_RULE_COMPLEX;
  struct object_cfi *obj = object_for(lookup_pc);
  if (obj != NULL && obj->elf != NULL && obj->cfi == NULL) {
    /* A file with no call frame information at all (a Go program built
     * with -ldflags=-s, which drops .debug_frame): its code keeps frame
     * pointers, walked as perf's fp mode does (a leaf that has not set
     * up its frame yet loses its caller). */
    rule->kind = COL_RULE_SIMPLE;
    rule->cfa_base = COL_CFA_FROM_BP;
    rule->cfa_offset = 16;
    rule->bp = COL_BP_SAVED;
    rule->bp_offset = -16;
    return;
  }
  if (obj == NULL || obj->cfi == NULL)
    return;
  Dwarf_Frame *frame;
  if (dwarf_cfi_addrframe(obj->cfi, lookup_pc - obj->bias, &frame) != 0) {
    if (in_entry_code(obj, lookup_pc - obj->bias))
      rule->kind = COL_RULE_OUTERMOST;
    else if (after_clone_syscall(obj, lookup_pc - obj->bias))
      rule->kind = COL_RULE_AFTER_CLONE;
    return;
  }
  read_rule(frame, lookup_pc, rule);
  free(frame);
}

/* ---- the cache ---------------------------------------------------------------- */

#define RULE_SLOTS (1u << 15) /* power of two */

static struct {
  uint64_t key; /* lookup address + 1; 0 = empty */
  struct col_frame_rule rule;
} rule_cache[RULE_SLOTS];
static size_t rules_cached;

const struct col_frame_rule *col_frame_rule_for(uint64_t lookup_pc)
{
  size_t slot = (size_t)((lookup_pc * 0x9E3779B97F4A7C15ull) >> 49) & (RULE_SLOTS - 1);
  while (rule_cache[slot].key != 0) {
    if (rule_cache[slot].key == lookup_pc + 1)
      return &rule_cache[slot].rule;
    slot = (slot + 1) & (RULE_SLOTS - 1);
  }
  if (rules_cached >= RULE_SLOTS / 4 * 3) {
    /* Full: start over rather than let probes grow long. */
    memset(rule_cache, 0, sizeof rule_cache);
    rules_cached = 0;
    return col_frame_rule_for(lookup_pc);
  }
  rule_cache[slot].key = lookup_pc + 1;
  memset(&rule_cache[slot].rule, 0, sizeof rule_cache[slot].rule);
  compute_rule(lookup_pc, &rule_cache[slot].rule);
  rules_cached++;
  return &rule_cache[slot].rule;
}

uint64_t col_pc_before_trap(uint64_t pc)
{
  if (pc > 0 && col_frame_rule_for(pc)->kind == COL_RULE_COMPLEX && col_frame_rule_for(pc - 1)->kind != COL_RULE_COMPLEX)
    return pc - 1;
  return pc;
}

/* The last walks of the threads sampled, by thread id (a thread whose
 * slot another took walks every frame: nothing is wrong, only slower). */
#define THREAD_MEMOS 64
static struct thread_memo {
  pid_t tid;
  struct col_walk_memo memo;
} thread_memos[THREAD_MEMOS];

struct col_walk_memo *col_walk_memo_of(pid_t tid)
{
  struct thread_memo *m = &thread_memos[(uint32_t)tid % THREAD_MEMOS];
  if (m->tid != tid) {
    m->tid = tid;
    m->memo.frames = 0;
  }
  return &m->memo;
}

void col_frame_rules_forget(void)
{
  memset(rule_cache, 0, sizeof rule_cache);
  rules_cached = 0;
  memset(thread_memos, 0, sizeof thread_memos); /* made with the rules forgotten */
  objects_generation++;
  for (size_t i = 0; i < n_objects; i++) {
    if (objects[i].debug != NULL)
      dwarf_end(objects[i].debug); /* (its CFI with it) */
    else if (objects[i].cfi != NULL)
      dwarf_cfi_end(objects[i].cfi);
    if (objects[i].elf != NULL)
      elf_end(objects[i].elf);
  }
  n_objects = 0;
}
