/* Interposition without LD_PRELOAD: rewriting GOT slots.
 *
 * When the runtime arrives by dlopen (after an attach) the program's calls
 * to pthread_create still bind to libc.  Every loaded object reaches an
 * imported function through a GOT slot named by a JUMP_SLOT or GLOB_DAT
 * relocation; writing our wrapper's address into those slots redirects the
 * calls (the technique of heaptrack's injector).  The runtime itself, the
 * dynamic loader and the vDSO are skipped.  Slots in RELRO pages are made
 * writable for the store and read-only again at once.  Objects loaded later
 * are patched when the sampler notices them (col_got_patch_new_objects).
 * Calls that bypass the GOT (static linking, calls inside libc) are not
 * caught: the thread scan (thread_scan.c) still finds those threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector_internal.h"
#include "libc_condvar.h"

struct patch_target {
  const char *name;
  void *wrapper;
  void *original; /* what the slots held, for restoring */
};

static struct patch_target targets[] = {
    {"pthread_create", (void *)col_wrap_pthread_create, NULL},
    {"_exit", (void *)col_wrap__exit, NULL},
    {"_Exit", (void *)col_wrap__Exit, NULL},
    {"execve", (void *)col_wrap_execve, NULL},
    {"execv", (void *)col_wrap_execv, NULL},
    {"execvp", (void *)col_wrap_execvp, NULL},
    {"execvpe", (void *)col_wrap_execvpe, NULL},
    {"fexecve", (void *)col_wrap_fexecve, NULL},
    {"execveat", (void *)col_wrap_execveat, NULL},
    {"execl", (void *)col_wrap_execl, NULL},
    {"execlp", (void *)col_wrap_execlp, NULL},
    {"execle", (void *)col_wrap_execle, NULL},
    {"system", (void *)col_wrap_system, NULL},
    {"popen", (void *)col_wrap_popen, NULL},
    {"posix_spawn", (void *)col_wrap_posix_spawn, NULL},
    {"posix_spawnp", (void *)col_wrap_posix_spawnp, NULL},
    {"clone", (void *)col_wrap_clone, NULL},
    {"pthread_mutex_lock", (void *)col_wrap_pthread_mutex_lock, NULL},
    {"pthread_mutex_timedlock", (void *)col_wrap_pthread_mutex_timedlock, NULL},
    {"pthread_mutex_clocklock", (void *)col_wrap_pthread_mutex_clocklock, NULL},
    {"pthread_cond_wait", (void *)col_wrap_pthread_cond_wait, NULL},
    {"pthread_cond_timedwait", (void *)col_wrap_pthread_cond_timedwait, NULL},
    {"pthread_cond_clockwait", (void *)col_wrap_pthread_cond_clockwait, NULL},
    {"pthread_rwlock_rdlock", (void *)col_wrap_pthread_rwlock_rdlock, NULL},
    {"pthread_rwlock_wrlock", (void *)col_wrap_pthread_rwlock_wrlock, NULL},
    {"pthread_barrier_wait", (void *)col_wrap_pthread_barrier_wait, NULL},
    {"pthread_join", (void *)col_wrap_pthread_join, NULL},
    {"sem_wait", (void *)col_wrap_sem_wait, NULL},
    {"sem_timedwait", (void *)col_wrap_sem_timedwait, NULL},
};
#define N_TARGETS (sizeof targets / sizeof targets[0])

static unsigned long long objects_seen; /* dlpi_adds at the last walk */
static unsigned slots_patched;

struct dynamic_tables {
  const ElfW(Sym) *symtab;
  const char *strtab;
  const ElfW(Rela) *rela, *jmprel;
  size_t rela_size, jmprel_size;
};

