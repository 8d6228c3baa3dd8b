/* The stack-walking libraries, loaded when the runtime walks stacks itself
 * (unwind_libraries.h says why).  Each function below has the library's
 * own prototype (its header declares it first, so the compiler checks we
 * match) and forwards to the library's definition once loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <libunwind.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "inprocess/unwind_libraries.h"

#ifndef GDBCOL_LIBDW_SONAME
#error "the build gives the libraries' sonames (libcollector/CMakeLists.txt)"
#endif

#define NAME_OF(name) #name
#define LINK_NAME(name) NAME_OF(name) /* unw_step -> "_Ux86_64_step" */

/* Each entry: return type, name, value returned while not loaded,
 * (parameters), (arguments).  The libunwind names are macros for their
 * link names; the pointer's name takes the macro's name unexpanded. */
#define UNWIND_FUNCTIONS(F)                                                                                            \
  F(unw_addr_space_t, unw_create_addr_space, NULL, (unw_accessors_t * a, int order), (a, order))                        \
  F(unw_accessors_t *, unw_get_accessors, NULL, (unw_addr_space_t as), (as))                                            \
  F(int, unw_get_reg, -UNW_EUNSPEC, (unw_cursor_t * c, int reg, unw_word_t *value), (c, reg, value))                    \
  F(int, unw_init_remote, -UNW_EUNSPEC, (unw_cursor_t * c, unw_addr_space_t as, void *arg), (c, as, arg))               \
  F(int, unw_is_signal_frame, 0, (unw_cursor_t * c), (c))                                                               \
  F(int, unw_set_caching_policy, -UNW_EUNSPEC, (unw_addr_space_t as, unw_caching_policy_t policy), (as, policy))        \
  F(int, unw_step, -UNW_EUNSPEC, (unw_cursor_t * c), (c))

#define DW_FUNCTIONS(F)                                                                                                \
  F(Dwarf *, dwarf_begin_elf, NULL, (Elf * elf, Dwarf_Cmd cmd, Elf_Scn *group), (elf, cmd, group))                      \
  F(int, dwarf_cfi_addrframe, -1, (Dwarf_CFI * cfi, Dwarf_Addr address, Dwarf_Frame **frame), (cfi, address, frame))     \
  F(int, dwarf_cfi_end, -1, (Dwarf_CFI * cfi), (cfi))                                                                  \
  F(int, dwarf_end, -1, (Dwarf * dwarf), (dwarf))                                                                      \
  F(int, dwarf_frame_cfa, -1, (Dwarf_Frame * frame, Dwarf_Op **ops, size_t *nops), (frame, ops, nops))                  \
  F(int, dwarf_frame_info, -1, (Dwarf_Frame * frame, Dwarf_Addr *start, Dwarf_Addr *end, bool *signalp),               \
    (frame, start, end, signalp))                                                                                      \
  F(int, dwarf_frame_register, -1, (Dwarf_Frame * frame, int regno, Dwarf_Op ops_mem[3], Dwarf_Op **ops, size_t *nops), \
    (frame, regno, ops_mem, ops, nops))                                                                                \
  F(Dwarf_CFI *, dwarf_getcfi, NULL, (Dwarf * dwarf), (dwarf))                                                         \
  F(Dwarf_CFI *, dwarf_getcfi_elf, NULL, (Elf * elf), (elf))

