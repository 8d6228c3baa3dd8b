/* I/O tracing (`collector iotrace`): every call of the table's I/O group
 * (interposed_table.h) becomes an event on the trace ring while the kind is
 * on: its span, the format's I/O type (read, write, open, close, other, or
 * the same as an error), the descriptor, the bytes moved, the original
 * descriptor of a dup or a copy, and the path of an open; the sampler
 * process unwinds it and writes the iotrace packet.  Unlike gprofng's, the
 * 64-bit-offset names (open64, fopen64, pread64, ...) that programs built
 * with _FILE_OFFSET_BITS=64 call are traced, and so are positioned and
 * vectored reads and writes, sendfile, copy_file_range and send/recv.
 *
 * When the kind is off a wrapper costs one predictable branch.  The
 * runtime's own calls and a wrapper reached from inside the recording are
 * not traced (trace_record.c's guard; it also keeps errno, and the call's
 * own errno is what the program sees).  Preloaded, these definitions win
 * symbol lookup; after an attach the GOT slots are redirected
 * (got_patch.c).  stdio's own reads and writes happen inside libc and are
 * seen as the fread/fwrite/fflush/fclose that caused them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/hrtime.h"
#include "er/er_data_kinds.h"
#include "er/er_format.h"
#include "interposed.h"
#include "trace_record.h"

/* The format's IOTYPE; an error is the same type + IO_ERROR. */
enum { IO_READ = 0, IO_WRITE = 1, IO_OPEN = 2, IO_CLOSE = 3, IO_OTHER = 4, IO_ERROR = 5 };

static int io_traced(void)
{
  struct col_trace_ring *t = col_trace; /* the kind's own flag first: off, that is the only test */
  return col_trace_kind_on(t, ER_KIND_IO) && col_trace_here() != NULL;
}

/* What a wrapper says of its call (the I/O packet's fields). */
struct io_fields {
  int64_t start, end;
  int32_t iotype, fd, ofd;
  int64_t nbytes;
  const char *name; /* an open's path, or what it made; else NULL */
};

/* The I/O packet's fields and the name as the event's payload. */
static void record_io(const struct io_fields *io, uint64_t ip, uint64_t sp, uint64_t bp)
{
  union {
    struct er_io_packet p;
    unsigned char bytes[ER_PACKET_HEADER_SIZE + COL_TRACE_PAYLOAD_MAX];
  } u;
  u.p.iotype = io->iotype;
  u.p.iofd = io->fd;
  u.p.ionbyte = io->nbytes;
  u.p.iorqst = io->start;
  u.p.iofd_original = io->ofd;
  u.p.iofstype = ER_IO_UNKNOWN_FSTYPE;
  size_t at = offsetof(struct er_io_packet, iofname), end = sizeof u.bytes - 1;
  for (const char *c = io->name; c != NULL && *c != '\0' && at < end; c++)
    u.bytes[at++] = (unsigned char)*c;
  u.bytes[at++] = '\0';
  struct col_trace_fields f = COL_TRACE_PACKET(ER_KIND_IO, io->start, io->end, &u, at);
  col_trace_record(&f, ip, sp, bp);
}

/* A traced call: the clock around it, then one event.  DESCRIBE fills
 * f_ (type, descriptors, bytes, name) from the result rc_. */
#define TRACED_IO(type, call, describe)                                     \
  do {                                                                      \
    if (__builtin_expect(!io_traced(), 1))                                  \
      return call;                                                          \
    uint64_t ip_, sp_, bp_;                                                 \
    int64_t start_ = col_hrtime();                                          \
    type rc_ = call;                                                        \
    int64_t end_ = col_hrtime();                                            \
    int err_ = errno;                                                       \
    HERE(ip_, sp_, bp_);                                                    \
    struct io_fields f_ = {.start = start_, .end = end_, .fd = -1, .ofd = -1}; \
    describe;                                                               \
    record_io(&f_, ip_, sp_, bp_);                                          \
    errno = err_;                                                           \
    return rc_;                                                             \
  } while (0)

