/* The runtime's own load objects, at launch (runtime_objects.c). */
#ifndef GDBCOL_RUNTIME_OBJECTS_H
#define GDBCOL_RUNTIME_OBJECTS_H

/* The objects preloading RUNTIME loads into PROGRAM that PROGRAM does not
 * need itself, as real paths separated by ':' (malloc'd; "" when none),
 * or NULL when that cannot be told (a static program, a script).
 * SANITIZERS: the sanitizer runtimes PROGRAM was linked with (malloc'd,
 * ':'-separated), or NULL. */
char *runtime_own_objects(const char *program, const char *runtime, char **sanitizers);
/* PATH names a sanitizer's runtime that must come first among the loaded
 * objects (AddressSanitizer's and HWASan's, GCC's or clang's: they refuse
 * to start otherwise). */
int runtime_is_sanitizer(const char *path);

#endif
