/* Function names for the report, with elfutils' libdwfl: each load object
 * is read offline (the file, or its copy in archives/ when the file is
 * gone) and its symbols come from the best table found, the file's own
 * .symtab or, for stripped libraries, the separate debug info found by
 * build id (/usr/lib/debug/.build-id, or debuginfod where the user set
 * DEBUGINFOD_URLS).  That is how perf names memmove or msort_with_tmp in
 * Debian's libc, where gprofng 2.40 shows <static>@0x... */
#define _GNU_SOURCE
#include "er/er_names.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er/er_archive.h"
#include "er/er_format.h"
#include "er/er_fileutil.h"

struct loaded_object {
  char *path;
  Dwfl *dwfl;       /* NULL: unreadable */
  Dwfl_Module *mod;
  uint64_t bias;    /* module address = ELF vaddr + bias */
  Elf *elf;         /* the main file: offsets to vaddrs */
  int fd;
  int debug_found;  /* symbols from separate debug info */
};

#define PC_CACHE 65536

struct er_names {
  const struct er_experiment *exp;
  struct loaded_object *objects;
  size_t n_objects;
  struct pc_entry {
    uint64_t pc;
    char *name;
    char **inlined; /* the inlined calls at PC, innermost first (NULL-ended), or NULL */
  } *cache;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct er_names *er_names_open(const struct er_experiment *exp)
{
  struct er_names *n = calloc(1, sizeof *n);
  if (n == NULL)
    return NULL;
  n->exp = exp;
  n->cache = calloc(PC_CACHE, sizeof *n->cache);
  if (n->cache == NULL) {
    free(n);
    return NULL;
  }
  elf_version(EV_CURRENT);
  return n;
}

static void load(struct loaded_object *o, const char *experiment_path)
{
  o->fd = er_open_regular_file(o->path);
  if (o->fd < 0 && experiment_path != NULL)
    o->fd = er_archive_open_copy(experiment_path, o->path);
  if (o->fd < 0)
    return;
  o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
  o->dwfl = dwfl_begin(&callbacks);
  if (o->elf == NULL || o->dwfl == NULL)
    return;
  /* libdwfl takes the descriptor it is given: a duplicate, ours stays for libelf. */
  int fd = dup(o->fd);
  o->mod = fd >= 0 ? dwfl_report_offline(o->dwfl, o->path, o->path, fd) : NULL;
  dwfl_report_end(o->dwfl, NULL, NULL);
  if (o->mod == NULL)
    return;
  Dwarf_Addr bias = 0;
  dwfl_module_getelf(o->mod, &bias);
  o->bias = bias;
  const char *debug_file = NULL;
  dwfl_module_getsymtab(o->mod); /* finds the best symbol table, separate debug info included */
  dwfl_module_info(o->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_file);
  o->debug_found = debug_file != NULL;
}

static struct loaded_object *object_of(struct er_names *n, const char *path)
{
  for (size_t i = 0; i < n->n_objects; i++)
    if (strcmp(n->objects[i].path, path) == 0)
      return &n->objects[i];
  struct loaded_object *more = realloc(n->objects, (n->n_objects + 1) * sizeof *more);
  if (more == NULL)
    return NULL;
  n->objects = more;
  struct loaded_object *o = &n->objects[n->n_objects++];
  memset(o, 0, sizeof *o);
  o->fd = -1;
  o->path = strdup(path);
  if (o->path != NULL)
    load(o, n->exp->path);
  return o;
}

/* The functions inlined at ADDR (module address) in MOD, innermost first,
 * as a NULL-ended array; NULL when none (or no DWARF). */
static char **inlined_at(Dwfl_Module *mod, Dwarf_Addr addr)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
  Dwarf_Die *scopes = NULL;
  int n = cu != NULL ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
  char **names = NULL;
  size_t count = 0;
  for (int i = 0; i < n; i++) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
      continue;
    Dwarf_Attribute attr;
    Dwarf_Die origin;
    const char *name = NULL;
    if (dwarf_attr_integrate(&scopes[i], DW_AT_abstract_origin, &attr) != NULL &&
        dwarf_formref_die(&attr, &origin) != NULL)
      name = dwarf_diename(&origin);
    if (name == NULL)
      name = dwarf_diename(&scopes[i]);
    char **more = realloc(names, (count + 2) * sizeof *names);
    if (more == NULL || name == NULL)
      break;
    names = more;
    names[count++] = strdup(name);
    names[count] = NULL;
  }
  free(scopes);
  return names;
}