static int read_dynamic(const struct dl_phdr_info *info, struct dynamic_tables *out)
{
  memset(out, 0, sizeof *out);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
      continue;
    /* glibc relocates the d_ptr entries of every object it loaded. */
    for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL;
         d++) {
      switch (d->d_tag) {
      case DT_SYMTAB: out->symtab = (const ElfW(Sym) *)d->d_un.d_ptr; break;
      case DT_STRTAB: out->strtab = (const char *)d->d_un.d_ptr; break;
      case DT_RELA: out->rela = (const ElfW(Rela) *)d->d_un.d_ptr; break;
      case DT_RELASZ: out->rela_size = d->d_un.d_val; break;
      case DT_JMPREL: out->jmprel = (const ElfW(Rela) *)d->d_un.d_ptr; break;
      case DT_PLTRELSZ: out->jmprel_size = d->d_un.d_val; break;
      }
    }
    return out->symtab != NULL && out->strtab != NULL ? 0 : -1;
  }
  return -1;
}

static int in_relro(const struct dl_phdr_info *info, uintptr_t addr)
{
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_GNU_RELRO && addr >= info->dlpi_addr + ph->p_vaddr &&
        addr < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
      return 1;
  }
  return 0;
}

static void store_slot(const struct dl_phdr_info *info, void **slot, void *value)
{
  if (!in_relro(info, (uintptr_t)slot)) {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return;
  }
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  void *start = (void *)((uintptr_t)slot & ~(uintptr_t)(page - 1));
  if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0)
    return;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  mprotect(start, page, PROT_READ);
}

enum walk_action { PATCH, RESTORE };

static void walk_relocations(const struct dl_phdr_info *info, const struct dynamic_tables *dyn,
                             const ElfW(Rela) *rel, size_t bytes, enum walk_action action)
{
  if (rel == NULL)
    return;
  for (size_t i = 0; i < bytes / sizeof *rel; i++) {
    unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
      continue;
    const char *name = dyn->strtab + dyn->symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
    for (size_t t = 0; t < N_TARGETS; t++) {
      if (strcmp(name, targets[t].name) != 0)
        continue;
      void **slot = (void **)(info->dlpi_addr + rel[i].r_offset);
      void *now = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
      if (action == PATCH && now != targets[t].wrapper) {
        store_slot(info, slot, targets[t].wrapper);
        slots_patched++;
      } else if (action == RESTORE && now == targets[t].wrapper && targets[t].original != NULL) {
        store_slot(info, slot, targets[t].original);
      }
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
  struct dynamic_tables dyn;
  if (skip_object(info) || read_dynamic(info, &dyn) != 0)
    return 0;
  walk_relocations(info, &dyn, dyn.jmprel, dyn.jmprel_size, action);
  walk_relocations(info, &dyn, dyn.rela, dyn.rela_size, action);
  return 0;
}

static void resolve_originals(void)
{
  for (size_t t = 0; t < N_TARGETS; t++) {
    void *real = dlsym(RTLD_DEFAULT, targets[t].name);
    targets[t].original = real != targets[t].wrapper ? real : NULL;
  }
}

int col_got_interposition_needed(void)
{
  /* Preloaded, our definitions already win symbol lookup. */
  return dlsym(RTLD_DEFAULT, "pthread_create") != (void *)col_wrap_pthread_create;
}

unsigned col_got_patch_all(void)
{
  resolve_originals();
  enum walk_action action = PATCH;
  slots_patched = 0;
  dl_iterate_phdr(walk_object, &action);
  return slots_patched;
}

static int count_objects(struct dl_phdr_info *info, size_t size, void *arg)
{
  *(unsigned long long *)arg = info->dlpi_adds;
  return 1; /* the first object is enough: dlpi_adds is process-wide */
}

void col_got_patch_new_objects(void)
{
  unsigned long long adds = 0;
  dl_iterate_phdr(count_objects, &adds);
  if (adds == objects_seen)
    return;
  enum walk_action action = PATCH;
  dl_iterate_phdr(walk_object, &action);
}

void col_got_restore_all(void)
{
  enum walk_action action = RESTORE;
  dl_iterate_phdr(walk_object, &action);
}