#define AS(kind_, failed_) (f_.iotype = (failed_) ? (kind_) + IO_ERROR : (kind_))
/* A transfer on ON: bytes moved, or an error. */
#define MOVED(kind_, on_) (AS(kind_, rc_ < 0), f_.fd = (on_), f_.nbytes = rc_ > 0 ? (int64_t)rc_ : 0)
/* A descriptor made (rc_), with its path or what it is. */
#define OPENED(path_) (AS(IO_OPEN, rc_ < 0), f_.fd = (int)rc_, f_.name = (path_))
#define DUPLICATED(old_) (AS(IO_OPEN, rc_ < 0), f_.fd = (int)rc_, f_.ofd = (old_))
#define ON_FD(kind_, on_) (AS(kind_, rc_ != 0), f_.fd = (on_))

/* open's third argument, present only when the flags make a file. */
#define OPEN_MODE(flags, last)                                               \
  mode_t mode = 0;                                                          \
  if ((flags) & O_CREAT || ((flags) & O_TMPFILE) == O_TMPFILE) {            \
    va_list ap;                                                             \
    va_start(ap, last);                                                     \
    mode = (mode_t)va_arg(ap, int);                                         \
    va_end(ap);                                                             \
  }

int col_wrap_open(const char *path, int flags, ...)
{
  OPEN_MODE(flags, flags);
  TRACED_IO(int, COL_REAL(open)(path, flags, mode), OPENED(path));
}

int col_wrap_open64(const char *path, int flags, ...)
{
  OPEN_MODE(flags, flags);
  TRACED_IO(int, COL_REAL(open64)(path, flags, mode), OPENED(path));
}

int col_wrap_openat(int dirfd, const char *path, int flags, ...)
{
  OPEN_MODE(flags, flags);
  TRACED_IO(int, COL_REAL(openat)(dirfd, path, flags, mode), OPENED(path));
}

int col_wrap_openat64(int dirfd, const char *path, int flags, ...)
{
  OPEN_MODE(flags, flags);
  TRACED_IO(int, COL_REAL(openat64)(dirfd, path, flags, mode), OPENED(path));
}

/* The checking forms _FORTIFY_SOURCE uses when the flags are not known at
 * compile time (they refuse O_CREAT without a mode). */
int col_wrap___open_2(const char *path, int flags)
{
  TRACED_IO(int, COL_REAL(__open_2)(path, flags), OPENED(path));
}

int col_wrap___open64_2(const char *path, int flags)
{
  TRACED_IO(int, COL_REAL(__open64_2)(path, flags), OPENED(path));
}

int col_wrap___openat_2(int dirfd, const char *path, int flags)
{
  TRACED_IO(int, COL_REAL(__openat_2)(dirfd, path, flags), OPENED(path));
}

int col_wrap___openat64_2(int dirfd, const char *path, int flags)
{
  TRACED_IO(int, COL_REAL(__openat64_2)(dirfd, path, flags), OPENED(path));
}

int col_wrap_creat(const char *path, mode_t mode)
{
  TRACED_IO(int, COL_REAL(creat)(path, mode), OPENED(path));
}

int col_wrap_creat64(const char *path, mode_t mode)
{
  TRACED_IO(int, COL_REAL(creat64)(path, mode), OPENED(path));
}

int col_wrap_close(int fd)
{
  TRACED_IO(int, COL_REAL(close)(fd), ON_FD(IO_CLOSE, fd));
}

ssize_t col_wrap_read(int fd, void *buf, size_t n)
{
  TRACED_IO(ssize_t, COL_REAL(read)(fd, buf, n), MOVED(IO_READ, fd));
}

ssize_t col_wrap_write(int fd, const void *buf, size_t n)
{
  TRACED_IO(ssize_t, COL_REAL(write)(fd, buf, n), MOVED(IO_WRITE, fd));
}

/* _FORTIFY_SOURCE's reads into a buffer of known size. */
ssize_t col_wrap___read_chk(int fd, void *buf, size_t n, size_t room)
{
  TRACED_IO(ssize_t, COL_REAL(__read_chk)(fd, buf, n, room), MOVED(IO_READ, fd));
}

ssize_t col_wrap___pread_chk(int fd, void *buf, size_t n, off_t at, size_t room)
{
  TRACED_IO(ssize_t, COL_REAL(__pread_chk)(fd, buf, n, at, room), MOVED(IO_READ, fd));
}

