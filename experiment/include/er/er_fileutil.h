/* Creating files and directories of an experiment safely: never through a
 * symlink, never over existing data, with the user's umask. */
#ifndef ER_FILEUTIL_H
#define ER_FILEUTIL_H

#include <stddef.h>

/* openat(DIRFD, NAME, O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC|extra, 0666).
 * Returns the descriptor or a negative errno. */
int er_create_exclusive(int dirfd, const char *name, int extra_flags);

/* Writes all of BYTES, retrying on EINTR and short writes.  0 or -errno. */
int er_write_all(int fd, const void *bytes, size_t len);

#endif
