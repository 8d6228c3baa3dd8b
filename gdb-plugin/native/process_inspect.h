/* Inspecting a running process before injecting the runtime (the plugin
 * calls these through ctypes; see process_inspect.c). */
#ifndef GDBCOL_PROCESS_INSPECT_H
#define GDBCOL_PROCESS_INSPECT_H

#include <stdint.h>

enum {
  GDBCOL_PROCESS_GLIBC = 0,      /* dynamically linked against glibc */
  GDBCOL_PROCESS_STATIC = 1,     /* no dynamic loader, no shared libc */
  GDBCOL_PROCESS_MUSL = 2,       /* musl's loader or libc is mapped */
  GDBCOL_PROCESS_OTHER_LIBC = 3, /* a dynamic loader without glibc */
  GDBCOL_PROCESS_UNREADABLE = 4, /* gone, or /proc/PID/maps not readable */
};

/* One of the kinds above; LIBC_PATH and LOADER_PATH (LEN bytes each) get
 * the paths of glibc and of the dynamic loader when found. */
int gdbcol_process_kind(int pid, char *libc_path, char *loader_path, int len);
/* Nonzero when PATH (resolved) is mapped in PID. */
int gdbcol_process_has_object(int pid, const char *path);
/* Run-time address in PID of the exported function NAME of the object at
 * OBJECT_PATH, or 0 when the object is not loaded or has no such symbol. */
uint64_t gdbcol_process_symbol(int pid, const char *object_path, const char *name);

#endif