#define ELF_FUNCTIONS(F)                                                                                               \
  F(Elf64_Ehdr *, elf64_getehdr, NULL, (Elf * elf), (elf))                                                             \
  F(Elf64_Shdr *, elf64_getshdr, NULL, (Elf_Scn * scn), (scn))                                                         \
  F(Elf *, elf_begin, NULL, (int fd, Elf_Cmd cmd, Elf *ref), (fd, cmd, ref))                                           \
  F(int, elf_cntl, -1, (Elf * elf, Elf_Cmd cmd), (elf, cmd))                                                           \
  F(int, elf_end, 0, (Elf * elf), (elf))                                                                               \
  F(Elf_Data *, elf_getdata, NULL, (Elf_Scn * scn, Elf_Data *data), (scn, data))                                      \
  F(Elf_Data *, elf_getdata_rawchunk, NULL, (Elf * elf, int64_t offset, size_t size, Elf_Type type),                   \
    (elf, offset, size, type))                                                                                         \
  F(int, elf_getphdrnum, -1, (Elf * elf, size_t *n), (elf, n))                                                         \
  F(Elf_Scn *, elf_getscn, NULL, (Elf * elf, size_t index), (elf, index))                                              \
  F(int, elf_getshdrnum, -1, (Elf * elf, size_t *n), (elf, n))                                                         \
  F(int, elf_getshdrstrndx, -1, (Elf * elf, size_t *n), (elf, n))                                                      \
  F(Elf_Kind, elf_kind, ELF_K_NONE, (Elf * elf), (elf))                                                                \
  F(Elf *, elf_memory, NULL, (char *image, size_t size), (image, size))                                                \
  F(Elf_Scn *, elf_nextscn, NULL, (Elf * elf, Elf_Scn *scn), (elf, scn))                                               \
  F(char *, elf_strptr, NULL, (Elf * elf, size_t section, size_t offset), (elf, section, offset))                     \
  F(unsigned int, elf_version, EV_NONE, (unsigned int version), (version))                                             \
  F(int, gelf_getclass, ELFCLASSNONE, (Elf * elf), (elf))                                                              \
  F(GElf_Ehdr *, gelf_getehdr, NULL, (Elf * elf, GElf_Ehdr *dst), (elf, dst))                                          \
  F(size_t, gelf_getnote, 0, (Elf_Data * data, size_t offset, GElf_Nhdr *note, size_t *name_at, size_t *desc_at),      \
    (data, offset, note, name_at, desc_at))                                                                            \
  F(GElf_Phdr *, gelf_getphdr, NULL, (Elf * elf, int index, GElf_Phdr *dst), (elf, index, dst))                        \
  F(GElf_Shdr *, gelf_getshdr, NULL, (Elf_Scn * scn, GElf_Shdr *dst), (scn, dst))                                      \
  F(GElf_Sym *, gelf_getsym, NULL, (Elf_Data * data, int index, GElf_Sym *dst), (data, index, dst))

#define FORWARD(ret, name, failed, params, args)                                                                       \
  static ret(*real_##name) params;                                                                                     \
  ret name params                                                                                                      \
  {                                                                                                                    \
    ret (*real) params = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);                                              \
    if (real == NULL)                                                                                                  \
      return failed;                                                                                                   \
    return real args;                                                                                                  \
  }
UNWIND_FUNCTIONS(FORWARD)
DW_FUNCTIONS(FORWARD)
ELF_FUNCTIONS(FORWARD)

/* The two that return nothing. */
static void (*real_unw_flush_cache)(unw_addr_space_t, unw_word_t, unw_word_t);
void unw_flush_cache(unw_addr_space_t as, unw_word_t lo, unw_word_t hi)
{
  void (*real)(unw_addr_space_t, unw_word_t, unw_word_t) = __atomic_load_n(&real_unw_flush_cache, __ATOMIC_ACQUIRE);
  if (real != NULL)
    real(as, lo, hi);
}

/* libunwind 1.8's hook (unwind_copy.c declares it weak: absent before 1.8). */
typedef int (*col_iterate_phdr_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
static void (*real_set_iterate_phdr)(unw_addr_space_t, col_iterate_phdr_fn);
void UNW_OBJ(set_iterate_phdr_function)(unw_addr_space_t as, col_iterate_phdr_fn fn)
{
  void (*real)(unw_addr_space_t, col_iterate_phdr_fn) = __atomic_load_n(&real_set_iterate_phdr, __ATOMIC_ACQUIRE);
  if (real != NULL)
    real(as, fn);
}

/* libunwind's local address space is a variable, read once the library is in. */
unw_addr_space_t unw_local_addr_space;

static int loaded;

/* One library's forwarded names and where each goes (dlsym's answer, a
 * function's address, stored in the forwarder's pointer). */
struct forward {
  const char *name;
  void **real;
};
#define FORWARD_ENTRY(ret, name, failed, params, args) {LINK_NAME(name), (void **)&real_##name},
static const struct forward unwind_forwards[] = {
    UNWIND_FUNCTIONS(FORWARD_ENTRY){LINK_NAME(unw_flush_cache), (void **)&real_unw_flush_cache}};
static const struct forward dw_forwards[] = {DW_FUNCTIONS(FORWARD_ENTRY)};
static const struct forward elf_forwards[] = {ELF_FUNCTIONS(FORWARD_ENTRY)};

/* SONAME loaded and its N names resolved; its handle, or NULL with why. */
static void *load(const char *soname, const struct forward *forwards, size_t n, char *err, size_t err_len)
{
  void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == NULL) {
    snprintf(err, err_len, "%s could not be loaded (%s)", soname, dlerror());
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    void *address = dlsym(handle, forwards[i].name);
    if (address == NULL) {
      snprintf(err, err_len, "%s lacks %s", soname, forwards[i].name);
      return NULL;
    }
    __atomic_store_n(forwards[i].real, address, __ATOMIC_RELEASE);
  }
  return handle;
}

