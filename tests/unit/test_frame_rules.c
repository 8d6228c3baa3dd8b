/* The cached frame rules (unwind/unwind_rules.c) and the walk over them
 * (unwind_walk.c), without GDB: a capture of this thread's own registers
 * and stack, taken four calls deep, through a function that keeps no frame
 * pointer and through libc's qsort, is unwound as the thread that records
 * unwinds a sample.
 *   - The rules alone follow it to main (no libunwind fallback), and give
 *     the same call-site addresses as libunwind interpreting the CFI.
 *   - The rule read at a function's first instruction, at a call site in a
 *     function with a frame pointer and in one without, is what the x86-64
 *     ABI and the compiler say: CFA = RSP + 8; CFA = RBP + 16, caller's RBP
 *     saved at CFA - 16; CFA = RSP + the frame's size, RBP untouched.
 *   - In a PLT entry (whose CFA is a DWARF expression of RSP and RIP), the
 *     rule is RSP + 8 before the entry's push and RSP + 16 after it (a
 *     sample there was an unwind failure before).
 *   - A stack copy too short ends the walk with the truncated marker, and
 *     it is counted.
 *   - In libc's clone() between its system call and the child's CFI (no
 *     FDE there), the child (RAX 0) is at its outermost frame and the
 *     parent returns to the address at its SP (a Rust program's sample
 *     there was <Stack-unwind-failed>).
 *   - A walk of the live stack that uses the thread's last walk (the memo
 *     a program thread keeps when it records traced calls) finds exactly
 *     what a walk from scratch finds, over thousands of stacks reached by
 *     random call paths (the same depths through other callers, frames
 *     with and without a frame pointer), with fewer rule lookups. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/capture.h"
#include "core/config.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "unwind/unwind.h"
#include "unwind/walk_rules.h"
#include "er/er_format.h"
#include "own_stack.h"
#include "test_util.h"

/* What the module map needs of the rest of the runtime. */
struct col_config col_cfg;
void col_data_stop(int err)
{
}

#define COPY_BYTES (32 * 1024)
static unsigned char stack_copy[COPY_BYTES];
static struct col_capture cap;
static int captured;

__attribute__((noinline)) void rules_test_capture(void)
{
  ucontext_t uc;
  getcontext(&uc);
  if (captured++)
    return;
  own_stack_capture(&uc, &cap, stack_copy, COPY_BYTES);
}

__attribute__((noinline)) int rules_test_compare(const void *a, const void *b)
{
  rules_test_capture();
  return *(const int *)a - *(const int *)b;
}

/* No frame pointer, and a frame of its own (the array): its callers are
 * found from RSP and the frame's size. */
__attribute__((noinline, optimize("omit-frame-pointer"))) int rules_test_no_frame_pointer(int seed)
{
  volatile int values[40];
  for (int i = 0; i < 40; i++)
    values[i] = (seed * 7 + i * 13) % 41;
  qsort((void *)values, 3, sizeof values[0], rules_test_compare);
  return values[0] + values[39];
}

__attribute__((noinline)) int rules_test_with_frame_pointer(int seed)
{
  int r = rules_test_no_frame_pointer(seed);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
  return r + 1;
}

/* ---- the memo against walks from scratch ---------------------------------- */

static unsigned long lookups;

static int counted_rule(uint64_t lookup_pc, struct col_frame_rule *out, void *arg)
{
  lookups++;
  *out = *col_frame_rule_for(lookup_pc);
  return out->kind == COL_RULE_SIMPLE || out->kind == COL_RULE_OUTERMOST || out->kind == COL_RULE_AFTER_CLONE;
}

static struct col_walk_memo memo;
static uintptr_t stack_top;
static unsigned long walks, differences, lookups_with_memo, lookups_plain;

__attribute__((noinline)) static void compare_walks(void)
{
  ucontext_t uc;
  getcontext(&uc);
  struct col_capture live;
  memset(&live, 0, sizeof live);
  live.regs.r[PERF_REG_X86_IP] = (uint64_t)uc.uc_mcontext.gregs[REG_RIP];
  live.regs.r[PERF_REG_X86_SP] = (uint64_t)uc.uc_mcontext.gregs[REG_RSP];
  live.regs.r[PERF_REG_X86_BP] = (uint64_t)uc.uc_mcontext.gregs[REG_RBP];
  live.stack = (const unsigned char *)(uintptr_t)live.regs.r[PERF_REG_X86_SP];
  live.stack_len = stack_top - (uintptr_t)live.stack;
  uint64_t with[64], plain[64];
  size_t n_with = 0, n_plain = 0;
  unsigned long before = lookups;
  enum col_walk_result r1 = col_walk_with_rules(&live, counted_rule, NULL, with, 64, &n_with, &memo);
  lookups_with_memo += lookups - before;
  before = lookups;
  enum col_walk_result r2 = col_walk_with_rules(&live, counted_rule, NULL, plain, 64, &n_plain, NULL);
  lookups_plain += lookups - before;
  walks++;
  if (r1 != r2 || n_with != n_plain || memcmp(with, plain, n_plain * sizeof plain[0]) != 0)
    differences++;
}

