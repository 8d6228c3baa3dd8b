/* The runtime's own load objects, at launch (runtime_objects.c). */
#ifndef GDBCOL_RUNTIME_OBJECTS_H
#define GDBCOL_RUNTIME_OBJECTS_H

/* The objects preloading RUNTIME loads into PROGRAM that PROGRAM does not
 * need itself, as real paths separated by ':' (malloc'd; "" when none),
 * or NULL when that cannot be told (a static program, a script). */
char *runtime_own_objects(const char *program, const char *runtime);

#endif
