/* Archived copies that name static functions (er/er_archive_symbols.h).
 *
 * Debian's libraries carry no .symtab, and gprofng 2.40 does not read
 * separate debug info, so it shows their static functions (memmove's
 * variants, _int_free, msort_with_tmp) as <static>@0x...  A copy of the
 * library with the debug file's .symtab and .strtab added, put in the
 * experiment's archives/ (where gprofng looks first), gives gprofng every
 * name, with no change to gprofng: measured with eu-unstrip on libc.
 *
 * The copy is the file's bytes unchanged, followed by the two tables, a
 * section-name table with their names added, and a new section header
 * table: the old headers, the two new ones.  The debug file (objcopy
 * --only-keep-debug) keeps the stripped file's section headers, then adds
 * its own (.debug_*), so its symbols' section indexes hold in the copy
 * where the section names agree; a symbol of another section (the debug
 * sections' own) is made absolute. */
#define _GNU_SOURCE
#include "er/er_archive_symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_fileutil.h"

#define DEBUG_ROOT "/usr/lib/debug"

/* The section of ELF of TYPE (the first), or NULL. */
static Elf_Scn *section_of_type(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn(elf, scn)) != NULL)
    if (gelf_getshdr(scn, sh) != NULL && sh->sh_type == type)
      return scn;
  return NULL;
}

static int has_section_of_type(int fd, Elf64_Word type)
{
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  GElf_Shdr sh;
  int has = elf != NULL && section_of_type(elf, type, &sh) != NULL;
  elf_end(elf);
  return has;
}

int er_has_symtab(int fd)
{
  return has_section_of_type(fd, SHT_SYMTAB);
}

int er_has_dynsym(int fd)
{
  return has_section_of_type(fd, SHT_DYNSYM);
}

/* The .gnu_debuglink file name of ELF, into OUT; 0, or -1. */
static int debuglink(Elf *elf, char *out, size_t len)
{
  size_t shstrndx;
  Elf_Scn *scn = NULL;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return -1;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    const char *name;
    if (gelf_getshdr(scn, &sh) == NULL || (name = elf_strptr(elf, shstrndx, sh.sh_name)) == NULL ||
        strcmp(name, ".gnu_debuglink") != 0)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (data == NULL || data->d_size == 0 || memchr(data->d_buf, '\0', data->d_size) == NULL)
      return -1;
    snprintf(out, len, "%s", (const char *)data->d_buf);
    return 0;
  }
  return -1;
}

int er_find_debug_file(const char *path, const char *build_id, char *out, size_t len)
{
  /* By build id first: the debug file of exactly this build. */
  if (build_id != NULL && strlen(build_id) > 2) {
    snprintf(out, len, "%s/.build-id/%.2s/%s.debug", DEBUG_ROOT, build_id, build_id + 2);
    if (access(out, R_OK) == 0)
      return 0;
  }
  /* Else the debug link, in GDB's places: beside the file, in .debug/
   * beside it, under the debug root. */
  int fd = er_open_regular_file(path);
  if (fd < 0)
    return -1;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  char link[256];
  int found = -1;
  if (elf != NULL && debuglink(elf, link, sizeof link) == 0 && strchr(link, '/') == NULL) {
    const char *slash = strrchr(path, '/');
    int dir_len = slash != NULL ? (int)(slash - path) : 0;
    const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s", DEBUG_ROOT "%.*s/%s"};
    for (size_t i = 0; i < 3 && found != 0; i++) {
      snprintf(out, len, forms[i], dir_len, path, link);
      if (strcmp(out, path) != 0 && access(out, R_OK) == 0)
        found = 0;
    }
  }
  elf_end(elf);
  close(fd);
  return found;
}

static int write_at(int fd, const void *buf, size_t len, off_t at)
{
  const char *p = buf;
  while (len > 0) {
    ssize_t n = pwrite(fd, p, len, at);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? -errno : -EIO;
    p += n, len -= (size_t)n, at += n;
  }
  return 0;
}

static off_t aligned(off_t at, off_t to)
{
  return (at + to - 1) / to * to;
}

