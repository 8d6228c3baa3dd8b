/* One frame rule (unwind.h's struct col_frame_rule) from an object's call
 * frame information: the objects belong to the caller (cfi_rules.c). */
#ifndef COL_UNWIND_CFI_RULES_H
#define COL_UNWIND_CFI_RULES_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdint.h>

#include "unwind/unwind.h"

/* ELF's call frame information (.eh_frame, else .debug_frame, owned by
 * *DEBUG when that is not NULL afterwards), or NULL. */
Dwarf_CFI *col_open_cfi(Elf *elf, Dwarf **debug);
/* The ELF image of the file at PATH, mapped whole (no descriptor kept
 * open), or NULL; refused when INODE (0: any) is not the file's (a file
 * replaced since it was loaded). */
Elf *col_open_elf_file(const char *path, unsigned long inode);
/* The vDSO's ELF image at BASE in this process's memory. */
Elf *col_open_vdso(uint64_t base);
/* *BIAS = run-time minus ELF address of the object whose mapping at BASE
 * begins at file OFFSET; 0, or -1 when no segment holds OFFSET. */
int col_elf_bias(Elf *elf, uint64_t base, uint64_t offset, uint64_t *bias);
/* What an object's frame rules come from (CFI NULL: none, DEBUG as above). */
struct col_object_rules {
  Elf *elf;
  Dwarf_CFI *cfi;
  Dwarf *debug;
  uint64_t bias;
};
/* The object of another process's executable mapping at START, file
 * OFFSET on, named NAME in its maps: "[vdso]" (the kernel's image, read
 * from our own), else the file opened at FILE (NAME, or NAME through that
 * process's root), refused unless it is INODE.  0, or -1 with OUT empty
 * (not readable, or not the file mapped there). */
int col_open_mapped_object(const char *name, const char *file, unsigned long inode, uint64_t start, uint64_t offset,
                           struct col_object_rules *out);
/* Frees what RULES holds (col_open_mapped_object's, or filled by hand). */
void col_close_object_rules(struct col_object_rules *rules);
/* The rule at run-time address LOOKUP_PC of an object with ELF image ELF
 * (NULL: not readable), CFI (NULL: none) and BIAS. */
void col_rule_from_cfi(Elf *elf, Dwarf_CFI *cfi, uint64_t bias, uint64_t lookup_pc, struct col_frame_rule *rule);

#endif
