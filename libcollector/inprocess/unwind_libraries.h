/* The stack-walking libraries (libdw, libelf, libunwind), loaded into the
 * program only when the runtime walks stacks there itself.
 *
 * Where the sampler process records (the usual case, at launch and after
 * an attach), the runtime never walks a stack and never reads an ELF file:
 * those libraries and theirs (liblzma, libz, libbz2) would only cost each
 * exec and each attach.  Measured on the 2-vCPU VM with GDB attached: the
 * inferior dlopen of the runtime took 16-32 ms with them, 8-13 ms without;
 * an exec of /bin/true with the runtime preloaded cost 2.1 ms more than a
 * plain one with them, 1.0 ms without (docs/measurements.md).
 *
 * The runtime is linked against none of them: unwind_libraries.c defines
 * every function of theirs the runtime's code calls, each forwarding to the
 * library's own once col_unwind_libraries_load has loaded them, and failing
 * harmlessly before (NULL, -1, nothing done), so no call ever jumps to
 * address 0.  The sampler process links them as usual. */
#ifndef GDBCOL_UNWIND_LIBRARIES_H
#define GDBCOL_UNWIND_LIBRARIES_H

#include <stddef.h>

/* Loads the three libraries (once; RTLD_LOCAL, so the program's own
 * lookups never find them) and adds what they brought into the program to
 * the experiment's list of the runtime's own objects (each experiment's:
 * left out of its load objects).  0, or -1 with why in ERR.  Not from a
 * signal handler or an interposed call: it takes the loader's lock. */
int col_unwind_libraries_load(char *err, size_t err_len);

#endif
