/* Archived copies with the symbols of separate debug info folded in, so
 * that gprofng names a stripped library's static functions
 * (er_archive_symbols.c). */
#ifndef ER_ARCHIVE_SYMBOLS_H
#define ER_ARCHIVE_SYMBOLS_H

#include <stddef.h>

/* Nonzero when the ELF file open on FD has a .symtab. */
int er_has_symtab(int fd);
/* Whether it has a dynamic symbol table (its exported functions' names). */
int er_has_dynsym(int fd);
/* The separate debug file of the object at PATH (BUILD_ID: its hex
 * build-id, or NULL): by build id under /usr/lib/debug/.build-id, else by
 * its .gnu_debuglink beside it, in .debug/ or under /usr/lib/debug.  0
 * with its path in OUT, or -1. */
int er_find_debug_file(const char *path, const char *build_id, char *out, size_t len);
/* TO holds a byte copy of the ELF file open on FROM: adds the .symtab and
 * .strtab of the debug file open on DEBUG_FD (and their section headers).
 * 1 when folded, -1 when it does not apply (no symbols there, a layout
 * that differs, symbols already, not 64-bit), or a negative errno. */
int er_fold_symbols(int from, int debug_fd, int to);

#endif