int er_fold_symbols(int from, int debug_fd, int to)
{
  elf_version(EV_CURRENT);
  int rc = -1;
  Elf *elf = elf_begin(from, ELF_C_READ_MMAP, NULL), *dbg = elf_begin(debug_fd, ELF_C_READ_MMAP, NULL);
  Elf64_Ehdr *eh = elf != NULL ? elf64_getehdr(elf) : NULL;
  Elf64_Shdr *old = NULL;
  GElf_Shdr symtab_sh, strtab_sh, sh;
  Elf_Scn *symtab = dbg != NULL ? section_of_type(dbg, SHT_SYMTAB, &symtab_sh) : NULL;
  size_t n_sections = 0, n_debug_sections = 0, shstrndx = 0, debug_shstrndx = 0;
  Elf64_Sym *symbols = NULL;
  if (eh == NULL || symtab == NULL || elf_getshdrnum(elf, &n_sections) != 0 ||
      elf_getshdrnum(dbg, &n_debug_sections) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0 ||
      elf_getshdrstrndx(dbg, &debug_shstrndx) != 0 || section_of_type(elf, SHT_SYMTAB, &sh) != NULL ||
      n_sections + 2 >= SHN_LORESERVE || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      gelf_getclass(dbg) != ELFCLASS64)
    goto out; /* not 64-bit, no debug symbols, or symbols already */
  Elf_Scn *strtab = elf_getscn(dbg, symtab_sh.sh_link), *names = elf_getscn(elf, shstrndx);
  Elf_Data *sym_data = elf_getdata(symtab, NULL), *str_data, *name_data;
  if (strtab == NULL || gelf_getshdr(strtab, &strtab_sh) == NULL || (str_data = elf_getdata(strtab, NULL)) == NULL ||
      sym_data == NULL || names == NULL || (name_data = elf_getdata(names, NULL)) == NULL)
    goto out;
  old = calloc(n_sections + 2, sizeof *old);
  symbols = malloc(sym_data->d_size + 1);
  if (old == NULL || symbols == NULL || symtab_sh.sh_entsize != sizeof(Elf64_Sym))
    goto out;
  /* Each symbol's section: the same index in the copy where both files
   * name that section alike; else absolute (its value stays). */
  memcpy(symbols, sym_data->d_buf, sym_data->d_size);
  size_t agreeing = 0;
  for (size_t i = 0; i < sym_data->d_size / sizeof *symbols; i++) {
    Elf64_Half k = symbols[i].st_shndx;
    if (k == SHN_UNDEF || k >= SHN_LORESERVE)
      continue;
    GElf_Shdr a, b;
    const char *name_a = NULL, *name_b = NULL;
    if (k < n_sections && k < n_debug_sections && gelf_getshdr(elf_getscn(elf, k), &a) != NULL &&
        gelf_getshdr(elf_getscn(dbg, k), &b) != NULL)
      name_a = elf_strptr(elf, shstrndx, a.sh_name), name_b = elf_strptr(dbg, debug_shstrndx, b.sh_name);
    if (name_a != NULL && name_b != NULL && strcmp(name_a, name_b) == 0)
      agreeing++;
    else
      symbols[i].st_shndx = SHN_ABS;
  }
  if (agreeing == 0)
    goto out; /* not this file's debug info */
  for (size_t i = 0; i < n_sections; i++) {
    Elf_Scn *scn = elf_getscn(elf, i);
    Elf64_Shdr *s = scn != NULL ? elf64_getshdr(scn) : NULL;
    if (s == NULL)
      goto out;
    old[i] = *s;
  }
  struct stat st;
  if (fstat(from, &st) != 0)
    goto out;
  /* The tables after the file's bytes (which the caller copied to TO). */
  off_t sym_at = aligned(st.st_size, 8);
  off_t str_at = sym_at + (off_t)sym_data->d_size;
  off_t names_at = str_at + (off_t)str_data->d_size;
  static const char added[] = ".symtab\0.strtab";
  size_t names_size = name_data->d_size + sizeof added;
  off_t headers_at = aligned(names_at + (off_t)names_size, 8);
  Elf64_Shdr *s = &old[n_sections];
  *s = (Elf64_Shdr){.sh_name = (Elf64_Word)name_data->d_size, .sh_type = SHT_SYMTAB, .sh_offset = (Elf64_Off)sym_at,
                    .sh_size = sym_data->d_size, .sh_link = (Elf64_Word)(n_sections + 1),
                    .sh_info = (Elf64_Word)symtab_sh.sh_info, .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym)};
  old[n_sections + 1] = (Elf64_Shdr){.sh_name = (Elf64_Word)(name_data->d_size + 8), .sh_type = SHT_STRTAB,
                                     .sh_offset = (Elf64_Off)str_at, .sh_size = str_data->d_size, .sh_addralign = 1};
  old[shstrndx].sh_offset = (Elf64_Off)names_at;
  old[shstrndx].sh_size = names_size;
  Elf64_Ehdr header = *eh;
  header.e_shoff = (Elf64_Off)headers_at;
  header.e_shnum = (Elf64_Half)(n_sections + 2);
  int w = write_at(to, symbols, sym_data->d_size, sym_at);
  if (w == 0)
    w = write_at(to, str_data->d_buf, str_data->d_size, str_at);
  if (w == 0)
    w = write_at(to, name_data->d_buf, name_data->d_size, names_at);
  if (w == 0)
    w = write_at(to, added, sizeof added, names_at + (off_t)name_data->d_size);
  if (w == 0)
    w = write_at(to, old, (n_sections + 2) * sizeof *old, headers_at);
  if (w == 0)
    w = write_at(to, &header, sizeof header, 0);
  rc = w == 0 ? 1 : w;
out:
  free(symbols);
  free(old);
  elf_end(elf);
  elf_end(dbg);
  return rc;
}
