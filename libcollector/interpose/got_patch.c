/* Interposition without LD_PRELOAD: rewriting GOT slots.
 *
 * When the runtime arrives by dlopen (after an attach) the program's calls
 * to pthread_create still bind to libc.  Every loaded object reaches an
 * imported function through a GOT slot named by a JUMP_SLOT or GLOB_DAT
 * relocation; writing our wrapper's address into those slots redirects the
 * calls (the technique of heaptrack's injector).  The runtime itself, the
 * dynamic loader and the vDSO are skipped.  Slots in RELRO pages are made
 * writable for the store and read-only again at once.  Objects loaded later
 * are patched when the runtime thread notices them, sampling from inside
 * (col_got_patch_new_objects).
 * Calls that bypass the GOT (static linking, calls inside libc) are not
 * caught: the thread scan (thread_scan.c) still finds those threads.
 *
 * A wrapper must call what its slot called before: the program may run on
 * another allocator (jemalloc, tcmalloc, mimalloc, AddressSanitizer's),
 * and a block it allocated before the attach must be freed by the same
 * one.  Each wrapper's real function is the one the process's global
 * scope binds (interpose.c), and a slot is patched only where it holds
 * that function or its own object's lazy-binding stub (which would bind
 * it); a slot bound to anything else (a library loaded with its own
 * scope) is left as it is, and counted.  Only the functions of the
 * traced kinds that are on are patched: a kind that is off leaves the
 * program's calls untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "interpose/got_patch.h"
#include "interpose/elf_dynamic.h"
#include "interposed.h"
#include "interposed_list.h"
#include "trace_record.h"
#include "core/libc_condvar.h"

/* The table's functions (interposed_table.c), found by the hash of their
 * name: this walk runs over every relocation of every object, and again
 * after each dlopen.  ORIGINAL: what the slots held, for restoring. */
#define TARGET_BUCKETS 2048 /* a power of two, well above the table's size */
#define COUNT_ONE(name, version, ret, params) +1
/* A full table would make a lookup of a name not in it loop for ever. */
_Static_assert(2 * (0 COL_INTERPOSED(COUNT_ONE)) <= TARGET_BUCKETS, "the GOT patch's hash table is too small");
#undef COUNT_ONE
struct patch_target {
  const struct col_interposed *f;
  uint32_t hash;
  void *original;
  void *global;   /* what a lazy slot would bind to: the global scope's first definition */
  unsigned long long resolved_at; /* dlpi_adds when ORIGINAL and GLOBAL were looked up; 0: never */
};
static struct patch_target targets[TARGET_BUCKETS];

/* The ELF GNU hash function (dl_new_hash). */
static uint32_t name_hash(const char *name)
{
  uint32_t h = 5381;
  for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++)
    h = h * 33 + *c;
  return h;
}

static void build_targets(void)
{
  static int built;
  if (built)
    return;
  built = 1;
  for (size_t i = 0; i < col_n_interposed; i++) {
    uint32_t h = name_hash(col_interposed[i].name);
    size_t b = h & (TARGET_BUCKETS - 1);
    while (targets[b].f != NULL)
      b = (b + 1) & (TARGET_BUCKETS - 1);
    targets[b].f = &col_interposed[i];
    targets[b].hash = h;
  }
}

static struct patch_target *find_target(const char *name)
{
  uint32_t h = name_hash(name);
  for (size_t b = h & (TARGET_BUCKETS - 1); targets[b].f != NULL; b = (b + 1) & (TARGET_BUCKETS - 1))
    if (targets[b].hash == h && strcmp(targets[b].f->name, name) == 0)
      return &targets[b];
  return NULL;
}

static unsigned long long objects_seen; /* dlpi_adds at the last walk */
static unsigned long long walk_adds;    /* dlpi_adds as this walk began */
static uint32_t kinds_patched;          /* the traced kinds whose functions are patched */
static unsigned slots_patched, slots_kept, slots_bypassed, objects_patched, objects_unreadable;
static char first_unreadable[64];

/* ADDR lies in one of INFO's segments of type TYPE. */
static int in_segment(const struct dl_phdr_info *info, uintptr_t addr, ElfW(Word) type)
{
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == type && addr >= info->dlpi_addr + ph->p_vaddr &&
        addr < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
      return 1;
  }
  return 0;
}

/* The pages of the object being walked that the loader made read-only
 * after relocation (PT_GNU_RELRO, its whole pages, as glibc's
 * _dl_protect_relro rounds them), made writable once for all the slots
 * stored there and read-only again when the object is done.  Two
 * mprotect calls a slot took 90 ms at the start of each Open MPI 5 rank
 * on Debian 13 (its libraries bound at load, their call slots in RELRO). */
static struct {
  uintptr_t start, end;
  int writable;
} relro;