static unsigned rng = 12345;
static unsigned next_random(void)
{
  rng = rng * 1103515245u + 12345u;
  return rng >> 8;
}

__attribute__((noinline)) int path_with_fp(int depth);
__attribute__((noinline, optimize("omit-frame-pointer"))) int path_no_fp(int depth);

/* Each level goes one level down through one of two functions and two
 * call sites, or stops and compares: stacks of every depth to 12, the
 * same depth reached through other callers. */
__attribute__((noinline)) int path_with_fp(int depth)
{
  volatile char pad[24];
  pad[0] = (char)depth;
  unsigned r = next_random();
  if (depth == 0 || r % 5 == 0) {
    compare_walks();
    return pad[0];
  }
  int v = r & 2 ? path_no_fp(depth - 1) : path_with_fp(depth - 1);
  if (r & 4)
    v += path_no_fp(depth - 1); /* a second call site */
  return v + pad[0];
}

__attribute__((noinline, optimize("omit-frame-pointer"))) int path_no_fp(int depth)
{
  volatile char pad[72];
  pad[0] = (char)depth;
  unsigned r = next_random();
  if (depth == 0 || r % 5 == 0) {
    compare_walks();
    return pad[0];
  }
  int v = r & 2 ? path_with_fp(depth - 1) : path_no_fp(depth - 1);
  if (r & 4)
    v += path_with_fp(depth - 1);
  return v + pad[0];
}

static const char *function_at(uint64_t pc)
{
  Dl_info info;
  if (dladdr((void *)(uintptr_t)pc, &info) == 0 || info.dli_sname == NULL)
    return "?";
  return info.dli_sname;
}

static int index_of(const uint64_t *pcs, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(function_at(pcs[i]), name) == 0)
      return (int)i;
  return -1;
}

int main(void);

/* The rules in this program's first PLT entry (after PLT0): its jump
 * (6 bytes) with CFA = RSP + 8, its push, then from its 11th byte on
 * CFA = RSP + 16. */
static void check_plt_rules(void)
{
  struct Elf *elf;
  uint64_t bias;
  CHECK(col_unwind_object_of((uint64_t)(uintptr_t)main, &elf, &bias) == 0);
  size_t strings;
  CHECK(elf_getshdrstrndx(elf, &strings) == 0);
  uint64_t plt = 0;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    const char *name = gelf_getshdr(scn, &sh) != NULL ? elf_strptr(elf, strings, sh.sh_name) : NULL;
    if (name != NULL && strcmp(name, ".plt") == 0)
      plt = sh.sh_addr + bias;
  }
  CHECK(plt != 0);
  const struct col_frame_rule *r = col_frame_rule_for(plt + 16);
  CHECK(r->kind == COL_RULE_SIMPLE && r->cfa_base == COL_CFA_FROM_SP && r->cfa_offset == 8 && r->bp == COL_BP_SAME);
  r = col_frame_rule_for(plt + 16 + 11);
  CHECK(r->kind == COL_RULE_SIMPLE && r->cfa_base == COL_CFA_FROM_SP && r->cfa_offset == 16);
}

/* libc's clone(), between its system call and the child's CFI (no FDE
 * there): the child, RAX 0, at its thread's outermost frame; the parent
 * returns to the address at SP.  (Its address: after "syscall" where
 * "test %rax,%rax; jl; je +1; ret" follows.) */
static void check_after_clone(void)
{
  static const unsigned char tail[] = {0x0f, 0x05, 0x48, 0x85, 0xc0, 0x7c, 0x00, 0x74, 0x01, 0xc3};
  const unsigned char *code = dlsym(RTLD_DEFAULT, "clone");
  const unsigned char *window = NULL;
  for (size_t at = 0; code != NULL && window == NULL && at < 160; at++) {
    size_t same = 0;
    while (same < sizeof tail && (same == 6 || code[at + same] == tail[same]))
      same++;
    if (same == sizeof tail)
      window = code + at + 2;
  }
  if (window == NULL) {
    fprintf(stderr, "clone: no such code in this libc (not checked)\n");
    return;
  }
  CHECK(col_frame_rule_for((uint64_t)(uintptr_t)window)->kind == COL_RULE_AFTER_CLONE);
  CHECK(col_frame_rule_for((uint64_t)(uintptr_t)window + 7)->kind == COL_RULE_AFTER_CLONE); /* its ret */
  uint64_t fake_stack[4] = {(uint64_t)(uintptr_t)main + 16, 0, 0, 0};
  struct col_capture at;
  memset(&at, 0, sizeof at);
  at.regs.r[PERF_REG_X86_IP] = (uint64_t)(uintptr_t)window + 3;
  at.regs.r[PERF_REG_X86_SP] = (uint64_t)(uintptr_t)fake_stack;
  at.stack = (const unsigned char *)fake_stack;
  at.stack_len = sizeof fake_stack;
  uint64_t pcs[8];
  size_t n = 0;
  at.regs.r[PERF_REG_X86_AX] = 0; /* the child */
  CHECK(col_walk_with_rules(&at, counted_rule, NULL, pcs, 8, &n, NULL) == COL_WALK_DONE && n == 1);
  at.regs.r[PERF_REG_X86_AX] = 4321; /* the parent, the child's pid in hand */
  n = 0;
  enum col_walk_result parent = col_walk_with_rules(&at, counted_rule, NULL, pcs, 8, &n, NULL);
  /* (its caller's call site: the return address less one; the fake
   * stack ends there) */
  CHECK(n >= 2 && pcs[1] == fake_stack[0] - 1);
  (void)parent;
}

