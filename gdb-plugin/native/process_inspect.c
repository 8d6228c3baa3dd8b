/* What the plugin needs to know about a running process before it injects
 * the runtime: which C library it runs (glibc, musl, none: static), where
 * an object is loaded, and the run-time address of an exported function,
 * read from /proc/PID/maps and the object's ELF dynamic symbol table.
 *
 * Addresses come from the files, not from GDB's symbol tables, so the
 * attach works on stripped libraries and never waits for GDB to read debug
 * information.  Files are opened through /proc/PID/root, so a process in a
 * container is inspected in its own file-system view. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_maps.h"
#include "process_inspect.h"

/* Calls FN for every file-backed mapping of PID: (start, end, offset,
 * path, executable).  Returns -1 when the process cannot be read (gone, or
 * not ours). */
typedef int (*mapping_fn)(uint64_t start, uint64_t end, uint64_t offset, const char *path, int exec, void *arg);

struct file_mappings {
  mapping_fn fn;
  void *arg;
};

static int file_mapping(const struct gdbcol_mapping *m, void *arg)
{
  struct file_mappings *want = arg;
  return m->path[0] == '/' ? want->fn(m->start, m->end, m->offset, m->path, m->exec, want->arg) : 0;
}

static int for_each_mapping(int pid, mapping_fn fn, void *arg)
{
  struct file_mappings want = {fn, arg};
  return gdbcol_for_each_mapping(pid, file_mapping, &want);
}

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

struct libc_scan {
  int glibc, musl, loader;
  char *libc_path, *loader_path;
  size_t len;
};

static int classify(uint64_t start, uint64_t end, uint64_t offset, const char *path, int exec, void *arg)
{
  (void)start, (void)end, (void)offset, (void)exec;
  struct libc_scan *scan = arg;
  const char *name = base_name(path);
  if (strncmp(name, "libc.so.6", 9) == 0 || (strncmp(name, "libc-2.", 7) == 0 && strstr(name, ".so"))) {
    scan->glibc = 1;
    snprintf(scan->libc_path, scan->len, "%s", path);
  } else if (strncmp(name, "ld-musl", 7) == 0 || strncmp(name, "libc.musl", 9) == 0 || strstr(path, "-musl/") != NULL ||
             strstr(path, "/musl/") != NULL) {
    /* musl's loader is its libc: Debian maps /usr/lib/x86_64-linux-musl/libc.so */
    scan->musl = 1;
  } else if (strncmp(name, "ld-linux", 8) == 0 || strncmp(name, "ld64.so", 7) == 0) {
    scan->loader = 1;
    if (scan->loader_path != NULL)
      snprintf(scan->loader_path, scan->len, "%s", path);
  }
  return 0;
}

int gdbcol_process_kind(int pid, char *libc_path, char *loader_path, int len)
{
  struct libc_scan scan = {0, 0, 0, libc_path, loader_path, (size_t)len};
  if (len > 0)
    libc_path[0] = loader_path[0] = '\0';
  if (for_each_mapping(pid, classify, &scan) != 0)
    return GDBCOL_PROCESS_UNREADABLE;
  if (scan.musl)
    return GDBCOL_PROCESS_MUSL;
  if (scan.glibc && scan.loader)
    return GDBCOL_PROCESS_GLIBC;
  if (!scan.loader && !scan.glibc)
    return GDBCOL_PROCESS_STATIC;
  return GDBCOL_PROCESS_OTHER_LIBC;
}

/* A loaded object is found by its executable mapping: a file can also be
 * mapped whole and read-only (libelf does that, the runtime's unwinder
 * among others), and that copy must not be taken for the loaded one. */
struct find_object {
  const char *path;
  int found;
  uint64_t start, end, offset; /* of the executable mapping */
};

static int find_text_mapping(uint64_t start, uint64_t end, uint64_t offset, const char *path, int exec, void *arg)
{
  struct find_object *want = arg;
  if (exec && strcmp(path, want->path) == 0) {
    want->found = 1;
    want->start = start;
    want->end = end;
    want->offset = offset;
    return 1;
  }
  return 0;
}