static void relro_find(const struct dl_phdr_info *info)
{
  col_relro_pages(info, (uintptr_t)sysconf(_SC_PAGESIZE), &relro.start, &relro.end);
  relro.writable = 0;
}

static void relro_close(void)
{
  if (relro.writable)
    mprotect((void *)relro.start, relro.end - relro.start, PROT_READ);
  relro.writable = 0;
}

static void store_slot(void **slot, void *value)
{
  uintptr_t at = (uintptr_t)slot;
  if (at >= relro.start && at < relro.end && !relro.writable) {
    if (mprotect((void *)relro.start, relro.end - relro.start, PROT_READ | PROT_WRITE) != 0)
      return;
    relro.writable = 1;
  }
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
}

/* The version the object asks for symbol SYM (NULL: none). */
static const char *needed_version(const struct col_dynamic_tables *dyn, size_t sym)
{
  if (dyn->versym == NULL || dyn->verneed == NULL)
    return NULL;
  ElfW(Half) index = dyn->versym[sym] & 0x7fff;
  if (index < 2) /* local or global: unversioned */
    return NULL;
  const ElfW(Verneed) *need = dyn->verneed;
  for (size_t i = 0; i < dyn->verneed_count; i++) {
    const ElfW(Vernaux) *aux = (const ElfW(Vernaux) *)((const char *)need + need->vn_aux);
    for (unsigned a = 0; a < need->vn_cnt; a++) {
      if (aux->vna_other == index)
        return dyn->strtab + aux->vna_name;
      aux = (const ElfW(Vernaux) *)((const char *)aux + aux->vna_next);
    }
    need = (const ElfW(Verneed) *)((const char *)need + need->vn_next);
  }
  return NULL;
}

/* A slot asking for another ABI than the wrapper's keeps libc's code. */
static int version_matches(const struct patch_target *t, const struct col_dynamic_tables *dyn, size_t sym)
{
  if (t->f->version == NULL)
    return 1;
  const char *asked = needed_version(dyn, sym);
  return asked == NULL || strcmp(asked, t->f->version) == 0;
}

enum walk_action { PATCH, RESTORE, BYPASS };

static int wanted(const struct patch_target *t)
{
  return t->f->kinds == 0 || (t->f->kinds & kinds_patched) != 0;
}

/* VALUE lies in one of INFO's own segments: a lazy slot's stub in its
 * PLT (binding it would find the global scope's function). */
static int inside_object(const struct dl_phdr_info *info, uintptr_t value)
{
  return in_segment(info, value, PT_LOAD);
}

/* The slot calls what the wrapper would call (or will, once bound: a lazy
 * slot binds to the global scope's first definition, which is the
 * original after an attach, ours when preloaded). */
static int calls_the_original(const struct dl_phdr_info *info, const struct patch_target *t, void *now)
{
  return t->original != NULL &&
         (now == t->original ||
          (inside_object(info, (uintptr_t)now) && (t->global == t->original || t->global == t->f->wrapper)));
}

/* Preloaded, the slot calls our wrapper (or will, once bound), of a kind
 * that is off: it can call the original itself. */
static int calls_our_idle_wrapper(const struct dl_phdr_info *info, const struct patch_target *t, void *now)
{
  return t->original != NULL && t->f->kinds != 0 && (t->f->kinds & kinds_patched) == 0 &&
         (now == t->f->wrapper || (inside_object(info, (uintptr_t)now) && t->global == t->f->wrapper));
}

/* T's real function and what a lazy slot would bind to, looked up when a
 * walk first meets one of its slots since objects were last loaded (a
 * library loaded since may define it): names the program never imports
 * cost no lookup.  The lookups allocate (a failed dlsym makes its error
 * message): the runtime's own calls, not traced. */
static void resolve_target(struct patch_target *t)
{
  int was = col_tracing_here;
  col_tracing_here = 1;
  void *real = col_real_function_version(t->f->name, t->f->version, t->f->wrapper);
  t->original = real != t->f->wrapper ? real : NULL;
  t->global = t->f->version != NULL ? dlvsym(RTLD_DEFAULT, t->f->name, t->f->version) : dlsym(RTLD_DEFAULT, t->f->name);
  t->resolved_at = walk_adds;
  col_tracing_here = was;
}

