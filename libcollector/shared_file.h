/* Memory shared by the program's runtime and the sampler process through a
 * small file beside the status file (the control page, the trace ring):
 * created exclusively (a leftover of an earlier run of the session is
 * replaced), never through a symlink, mapped, its descriptor closed at
 * once so that the program keeps none of ours. */
#ifndef GDBCOL_SHARED_FILE_H
#define GDBCOL_SHARED_FILE_H

#include <stddef.h>
#include <stdint.h>

/* A new file PATH of SIZE bytes (sparse), mapped: 0 and *OUT, or -errno.
 * The caller stores its magic (the first word) last. */
int col_shared_file_create(const char *path, size_t size, void **out);
/* The file PATH mapped when it is at least SIZE bytes and begins with
 * MAGIC: 0 and *OUT, or -errno (-EINVAL: not ours, or not ready). */
int col_shared_file_attach(const char *path, size_t size, uint64_t magic, void **out);

#endif
