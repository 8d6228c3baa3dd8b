/* Reading a loaded object's dynamic section (elf_dynamic.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "elf_dynamic.h"

int col_read_dynamic(const struct dl_phdr_info *info, struct col_dynamic_tables *out)
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
      case DT_VERSYM: out->versym = (const ElfW(Half) *)d->d_un.d_ptr; break;
      case DT_VERNEED: /* not relocated by glibc (its own reader adds the base) */
        out->verneed = (const ElfW(Verneed) *)(d->d_un.d_ptr < info->dlpi_addr ? info->dlpi_addr + d->d_un.d_ptr
                                                                                : d->d_un.d_ptr);
        break;
      case DT_VERNEEDNUM: out->verneed_count = d->d_un.d_val; break;
      }
    }
    return out->symtab != NULL && out->strtab != NULL ? 0 : -1;
  }
  return -1;
}

void col_relro_pages(const struct dl_phdr_info *info, uintptr_t page, uintptr_t *start, uintptr_t *end)
{
  *start = *end = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_GNU_RELRO) {
      *start = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
      *end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(page - 1);
    }
  }
}
