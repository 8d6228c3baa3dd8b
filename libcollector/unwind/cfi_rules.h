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
/* The rule at run-time address LOOKUP_PC of an object with ELF image ELF
 * (NULL: not readable), CFI (NULL: none) and BIAS. */
void col_rule_from_cfi(Elf *elf, Dwarf_CFI *cfi, uint64_t bias, uint64_t lookup_pc, struct col_frame_rule *rule);

#endif