int main(void)
{
  CHECK(rules_test_with_frame_pointer(3) > 0);
  CHECK(captured > 0);
  char dir[] = "/tmp/gdbcol-frame-rules-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
  CHECK(col_modules_open(dirfd, col_hrtime()) == 0); /* this process's mappings */
  CHECK(col_unwind_init() == 0);

  uint64_t pcs[64], other[64];
  size_t n = col_unwind(&cap, pcs, 64);
  for (size_t i = 0; i < n; i++)
    fprintf(stderr, "#%zu 0x%llx %s\n", i, (unsigned long long)pcs[i], function_at(pcs[i]));
  struct col_unwind_stats unwound;
  col_unwind_describe(&unwound);
  CHECK(unwound.by_rules == 1 && unwound.by_libunwind == 0);
  int compare = index_of(pcs, n, "rules_test_compare"), no_fp = index_of(pcs, n, "rules_test_no_frame_pointer"),
      with_fp = index_of(pcs, n, "rules_test_with_frame_pointer"), at_main = index_of(pcs, n, "main");
  CHECK(n > 0 && strcmp(function_at(pcs[0]), "rules_test_capture") == 0);
  CHECK(compare > 0 && no_fp > compare + 1); /* qsort's own frames between them */
  CHECK(with_fp == no_fp + 1 && at_main == with_fp + 1);
  for (size_t i = 0; i < n; i++)
    CHECK(pcs[i] != ER_PC_UNWIND_FAILED && pcs[i] != ER_PC_TRUNCATED);

  /* libunwind, interpreting the CFI at every step, finds the same frames. */
  size_t m = col_unwind_libunwind(&cap, other, 64);
  CHECK(m == n && memcmp(pcs, other, n * sizeof pcs[0]) == 0);

  /* The rules themselves. */
  const struct col_frame_rule *r = col_frame_rule_for((uint64_t)(uintptr_t)rules_test_with_frame_pointer);
  CHECK(r->kind == COL_RULE_SIMPLE && r->cfa_base == COL_CFA_FROM_SP && r->cfa_offset == 8 && r->bp == COL_BP_SAME);
  if (with_fp > 0) {
    r = col_frame_rule_for(pcs[with_fp]);
    CHECK(r->kind == COL_RULE_SIMPLE && r->cfa_base == COL_CFA_FROM_BP && r->cfa_offset == 16 &&
          r->bp == COL_BP_SAVED && r->bp_offset == -16);
  }
  if (no_fp > 0) {
    r = col_frame_rule_for(pcs[no_fp]);
    fprintf(stderr, "no frame pointer: kind %d base %d offset %d bp %d\n", r->kind, r->cfa_base, r->cfa_offset, r->bp);
    CHECK(r->kind == COL_RULE_SIMPLE && r->cfa_base == COL_CFA_FROM_SP && r->bp == COL_BP_SAME &&
          r->cfa_offset >= (int)(40 * sizeof(int)) + 8);
  }

  check_plt_rules();

  /* A copy that ends inside the frames: cut there, marked, counted. */
  struct col_capture short_cap = cap;
  short_cap.stack_len = 64;
  uint64_t before = unwound.truncated;
  size_t k = col_unwind(&short_cap, pcs, 64);
  CHECK(k > 0 && k < n && pcs[k - 1] == ER_PC_TRUNCATED &&
        (col_unwind_describe(&unwound), unwound.truncated == before + 1));

  check_after_clone();

  /* The memo: the same frames as walks from scratch, every time. */
  stack_top = own_stack_top();
  for (int round = 0; round < 3000; round++)
    path_with_fp(12);
  fprintf(stderr, "memo: %lu walks, %lu differences; rule lookups %lu with the memo, %lu from scratch\n", walks,
          differences, lookups_with_memo, lookups_plain);
  CHECK(walks > 3000 && differences == 0);
  CHECK(lookups_with_memo * 2 < lookups_plain); /* the memo was used */

  col_modules_close();
  close(dirfd);
  unlinkat(AT_FDCWD, dir, 0);
  char map[sizeof dir + 16];
  snprintf(map, sizeof map, "%s/map.xml", dir);
  unlink(map);
  rmdir(dir);
  return TEST_EXIT();
}
