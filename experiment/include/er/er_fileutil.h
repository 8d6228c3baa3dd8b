/* Creating files and directories of an experiment safely: never through a
 * symlink, never over existing data, with the user's umask. */
#ifndef ER_FILEUTIL_H
#define ER_FILEUTIL_H

#include <stddef.h>
#include <stdint.h>

/* openat(DIRFD, NAME, O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC|extra, 0666).
 * Returns the descriptor or a negative errno. */
int er_create_exclusive(int dirfd, const char *name, int extra_flags);

/* Writes all of BYTES, retrying on EINTR and short writes.  0 or -errno. */
int er_write_all(int fd, const void *bytes, size_t len);

/* Reads PATH (a /proc file, whose size is known only by reading it) into
 * OUT, at most LEN - 1 bytes, and NUL-terminates: the byte count, or -1. */
long er_read_text(const char *path, char *out, size_t len);
/* A /proc/.../stat file read into TEXT: its fields after the command (the
 * state first; the command may hold spaces and parentheses), or NULL. */
const char *er_proc_stat_fields(const char *path, char *text, size_t len);
/* The process or thread of STAT_PATH exists and has not ended (a zombie
 * has). */
int er_proc_alive(const char *stat_path);

/* Opens PATH for reading only when it is a regular file (never blocks on
 * a FIFO or device a damaged or hostile map.xml may name): a descriptor,
 * or -1 with errno set. */
int er_open_regular_file(const char *path);

/* Reads DIR/NAME (a regular file, at most MAX bytes) into a new buffer
 * with HEAD bytes free before the contents and TAIL + 1 after them (the
 * byte after the contents is set to NUL).  Returns 0 with *OUT (free it)
 * and *LEN, or a negative errno. */
int er_read_file(const char *dir, const char *name, size_t head, size_t tail, size_t max, char **out, size_t *len);

/* 0 when a file may grow to END bytes under the process's RLIMIT_FSIZE,
 * else -EFBIG.  Checked before writing: the kernel answers a write past
 * the limit with SIGXFSZ to the whole process, whose default action kills
 * the program. */
int er_check_file_size_limit(uint64_t end);

#endif
