/* The name of the function holding a code address, from its object's
 * symbol tables (.symtab where the object kept it, .dynsym always: glibc's
 * entry points, which is what the off-CPU reasons need).  The name points
 * into the object's image, valid until the objects are forgotten.  Only
 * the recording thread calls here; each lookup scans the tables, so the
 * caller keeps what it learned per address. */
#define _GNU_SOURCE
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "unwind/unwind.h"

/* The FUNC symbol of SCN's table that holds ADDR: its name, or NULL; a
 * symbol without size holds up to the next one (kept in *BEST_START). */
static const char *search_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t addr, uint64_t *best_start)
{
  Elf_Data *data = elf_getdata(scn, NULL);
  if (data == NULL || sh->sh_entsize == 0)
    return NULL;
  const char *best = NULL;
  size_t count = sh->sh_size / sh->sh_entsize;
  for (size_t i = 0; i < count; i++) {
    GElf_Sym sym;
    if (gelf_getsym(data, (int)i, &sym) == NULL || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0 ||
        sym.st_value > addr)
      continue;
    if (sym.st_size > 0 ? addr - sym.st_value < sym.st_size : sym.st_value > *best_start) {
      const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
      if (name == NULL || name[0] == '\0')
        continue;
      if (sym.st_size > 0)
        return name;
      best = name;
      *best_start = sym.st_value;
    }
  }
  return best;
}

const char *col_function_name(uint64_t pc)
{
  Elf *elf;
  uint64_t bias;
  if (col_unwind_object_of(pc, &elf, &bias) != 0)
    return NULL;
  uint64_t addr = pc - bias, unsized_start = 0;
  const char *unsized = NULL;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == NULL || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
      continue;
    const char *name = search_table(elf, scn, &sh, addr, &unsized_start);
    if (name != NULL && unsized_start == 0)
      return name;
    if (name != NULL)
      unsized = name;
  }
  return unsized;
}