int gdbcol_process_has_object(int pid, const char *path)
{
  char real[PATH_MAX];
  struct find_object want = {realpath(path, real) ? real : path, 0, 0, 0, 0};
  return for_each_mapping(pid, find_text_mapping, &want) == 0 && want.found;
}

/* The ELF address that file offset OFFSET (inside a PT_LOAD) is loaded at. */
static int vaddr_of_offset(Elf *elf, uint64_t offset, uint64_t *vaddr)
{
  size_t nph;
  if (elf_getphdrnum(elf, &nph) != 0)
    return -1;
  for (size_t i = 0; i < nph; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
        offset + 4096 > ph.p_offset && offset < ph.p_offset + ph.p_filesz) {
      *vaddr = ph.p_vaddr + offset - ph.p_offset; /* p_vaddr = p_offset (mod page) */
      return 0;
    }
  }
  return -1;
}

/* Value of the defined dynamic symbol NAME (the default version when the
 * object has several). */
static int read_symbol(Elf *elf, const char *name, uint64_t *value)
{
  Elf_Scn *scn = NULL, *dynsym = NULL, *versym = NULL;
  GElf_Shdr sh, dynsym_sh;
  memset(&dynsym_sh, 0, sizeof dynsym_sh);
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    if (gelf_getshdr(scn, &sh) == NULL)
      continue;
    if (sh.sh_type == SHT_DYNSYM) {
      dynsym = scn;
      dynsym_sh = sh;
    } else if (sh.sh_type == SHT_GNU_versym) {
      versym = scn;
    }
  }
  if (dynsym == NULL)
    return -1;
  Elf_Data *syms = elf_getdata(dynsym, NULL), *versions = versym ? elf_getdata(versym, NULL) : NULL;
  size_t count = dynsym_sh.sh_entsize ? dynsym_sh.sh_size / dynsym_sh.sh_entsize : 0;
  int found = 0;
  for (size_t i = 0; i < count; i++) {
    GElf_Sym sym;
    if (gelf_getsym(syms, (int)i, &sym) == NULL || sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
      continue;
    const char *sym_name = elf_strptr(elf, dynsym_sh.sh_link, sym.st_name);
    if (sym_name == NULL || strcmp(sym_name, name) != 0)
      continue;
    GElf_Versym ver = 0;
    int hidden = versions != NULL && gelf_getversym(versions, (int)i, &ver) != NULL && (ver & 0x8000);
    if (!found || !hidden)
      *value = sym.st_value;
    found = 1;
    if (!hidden)
      break;
  }
  return found ? 0 : -1;
}

/* The file mapped at WANT: the mapping itself where this process may open
 * it (/proc/PID/map_files, root's), else by its path in the process's own
 * root.  /proc/PID/maps prints paths as seen from the reader's root: for a
 * process in another mount namespace (a container's, or a chroot's
 * unshared one) the path may not name that file from either root, or name
 * another (the C library of the debugger's side, whose symbols would be
 * at other addresses). */
static int open_mapped_file(int pid, const struct find_object *want)
{
  char file[PATH_MAX + 64];
  snprintf(file, sizeof file, "/proc/%d/map_files/%llx-%llx", pid, (unsigned long long)want->start,
           (unsigned long long)want->end);
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    return fd;
  snprintf(file, sizeof file, "/proc/%d/root%s", pid, want->path);
  return open(file, O_RDONLY | O_CLOEXEC);
}

uint64_t gdbcol_process_symbol(int pid, const char *object_path, const char *name)
{
  char real[PATH_MAX];
  struct find_object want = {realpath(object_path, real) ? real : object_path, 0, 0, 0, 0};
  if (for_each_mapping(pid, find_text_mapping, &want) != 0 || !want.found)
    return 0;
  int fd = open_mapped_file(pid, &want);
  if (fd < 0)
    return 0;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  uint64_t value = 0, text_vaddr = 0, address = 0;
  if (elf != NULL && vaddr_of_offset(elf, want.offset, &text_vaddr) == 0 && read_symbol(elf, name, &value) == 0)
    address = want.start - text_vaddr + value;
  if (elf != NULL)
    elf_end(elf);
  close(fd);
  return address;
}