/* A PC no symbol names: the file offset where its function starts, from
 * the unwind tables (.eh_frame: one entry per function), so all its PCs
 * make one row; OFF itself when those do not cover it. */
static uint64_t unnamed_function_start(struct loaded_object *o, uint64_t off, uint64_t vaddr)
{
  Dwarf_Addr cfi_bias = 0, start, end;
  Dwarf_CFI *cfi = o != NULL && o->mod != NULL ? dwfl_module_eh_cfi(o->mod, &cfi_bias) : NULL;
  Dwarf_Frame *frame = NULL;
  if (cfi == NULL || dwarf_cfi_addrframe(cfi, vaddr + o->bias - cfi_bias, &frame) != 0 || frame == NULL)
    return off;
  int ok = dwarf_frame_info(frame, &start, &end, NULL) >= 0 && start + cfi_bias - o->bias <= vaddr;
  free(frame);
  return ok ? off - (vaddr - (start + cfi_bias - o->bias)) : off;
}

static void name_pc(struct er_names *n, uint64_t pc, char *out, size_t len, char ***inlined)
{
  *inlined = NULL;
  const struct er_segment *seg = er_experiment_segment(n->exp, pc);
  if (seg == NULL) {
    const struct er_code_region *region = er_experiment_code_region(n->exp, pc);
    if (region != NULL)
      snprintf(out, len, "%s", region->name); /* [vdso], as gprofng names it */
    else
      snprintf(out, len, "<Unknown>@0x%llx", (unsigned long long)pc);
    return;
  }
  uint64_t off = seg->foffset + (er_pc_address(pc) - seg->vaddr), vaddr = 0;
  int mapped = 0;
  const char *base = strrchr(seg->name, '/');
  base = base != NULL ? base + 1 : seg->name;
  struct loaded_object *o = object_of(n, seg->name);
  GElf_Sym sym;
  GElf_Off sym_off;
  const char *name = NULL;
  if (o != NULL && o->mod != NULL && (mapped = er_elf_offset_to_vaddr(o->elf, off, &vaddr) == 0)) {
    name = dwfl_module_addrinfo(o->mod, vaddr + o->bias, &sym_off, &sym, NULL, NULL, NULL);
    if (name != NULL)
      *inlined = inlined_at(o->mod, vaddr + o->bias);
  }
  if (name != NULL) /* without a dynamic symbol's version (clock_gettime@@GLIBC_2.17), as gprofng and perf show it */
    snprintf(out, len, "%.*s", (int)strcspn(name, "@"), name);
  else
    snprintf(out, len, "<static>@0x%llx (%s)",
             (unsigned long long)(mapped ? unnamed_function_start(o, off, vaddr) : off), base);
}

/* Is ELF address VADDR in one of ELF's loaded segments (data and bss
 * included)? */
static int in_loaded_segment(Elf *elf, uint64_t vaddr)
{
  size_t n;
  if (elf == NULL || elf_getphdrnum(elf, &n) != 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
        vaddr - ph.p_vaddr < ph.p_memsz)
      return 1;
  }
  return 0;
}

