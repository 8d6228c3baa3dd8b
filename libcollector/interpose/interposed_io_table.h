/* The I/O group of the interposed functions (interposed_table.h for what
 * the table gives).  Only names and tokens, as there. */
#ifndef GDBCOL_INTERPOSED_IO_TABLE_H
#define GDBCOL_INTERPOSED_IO_TABLE_H

/* io_interpose.c: file and descriptor I/O.  On x86-64 the *64 forms are
 * the same functions under a second name; programs built with
 * _FILE_OFFSET_BITS=64 call those names.  Programs built with
 * _FORTIFY_SOURCE (most of a distribution's) call the checking forms
 * (__open_2, __read_chk, __fprintf_chk, ...) instead of the plain ones. */
#define COL_IO_FUNCTIONS(X)                                                                      \
  X(open, NULL, int, (const char *, int, ...))                                                   \
  X(open64, NULL, int, (const char *, int, ...))                                                 \
  X(openat, NULL, int, (int, const char *, int, ...))                                            \
  X(openat64, NULL, int, (int, const char *, int, ...))                                          \
  X(__open_2, NULL, int, (const char *, int))                                                    \
  X(__open64_2, NULL, int, (const char *, int))                                                  \
  X(__openat_2, NULL, int, (int, const char *, int))                                             \
  X(__openat64_2, NULL, int, (int, const char *, int))                                           \
  X(creat, NULL, int, (const char *, mode_t))                                                    \
  X(creat64, NULL, int, (const char *, mode_t))                                                  \
  X(close, NULL, int, (int))                                                                     \
  X(read, NULL, ssize_t, (int, void *, size_t))                                                  \
  X(write, NULL, ssize_t, (int, const void *, size_t))                                           \
  X(__read_chk, NULL, ssize_t, (int, void *, size_t, size_t))                                    \
  X(__pread_chk, NULL, ssize_t, (int, void *, size_t, off_t, size_t))                            \
  X(__pread64_chk, NULL, ssize_t, (int, void *, size_t, __off64_t, size_t))                      \
  X(pread, NULL, ssize_t, (int, void *, size_t, off_t))                                          \
  X(pread64, NULL, ssize_t, (int, void *, size_t, __off64_t))                                      \
  X(pwrite, NULL, ssize_t, (int, const void *, size_t, off_t))                                   \
  X(pwrite64, NULL, ssize_t, (int, const void *, size_t, __off64_t))                               \
  X(readv, NULL, ssize_t, (int, const struct iovec *, int))                                      \
  X(writev, NULL, ssize_t, (int, const struct iovec *, int))                                     \
  X(preadv, NULL, ssize_t, (int, const struct iovec *, int, off_t))                              \
  X(preadv64, NULL, ssize_t, (int, const struct iovec *, int, __off64_t))                          \
  X(pwritev, NULL, ssize_t, (int, const struct iovec *, int, off_t))                             \
  X(pwritev64, NULL, ssize_t, (int, const struct iovec *, int, __off64_t))                         \
  X(preadv2, NULL, ssize_t, (int, const struct iovec *, int, off_t, int))                        \
  X(pwritev2, NULL, ssize_t, (int, const struct iovec *, int, off_t, int))                       \
  X(preadv64v2, NULL, ssize_t, (int, const struct iovec *, int, __off64_t, int))                 \
  X(pwritev64v2, NULL, ssize_t, (int, const struct iovec *, int, __off64_t, int))                \
  X(lseek, NULL, off_t, (int, off_t, int))                                                       \
  X(lseek64, NULL, __off64_t, (int, __off64_t, int))                                             \
  X(recv, NULL, ssize_t, (int, void *, size_t, int))                                             \
  X(send, NULL, ssize_t, (int, const void *, size_t, int))                                       \
  X(recvfrom, NULL, ssize_t, (int, void *, size_t, int, __SOCKADDR_ARG, socklen_t *))             \
  X(sendto, NULL, ssize_t, (int, const void *, size_t, int, __CONST_SOCKADDR_ARG, socklen_t))     \
  X(recvmsg, NULL, ssize_t, (int, struct msghdr *, int))                                         \
  X(sendmsg, NULL, ssize_t, (int, const struct msghdr *, int))                                   \
  X(sendfile, NULL, ssize_t, (int, int, off_t *, size_t))                                        \
  X(sendfile64, NULL, ssize_t, (int, int, __off64_t *, size_t))                                    \
  X(copy_file_range, NULL, ssize_t, (int, __off64_t *, int, __off64_t *, size_t, unsigned int))       \
  X(fopen, NULL, FILE *, (const char *, const char *))                                           \
  X(fopen64, NULL, FILE *, (const char *, const char *))                                         \
  X(fdopen, NULL, FILE *, (int, const char *))                                                   \
  X(fclose, NULL, int, (FILE *))                                                                 \
  X(fread, NULL, size_t, (void *, size_t, size_t, FILE *))                                       \
  X(fwrite, NULL, size_t, (const void *, size_t, size_t, FILE *))                                \
  X(fread_unlocked, NULL, size_t, (void *, size_t, size_t, FILE *))                              \
  X(fwrite_unlocked, NULL, size_t, (const void *, size_t, size_t, FILE *))                       \
  X(__fread_chk, NULL, size_t, (void *, size_t, size_t, size_t, FILE *))                         \
  X(fflush, NULL, int, (FILE *))                                                                 \
  X(fgets, NULL, char *, (char *, int, FILE *))                                                  \
  X(fputs, NULL, int, (const char *, FILE *))                                                    \
  X(fprintf, NULL, int, (FILE *, const char *, ...))                                             \
  X(vfprintf, NULL, int, (FILE *, const char *, __gnuc_va_list))                                 \
  X(__fgets_chk, NULL, char *, (char *, size_t, int, FILE *))                                    \
  X(__fprintf_chk, NULL, int, (FILE *, int, const char *, ...))                                  \
  X(__vfprintf_chk, NULL, int, (FILE *, int, const char *, __gnuc_va_list))                      \
  X(dup, NULL, int, (int))                                                                       \
  X(dup2, NULL, int, (int, int))                                                                 \
  X(dup3, NULL, int, (int, int, int))                                                            \
  X(pipe, NULL, int, (int[2]))                                                                   \
  X(pipe2, NULL, int, (int[2], int))                                                             \
  X(socket, NULL, int, (int, int, int))                                                          \
  X(fsync, NULL, int, (int))                                                                     \
  X(fdatasync, NULL, int, (int))

#endif