#define COUNT(table) (sizeof table / sizeof table[0])

static int load_all(char *err, size_t err_len)
{
  if (load(GDBCOL_LIBELF_SONAME, elf_forwards, COUNT(elf_forwards), err, err_len) == NULL ||
      load(GDBCOL_LIBDW_SONAME, dw_forwards, COUNT(dw_forwards), err, err_len) == NULL)
    return -1;
  void *unwind = load(GDBCOL_LIBUNWIND_SONAME, unwind_forwards, COUNT(unwind_forwards), err, err_len);
  if (unwind == NULL)
    return -1;
  const unw_addr_space_t *local = dlsym(unwind, LINK_NAME(unw_local_addr_space));
  if (local == NULL) {
    snprintf(err, err_len, "%s lacks %s", GDBCOL_LIBUNWIND_SONAME, LINK_NAME(unw_local_addr_space));
    return -1;
  }
  unw_local_addr_space = *local;
  __atomic_store_n((void **)&real_set_iterate_phdr, dlsym(unwind, LINK_NAME(UNW_OBJ(set_iterate_phdr_function))),
                   __ATOMIC_RELEASE); /* (optional: libunwind 1.8's) */
  return 0;
}

/* The objects loaded in the process, by name as the loader has them. */
#define MAX_OBJECTS 512
struct object_names {
  const char *names[MAX_OBJECTS];
  size_t n;
};

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct object_names *list = arg;
  if (list->n < MAX_OBJECTS && info->dlpi_name != NULL && info->dlpi_name[0] == '/')
    list->names[list->n++] = info->dlpi_name;
  return 0;
}

static int among(const struct object_names *list, const char *name)
{
  for (size_t i = 0; i < list->n; i++)
    if (strcmp(list->names[i], name) == 0)
      return 1;
  return 0;
}

/* What the load brought that the program had not loaded (real paths, as
 * the kernel's map names them): the runtime's own. */
static char brought[2048];

static void note_brought(const struct object_names *before, const struct object_names *after)
{
  size_t used = 0;
  for (size_t i = 0; i < after->n; i++) {
    char real[PATH_MAX];
    if (among(before, after->names[i]) || realpath(after->names[i], real) == NULL)
      continue;
    size_t len = strlen(real);
    if (used + (used > 0) + len + 1 > sizeof brought)
      break;
    if (used > 0)
      brought[used++] = ':';
    memcpy(brought + used, real, len + 1);
    used += len;
  }
}

/* Left out of each experiment's load objects, as the launcher's list is
 * (module_map.c). */
static void list_as_runtime_objects(void)
{
  char *list = col_cfg.runtime_objects;
  size_t used = strlen(list), len = strlen(brought);
  if (len == 0 || strstr(list, brought) != NULL || used + 1 + len + 1 > sizeof col_cfg.runtime_objects)
    return;
  if (used > 0)
    list[used++] = ':';
  memcpy(list + used, brought, len + 1);
}

int col_unwind_libraries_load(char *err, size_t err_len)
{
  if (!loaded) {
    static struct object_names before, after; /* (too big for a thread's stack) */
    before.n = after.n = 0;
    dl_iterate_phdr(note_object, &before);
    if (load_all(err, err_len) != 0)
      return -1;
    dl_iterate_phdr(note_object, &after);
    note_brought(&before, &after);
    loaded = 1;
  }
  list_as_runtime_objects();
  return 0;
}
