/* The dynamic tables of a loaded object, as the loader relocated them:
 * what a rewrite of its GOT slots reads (the runtime's interposition after
 * an attach, interpose/got_patch.c; GDB's repaired ptrace calls,
 * gdb-plugin/native/xstate_writes.c). */
#ifndef GDBCOL_ELF_DYNAMIC_H
#define GDBCOL_ELF_DYNAMIC_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

struct col_dynamic_tables {
  const ElfW(Sym) *symtab;
  const char *strtab;
  const ElfW(Rela) *rela, *jmprel;
  size_t rela_size, jmprel_size;
  const ElfW(Half) *versym; /* per symbol: its version's index, or NULL */
  const ElfW(Verneed) *verneed;
  size_t verneed_count;
};

/* INFO's tables into OUT: 0, or -1 where it has no dynamic symbols. */
int col_read_dynamic(const struct dl_phdr_info *info, struct col_dynamic_tables *out);
/* The pages the loader made read-only after relocating INFO (PT_GNU_RELRO,
 * its whole pages of PAGE bytes, as glibc's _dl_protect_relro rounds them:
 * a last partial page stays writable) into [*START, *END); both 0: none. */
void col_relro_pages(const struct dl_phdr_info *info, uintptr_t page, uintptr_t *start, uintptr_t *end);

#endif