const char *er_names_data(struct er_names *n, uint64_t addr, char *out, size_t len)
{
  /* Each load object's place: where its code was mapped says where its
   * data is (one bias for the whole file). */
  for (size_t i = 0; i < n->exp->n_segments; i++) {
    const struct er_segment *seg = &n->exp->segments[i];
    struct loaded_object *o = object_of(n, seg->name);
    uint64_t code_vaddr;
    if (o == NULL || o->mod == NULL || er_elf_offset_to_vaddr(o->elf, seg->foffset, &code_vaddr) != 0)
      continue;
    uint64_t vaddr = addr - (seg->vaddr - code_vaddr);
    if (!in_loaded_segment(o->elf, vaddr))
      continue;
    GElf_Sym sym;
    GElf_Off sym_off;
    const char *name = dwfl_module_addrinfo(o->mod, vaddr + o->bias, &sym_off, &sym, NULL, NULL, NULL);
    if (name == NULL || GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
      return NULL;
    const char *base = strrchr(seg->name, '/') != NULL ? strrchr(seg->name, '/') + 1 : seg->name;
    if (sym_off != 0)
      snprintf(out, len, "%.*s+%llu (%s)", (int)strcspn(name, "@"), name, (unsigned long long)sym_off, base);
    else
      snprintf(out, len, "%.*s (%s)", (int)strcspn(name, "@"), name, base);
    return out;
  }
  return NULL;
}

static void free_inlined(char **inlined)
{
  for (size_t i = 0; inlined != NULL && inlined[i] != NULL; i++)
    free(inlined[i]);
  free(inlined);
}

static struct pc_entry *entry_of(struct er_names *n, uint64_t pc)
{
  struct pc_entry *e = &n->cache[(pc * 0x9E3779B97F4A7C15ULL) >> 48];
  if (e->name != NULL && e->pc == pc)
    return e;
  char name[512], **inlined;
  name_pc(n, pc, name, sizeof name, &inlined);
  char *copy = strdup(name);
  if (copy == NULL) {
    free_inlined(inlined);
    return NULL;
  }
  free(e->name);
  free_inlined(e->inlined);
  e->pc = pc;
  e->name = copy;
  e->inlined = inlined;
  return e;
}

/* The writer's markers in place of a PC: where a stack was cut, or where
 * its walk failed (NULL: a real PC). */
static const char *marker_name(uint64_t pc)
{
  return pc == ER_PC_TRUNCATED ? "<Truncated-stack>" : pc == ER_PC_UNWIND_FAILED ? "<Stack-unwind-failed>" : NULL;
}

const char *er_names_function(struct er_names *n, uint64_t pc)
{
  if (marker_name(pc) != NULL)
    return marker_name(pc);
  struct pc_entry *e = entry_of(n, pc);
  return e != NULL ? e->name : "<no memory>";
}

size_t er_names_frames(struct er_names *n, uint64_t pc, const char **frames, size_t max)
{
  if (max > 0 && marker_name(pc) != NULL) {
    frames[0] = marker_name(pc);
    return 1;
  }
  struct pc_entry *e = entry_of(n, pc);
  if (e == NULL || max == 0)
    return 0;
  size_t count = 0;
  for (size_t i = 0; e->inlined != NULL && e->inlined[i] != NULL && count + 1 < max; i++)
    frames[count++] = e->inlined[i];
  frames[count++] = e->name;
  return count;
}

int er_names_line(struct er_names *n, uint64_t pc, const char **file, int *line)
{
  const struct er_segment *seg = marker_name(pc) == NULL ? er_experiment_segment(n->exp, pc) : NULL;
  struct loaded_object *o = seg != NULL ? object_of(n, seg->name) : NULL;
  uint64_t vaddr;
  if (o == NULL || o->mod == NULL ||
      er_elf_offset_to_vaddr(o->elf, seg->foffset + (er_pc_address(pc) - seg->vaddr), &vaddr) != 0)
    return -1;
  Dwfl_Line *at = dwfl_module_getsrc(o->mod, vaddr + o->bias);
  const char *src = at != NULL ? dwfl_lineinfo(at, NULL, line, NULL, NULL, NULL) : NULL;
  if (src == NULL || *line <= 0)
    return -1;
  *file = src;
  return 0;
}

size_t er_names_debug_info_found(const struct er_names *n, char ***paths)
{
  size_t count = 0;
  *paths = calloc(n->n_objects + 1, sizeof **paths);
  for (size_t i = 0; *paths != NULL && i < n->n_objects; i++)
    if (n->objects[i].debug_found)
      (*paths)[count++] = n->objects[i].path;
  return count;
}

void er_names_close(struct er_names *n)
{
  if (n == NULL)
    return;
  for (size_t i = 0; i < PC_CACHE; i++) {
    free(n->cache[i].name);
    free_inlined(n->cache[i].inlined);
  }
  free(n->cache);
  for (size_t i = 0; i < n->n_objects; i++) {
    struct loaded_object *o = &n->objects[i];
    if (o->dwfl != NULL)
      dwfl_end(o->dwfl);
    if (o->elf != NULL)
      elf_end(o->elf);
    if (o->fd >= 0)
      close(o->fd);
    free(o->path);
  }
  free(n->objects);
  free(n);
}
