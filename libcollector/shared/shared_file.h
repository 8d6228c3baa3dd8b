/* Memory shared by the program's runtime and the sampler process through a
 * small file beside the status file (the control page, the trace ring):
 * created exclusively (a leftover of an earlier run of the session is
 * replaced), never through a symlink, mapped, its descriptor closed at
 * once so that the program keeps none of ours. */
#ifndef GDBCOL_SHARED_FILE_H
#define GDBCOL_SHARED_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* SPARSE: pages are made as they are first written.  RESIDENT: the file's
 * blocks are allocated at creation and every mapping is populated at once,
 * for memory written at high rates from the program's threads (measured:
 * first writes to a sparse file's pages cost the trace ring's events 4 us
 * each in page faults on this VM). */
enum col_shared_backing { COL_SHARED_SPARSE, COL_SHARED_RESIDENT };

/* A new file PATH of SIZE bytes, mapped: 0 and *OUT, or -errno.  The
 * caller stores its magic (the first word) last. */
int col_shared_file_create(const char *path, size_t size, enum col_shared_backing backing, void **out);
/* The file PATH mapped when it is at least SIZE bytes and begins with
 * MAGIC: 0 and *OUT, or -errno (-EINVAL: not ours, or not ready). */
int col_shared_file_attach(const char *path, size_t size, uint64_t magic, enum col_shared_backing backing,
                           void **out);
/* Files created from now on belong to UID:GID (mode 0600 still): when
 * root's GDB records another user's process, that process's runtime must
 * open them, and only it (its files, not the session's directory). */
void col_shared_file_owner(uid_t uid, gid_t gid);
/* The creator, at its end: PATH removed if it is still the file this
 * process created there (a later run of the session may have made its
 * own under the same name). */
void col_shared_file_remove(const char *path);

#endif
