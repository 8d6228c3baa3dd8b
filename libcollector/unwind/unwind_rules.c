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
#include <elf.h>
#include <elfutils/libdw.h>
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
#include "unwind/cfi_rules.h"
#include "unwind/unwind.h"
#include "unwind/walk_rules.h"

/* ---- loaded objects and their CFI ------------------------------------------ */

#define MAX_OBJECTS 512

struct object_cfi {
  uint64_t lo, hi; /* run-time address range of the PT_LOAD segments */
  /* bias: run-time address minus ELF address; cfi NULL: no usable CFI
   * (deleted file, JIT, ...); debug: where CFI is .debug_frame's */
  struct col_object_rules rules;
};

static struct object_cfi objects[MAX_OBJECTS];
static size_t n_objects;
static int libelf_ready;

/* Opens the file behind a loaded object, refusing a file that is no longer
 * the one mapped (replaced on disk since it was loaded). */
static Elf *open_object_file(const char *path, uint64_t some_address)
{
  return col_open_elf_file(path, col_modules_inode_at(some_address));
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
  obj->rules.bias = info->dlpi_addr;
  const char *name = info->dlpi_name;
  uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
  if (vdso != 0 && vdso >= lo && vdso < hi)
    obj->rules.elf = col_open_vdso(vdso);
  else if (name[0] == '/')
    obj->rules.elf = open_object_file(name, want->pc);
  else if (name[0] == '\0')
    obj->rules.elf = open_object_file("/proc/self/exe", want->pc); /* the main program */
  if (obj->rules.elf != NULL)
    obj->rules.cfi = col_open_cfi(obj->rules.elf, &obj->rules.debug);
  want->found = obj;
  return 1;
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
  col_open_mapped_object(m.name, m.name, m.inode, m.start, m.offset, &obj->rules);
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
  if (obj == NULL || obj->rules.elf == NULL)
    return -1;
  *elf = obj->rules.elf;
  *bias = obj->rules.bias;
  return 0;
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
  struct object_cfi *obj = object_for(lookup_pc);
  if (obj != NULL)
    col_rule_from_cfi(obj->rules.elf, obj->rules.cfi, obj->rules.bias, lookup_pc, &rule_cache[slot].rule);
  else
    rule_cache[slot].rule.kind = COL_RULE_COMPLEX;
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
  for (size_t i = 0; i < n_objects; i++)
    col_close_object_rules(&objects[i].rules);
  n_objects = 0;
}