ssize_t col_wrap___pread64_chk(int fd, void *buf, size_t n, __off64_t at, size_t room)
{
  TRACED_IO(ssize_t, COL_REAL(__pread64_chk)(fd, buf, n, at, room), MOVED(IO_READ, fd));
}

ssize_t col_wrap_pread(int fd, void *buf, size_t n, off_t at)
{
  TRACED_IO(ssize_t, COL_REAL(pread)(fd, buf, n, at), MOVED(IO_READ, fd));
}

ssize_t col_wrap_pread64(int fd, void *buf, size_t n, __off64_t at)
{
  TRACED_IO(ssize_t, COL_REAL(pread64)(fd, buf, n, at), MOVED(IO_READ, fd));
}

ssize_t col_wrap_pwrite(int fd, const void *buf, size_t n, off_t at)
{
  TRACED_IO(ssize_t, COL_REAL(pwrite)(fd, buf, n, at), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_pwrite64(int fd, const void *buf, size_t n, __off64_t at)
{
  TRACED_IO(ssize_t, COL_REAL(pwrite64)(fd, buf, n, at), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_readv(int fd, const struct iovec *iov, int count)
{
  TRACED_IO(ssize_t, COL_REAL(readv)(fd, iov, count), MOVED(IO_READ, fd));
}

ssize_t col_wrap_writev(int fd, const struct iovec *iov, int count)
{
  TRACED_IO(ssize_t, COL_REAL(writev)(fd, iov, count), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_preadv(int fd, const struct iovec *iov, int count, off_t at)
{
  TRACED_IO(ssize_t, COL_REAL(preadv)(fd, iov, count, at), MOVED(IO_READ, fd));
}

ssize_t col_wrap_preadv64(int fd, const struct iovec *iov, int count, __off64_t at)
{
  TRACED_IO(ssize_t, COL_REAL(preadv64)(fd, iov, count, at), MOVED(IO_READ, fd));
}

ssize_t col_wrap_pwritev(int fd, const struct iovec *iov, int count, off_t at)
{
  TRACED_IO(ssize_t, COL_REAL(pwritev)(fd, iov, count, at), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_pwritev64(int fd, const struct iovec *iov, int count, __off64_t at)
{
  TRACED_IO(ssize_t, COL_REAL(pwritev64)(fd, iov, count, at), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_preadv2(int fd, const struct iovec *iov, int count, off_t at, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(preadv2)(fd, iov, count, at, flags), MOVED(IO_READ, fd));
}

ssize_t col_wrap_preadv64v2(int fd, const struct iovec *iov, int count, __off64_t at, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(preadv64v2)(fd, iov, count, at, flags), MOVED(IO_READ, fd));
}

ssize_t col_wrap_pwritev2(int fd, const struct iovec *iov, int count, off_t at, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(pwritev2)(fd, iov, count, at, flags), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_pwritev64v2(int fd, const struct iovec *iov, int count, __off64_t at, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(pwritev64v2)(fd, iov, count, at, flags), MOVED(IO_WRITE, fd));
}

off_t col_wrap_lseek(int fd, off_t at, int whence)
{
  TRACED_IO(off_t, COL_REAL(lseek)(fd, at, whence), (AS(IO_OTHER, rc_ < 0), f_.fd = fd));
}

__off64_t col_wrap_lseek64(int fd, __off64_t at, int whence)
{
  TRACED_IO(__off64_t, COL_REAL(lseek64)(fd, at, whence), (AS(IO_OTHER, rc_ < 0), f_.fd = fd));
}

ssize_t col_wrap_recv(int fd, void *buf, size_t n, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(recv)(fd, buf, n, flags), MOVED(IO_READ, fd));
}

ssize_t col_wrap_send(int fd, const void *buf, size_t n, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(send)(fd, buf, n, flags), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_recvfrom(int fd, void *buf, size_t n, int flags, __SOCKADDR_ARG from, socklen_t *from_len)
{
  TRACED_IO(ssize_t, COL_REAL(recvfrom)(fd, buf, n, flags, from, from_len), MOVED(IO_READ, fd));
}

ssize_t col_wrap_sendto(int fd, const void *buf, size_t n, int flags, __CONST_SOCKADDR_ARG to, socklen_t to_len)
{
  TRACED_IO(ssize_t, COL_REAL(sendto)(fd, buf, n, flags, to, to_len), MOVED(IO_WRITE, fd));
}

ssize_t col_wrap_recvmsg(int fd, struct msghdr *msg, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(recvmsg)(fd, msg, flags), MOVED(IO_READ, fd));
}

ssize_t col_wrap_sendmsg(int fd, const struct msghdr *msg, int flags)
{
  TRACED_IO(ssize_t, COL_REAL(sendmsg)(fd, msg, flags), MOVED(IO_WRITE, fd));
}

/* Copies: a write to OUT, whose original (IOOFD) is IN. */
ssize_t col_wrap_sendfile(int out, int in, off_t *at, size_t n)
{
  TRACED_IO(ssize_t, COL_REAL(sendfile)(out, in, at, n), (MOVED(IO_WRITE, out), f_.ofd = in));
}

ssize_t col_wrap_sendfile64(int out, int in, __off64_t *at, size_t n)
{
  TRACED_IO(ssize_t, COL_REAL(sendfile64)(out, in, at, n), (MOVED(IO_WRITE, out), f_.ofd = in));
}

ssize_t col_wrap_copy_file_range(int in, __off64_t *in_at, int out, __off64_t *out_at, size_t n, unsigned int flags)
{
  TRACED_IO(ssize_t, COL_REAL(copy_file_range)(in, in_at, out, out_at, n, flags),
            (MOVED(IO_WRITE, out), f_.ofd = in));
}

/* stdio: the stream's descriptor, read before the call (fclose frees it). */
static int stream_fd(FILE *f)
{
  return f != NULL ? fileno(f) : -1;
}

FILE *col_wrap_fopen(const char *path, const char *mode)
{
  TRACED_IO(FILE *, COL_REAL(fopen)(path, mode),
            (AS(IO_OPEN, rc_ == NULL), f_.fd = stream_fd(rc_), f_.name = path));
}

FILE *col_wrap_fopen64(const char *path, const char *mode)
{
  TRACED_IO(FILE *, COL_REAL(fopen64)(path, mode),
            (AS(IO_OPEN, rc_ == NULL), f_.fd = stream_fd(rc_), f_.name = path));
}

FILE *col_wrap_fdopen(int fd, const char *mode)
{
  TRACED_IO(FILE *, COL_REAL(fdopen)(fd, mode), (AS(IO_OPEN, rc_ == NULL), f_.fd = fd, f_.ofd = fd));
}

int col_wrap_fclose(FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(int, COL_REAL(fclose)(f), ON_FD(IO_CLOSE, fd));
}

int col_wrap_fflush(FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(int, COL_REAL(fflush)(f), ON_FD(IO_OTHER, fd));
}

/* fread and fwrite and their forms: items of SIZE bytes, N asked for. */
#define ITEMS_READ(size, n, f, fd) (AS(IO_READ, rc_ < (n) && ferror(f)), f_.fd = (fd), f_.nbytes = (int64_t)(rc_ * (size)))
#define ITEMS_WRITTEN(size, n, fd) (AS(IO_WRITE, rc_ < (n)), f_.fd = (fd), f_.nbytes = (int64_t)(rc_ * (size)))

size_t col_wrap_fread(void *buf, size_t size, size_t n, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(size_t, COL_REAL(fread)(buf, size, n, f), ITEMS_READ(size, n, f, fd));
}

size_t col_wrap_fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(size_t, COL_REAL(fwrite)(buf, size, n, f), ITEMS_WRITTEN(size, n, fd));
}

size_t col_wrap_fread_unlocked(void *buf, size_t size, size_t n, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(size_t, COL_REAL(fread_unlocked)(buf, size, n, f), ITEMS_READ(size, n, f, fd));
}

size_t col_wrap_fwrite_unlocked(const void *buf, size_t size, size_t n, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(size_t, COL_REAL(fwrite_unlocked)(buf, size, n, f), ITEMS_WRITTEN(size, n, fd));
}

size_t col_wrap___fread_chk(void *buf, size_t room, size_t size, size_t n, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(size_t, COL_REAL(__fread_chk)(buf, room, size, n, f), ITEMS_READ(size, n, f, fd));
}

char *col_wrap_fgets(char *s, int n, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(char *, COL_REAL(fgets)(s, n, f),
            (AS(IO_READ, rc_ == NULL && ferror(f)), f_.fd = fd, f_.nbytes = rc_ != NULL ? (int64_t)strlen(rc_) : 0));
}

char *col_wrap___fgets_chk(char *s, size_t room, int n, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(char *, COL_REAL(__fgets_chk)(s, room, n, f),
            (AS(IO_READ, rc_ == NULL && ferror(f)), f_.fd = fd, f_.nbytes = rc_ != NULL ? (int64_t)strlen(rc_) : 0));
}

int col_wrap_fputs(const char *s, FILE *f)
{
  int fd = stream_fd(f);
  TRACED_IO(int, COL_REAL(fputs)(s, f), (AS(IO_WRITE, rc_ < 0), f_.fd = fd, f_.nbytes = rc_ >= 0 ? (int64_t)strlen(s) : 0));
}

/* fprintf: its text formatted by the real vfprintf (what fprintf does). */
int col_wrap_vfprintf(FILE *f, const char *format, va_list ap)
{
  int fd = stream_fd(f);
  TRACED_IO(int, COL_REAL(vfprintf)(f, format, ap), MOVED(IO_WRITE, fd));
}

int col_wrap_fprintf(FILE *f, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  int rc = col_wrap_vfprintf(f, format, ap); /* the event's stack shows fprintf, then vfprintf */
  va_end(ap);
  return rc;
}

int col_wrap___vfprintf_chk(FILE *f, int flag, const char *format, va_list ap)
{
  int fd = stream_fd(f);
  TRACED_IO(int, COL_REAL(__vfprintf_chk)(f, flag, format, ap), MOVED(IO_WRITE, fd));
}

int col_wrap___fprintf_chk(FILE *f, int flag, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  int rc = col_wrap___vfprintf_chk(f, flag, format, ap);
  va_end(ap);
  return rc;
}

int col_wrap_dup(int old)
{
  TRACED_IO(int, COL_REAL(dup)(old), DUPLICATED(old));
}

int col_wrap_dup2(int old, int new)
{
  TRACED_IO(int, COL_REAL(dup2)(old, new), DUPLICATED(old));
}

int col_wrap_dup3(int old, int new, int flags)
{
  TRACED_IO(int, COL_REAL(dup3)(old, new, flags), DUPLICATED(old));
}

/* A pipe makes two descriptors: one event for each end, named as such. */
static void record_pipe_ends(const struct io_fields *made, const int *ends, uint64_t ip, uint64_t sp,
                             uint64_t bp)
{
  struct io_fields end = *made;
  end.fd = ends[0];
  end.name = "<pipe: read end>";
  record_io(&end, ip, sp, bp);
  end.fd = ends[1];
  end.name = "<pipe: write end>";
  end.start = end.end; /* the call's time counted once */
  record_io(&end, ip, sp, bp);
}

#define PIPE_ENDS(ends)                                     \
  do {                                                      \
    AS(IO_OPEN, rc_ != 0);                                  \
    if (rc_ == 0) {                                         \
      record_pipe_ends(&f_, ends, ip_, sp_, bp_);          \
      errno = err_;                                         \
      return rc_;                                           \
    }                                                       \
  } while (0)

int col_wrap_pipe(int ends[2])
{
  TRACED_IO(int, COL_REAL(pipe)(ends), PIPE_ENDS(ends));
}

int col_wrap_pipe2(int ends[2], int flags)
{
  TRACED_IO(int, COL_REAL(pipe2)(ends, flags), PIPE_ENDS(ends));
}

int col_wrap_socket(int domain, int type, int protocol)
{
  TRACED_IO(int, COL_REAL(socket)(domain, type, protocol), OPENED("<socket>"));
}

int col_wrap_fsync(int fd)
{
  TRACED_IO(int, COL_REAL(fsync)(fd), ON_FD(IO_OTHER, fd));
}

int col_wrap_fdatasync(int fd)
{
  TRACED_IO(int, COL_REAL(fdatasync)(fd), ON_FD(IO_OTHER, fd));
}

COL_PRELOAD_ALIASES(COL_IO_FUNCTIONS)
