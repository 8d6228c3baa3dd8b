/* PC to function name with libelf, for the reader; see er/er_reader.h.
 * Mirrors how gprofng resolves: map PC to a file offset through the
 * segment, then the file offset to a symbol through the program headers. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "er/er_archive.h"
#include "er/er_fileutil.h"
#include "er/er_reader.h"

int er_elf_offset_to_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
  size_t n;
  if (elf_getphdrnum(elf, &n) != 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && off >= ph.p_offset &&
        off < ph.p_offset + ph.p_filesz) {
      *vaddr = off - ph.p_offset + ph.p_vaddr;
      return 0;
    }
  }
  return -1;
}

static int lookup(Elf *elf, uint64_t addr, char *out, size_t out_len)
{
  Elf_Scn *scn = NULL;
  int found = 0;
  uint64_t best_size = 0;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_entsize == 0)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; data && i < count; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
        continue;
      if (addr >= sym.st_value && addr < sym.st_value + (sym.st_size ? sym.st_size : 1) && (!found || sym.st_size < best_size)) {
        const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (name) {
          snprintf(out, out_len, "%s", name);
          found = 1;
          best_size = sym.st_size;
        }
      }
    }
    if (found)
      return 0; /* .symtab comes first when present and is the richer table */
  }
  return -1;
}

void er_symbolize(const struct er_experiment *exp, const struct er_segment *seg, uint64_t pc, char *out,
                  size_t out_len)
{
  pc = er_pc_address(pc);
  uint64_t off = seg ? seg->foffset + (pc - seg->vaddr) : 0;
  if (seg == NULL) {
    /* Code without a file: the vDSO, or code the program generated and
     * named (collector_func_load): its function record's name. */
    const struct er_code_region *region = er_experiment_code_region(exp, pc);
    if (region != NULL)
      snprintf(out, out_len, "%s", region->name);
    else
      snprintf(out, out_len, "<Unknown>@0x%llx", (unsigned long long)pc);
    return;
  }
  elf_version(EV_CURRENT);
  int fd = er_open_regular_file(seg->name);
  if (fd < 0 && exp->path != NULL)
    fd = er_archive_open_copy(exp->path, seg->name);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  uint64_t vaddr;
  if (elf == NULL || er_elf_offset_to_vaddr(elf, off, &vaddr) != 0 || lookup(elf, vaddr, out, out_len) != 0) {
    const char *base = strrchr(seg->name, '/');
    snprintf(out, out_len, "<static>@0x%llx (%s)", (unsigned long long)off, base ? base + 1 : seg->name);
  }
  if (elf)
    elf_end(elf);
  if (fd >= 0)
    close(fd);
}