static void walk_relocations(const struct dl_phdr_info *info, const struct col_dynamic_tables *dyn,
                             const ElfW(Rela) *rel, size_t bytes, enum walk_action action)
{
  if (rel == NULL)
    return;
  for (size_t i = 0; i < bytes / sizeof *rel; i++) {
    unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
      continue;
    size_t sym = ELF64_R_SYM(rel[i].r_info);
    struct patch_target *t = find_target(dyn->strtab + dyn->symtab[sym].st_name);
    if (t == NULL || !version_matches(t, dyn, sym))
      continue;
    if (action != RESTORE && t->resolved_at != walk_adds)
      resolve_target(t); /* (RESTORE puts back what was looked up when it patched) */
    void **slot = (void **)(info->dlpi_addr + rel[i].r_offset);
    void *now = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (action == PATCH && now != t->f->wrapper && wanted(t)) {
      if (calls_the_original(info, t, now)) {
        store_slot(slot, t->f->wrapper);
        slots_patched++;
      } else {
        slots_kept++;
      }
    } else if (action == RESTORE && now == t->f->wrapper && t->original != NULL) {
      store_slot(slot, t->original);
    } else if (action != RESTORE && type == R_X86_64_JUMP_SLOT && calls_our_idle_wrapper(info, t, now)) {
      /* a kind that is off, preloaded (PATCH too: a later experiment with
       * other kinds); calls only (a GLOB_DAT slot is also the function's
       * address the program compares) */
      store_slot(slot, t->original);
      slots_bypassed++;
    }
  }
}

static int skip_object(const struct dl_phdr_info *info)
{
  static ElfW(Addr) own_base = 1;
  if (own_base == 1) {
    Dl_info self;
    own_base = dladdr((void *)skip_object, &self) ? (ElfW(Addr))self.dli_fbase : 0;
  }
  const char *name = info->dlpi_name;
  if (strstr(name, "linux-vdso") != NULL || strstr(name, "/ld-linux") != NULL || strncmp(name, "ld-linux", 8) == 0)
    return 1;
  /* Our own base: dladdr gives the ELF header's address (load bias for PIC). */
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_addr + info->dlpi_phdr[i].p_vaddr == own_base)
      return 1;
  return 0;
}

static int walk_object(struct dl_phdr_info *info, size_t size, void *arg)
{
  enum walk_action action = *(enum walk_action *)arg;
  objects_seen = info->dlpi_adds;
  struct col_dynamic_tables dyn;
  if (skip_object(info))
    return 0;
  if (col_read_dynamic(info, &dyn) != 0) { /* no dynamic symbols: its calls cannot be redirected */
    if (objects_unreadable++ == 0) {
      const char *base = strrchr(info->dlpi_name, '/');
      snprintf(first_unreadable, sizeof first_unreadable, "%s",
               info->dlpi_name[0] == '\0' ? "(the program)" : base != NULL ? base + 1 : info->dlpi_name);
    }
    return 0;
  }
  unsigned before = slots_patched;
  relro_find(info);
  walk_relocations(info, &dyn, dyn.jmprel, dyn.jmprel_size, action);
  walk_relocations(info, &dyn, dyn.rela, dyn.rela_size, action);
  relro_close();
  objects_patched += slots_patched != before;
  return 0;
}

int col_got_interposition_needed(void)
{
  /* Preloaded, the runtime is in the program's own search list (also
   * behind a sanitizer's runtime, which forwards its calls to ours);
   * injected with dlopen (RTLD_LOCAL), it is not.  (RTLD_DEFAULT would
   * not tell: from here it also searches our own local scope.) */
  static int injected = -1;
  if (injected < 0) {
    void *program = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
    injected = program == NULL || dlsym(program, "gdbcol_collecting") == NULL;
    if (injected)
      col_runtime_was_injected();
  }
  return injected;
}

static int count_objects(struct dl_phdr_info *info, size_t size, void *arg)
{
  *(unsigned long long *)arg = info->dlpi_adds;
  return 1; /* the first object is enough: dlpi_adds is process-wide */
}

/* A walk ACTION over every loaded object. */
static void walk_all(enum walk_action action)
{
  build_targets();
  dl_iterate_phdr(count_objects, &walk_adds);
  dl_iterate_phdr(walk_object, &action);
}

void col_got_patch_all(uint32_t traced_kinds, struct col_got_report *report)
{
  kinds_patched = traced_kinds;
  slots_patched = slots_kept = objects_patched = objects_unreadable = 0;
  first_unreadable[0] = '\0';
  walk_all(PATCH);
  report->slots = slots_patched;
  report->kept = slots_kept;
  report->objects = objects_patched;
  report->unreadable = objects_unreadable;
  snprintf(report->first_unreadable, sizeof report->first_unreadable, "%s", first_unreadable);
}

void col_got_patch_new_objects(void)
{
  unsigned long long adds = 0;
  dl_iterate_phdr(count_objects, &adds);
  if (adds != objects_seen)
    walk_all(PATCH);
}

unsigned col_got_bypass_idle(uint32_t traced_kinds)
{
  kinds_patched = traced_kinds;
  slots_bypassed = 0;
  walk_all(BYPASS);
  return slots_bypassed;
}

void col_got_restore_all(void)
{
  walk_all(RESTORE);
}
