/* Known I/O, each kind in a function of its own (built with
 * _FILE_OFFSET_BITS=64, so the calls are open64, pread64, fopen64... as
 * in most programs that handle large files):
 *   write_alpha   open alpha.dat, 3 x write 4096, close          12288 written
 *   write_beta    open beta.dat (the descriptor alpha had), writev
 *                 1000 + 500, pwrite 250, close                   1750 written
 *   read_alpha    open alpha.dat, pread 4096, lseek to 0, read to the end
 *                 (4 reads, the last at the end), close            16384 read
 *   stdio_gamma   fopen gamma.txt, 5 x fwrite 140, fclose; fopen, fread 700, fclose
 *   text_epsilon  fopen epsilon.txt, 10 x fprintf "line NN\n", fputs "end\n",
 *                 fclose (84 written); fopen, fgets to the end (11 lines and
 *                 the end: 12 calls, 84 read), fclose
 *   copy_delta    copy_file_range 8192 from alpha.dat to delta.dat, then
 *                 100 more through a dup of delta's descriptor     8292 written
 *   use_pipe      pipe, write 64, read 64, close both
 *   fail_open     open a path that does not exist: one open error
 *   io_activity [ready]   (ready: says so, waits 2 s first, for an attach)
 *   io_activity many N    only N writes of 64 bytes to /dev/null
 *   io_activity child     all of the above in a forked child; the parent
 *                         only waits for it
 *   io_activity signals   writes of 64 bytes to /dev/null while a 1 ms
 *                         timer's handler writes 8 bytes there too, until
 *                         the handler has written 300 times; prints both
 *                         counts */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[16384];

static int must(int rc, const char *what)
{
  if (rc < 0) {
    perror(what);
    exit(1);
  }
  return rc;
}

__attribute__((noinline)) static void write_alpha(void)
{
  int fd = must(open("alpha.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644), "open alpha");
  for (int i = 0; i < 3; i++)
    must((int)write(fd, buf, 4096), "write alpha");
  close(fd);
}

__attribute__((noinline)) static void write_beta(void)
{
  int fd = must(open("beta.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644), "open beta");
  struct iovec iov[2] = {{buf, 1000}, {buf + 1000, 500}};
  must((int)writev(fd, iov, 2), "writev beta");
  must((int)pwrite(fd, buf, 250, 0), "pwrite beta");
  close(fd);
}

__attribute__((noinline)) static long read_alpha(void)
{
  int fd = must(open("alpha.dat", O_RDONLY), "open alpha to read");
  long total = must((int)pread(fd, buf, 4096, 4096), "pread alpha");
  must((int)lseek(fd, 0, SEEK_SET), "lseek alpha");
  ssize_t n;
  while ((n = read(fd, buf, 5000)) > 0)
    total += n;
  close(fd);
  return total;
}

__attribute__((noinline)) static long stdio_gamma(void)
{
  FILE *f = fopen("gamma.txt", "w");
  if (f == NULL)
    exit(1);
  for (int i = 0; i < 5; i++)
    if (fwrite(buf, 1, 140, f) != 140)
      exit(1);
  fclose(f);
  f = fopen("gamma.txt", "r");
  if (f == NULL)
    exit(1);
  long got = (long)fread(buf, 1, sizeof buf, f);
  fclose(f);
  return got;
}

__attribute__((noinline)) static long text_epsilon(void)
{
  FILE *f = fopen("epsilon.txt", "w");
  if (f == NULL)
    exit(1);
  for (int i = 0; i < 10; i++)
    fprintf(f, "line %02d\n", i);
  fputs("end\n", f);
  fclose(f);
  f = fopen("epsilon.txt", "r");
  if (f == NULL)
    exit(1);
  char line[64];
  long got = 0;
  while (fgets(line, sizeof line, f) != NULL)
    got += (long)strlen(line);
  fclose(f);
  return got;
}

__attribute__((noinline)) static void copy_delta(void)
{
  int in = must(open("alpha.dat", O_RDONLY), "open alpha to copy");
  int out = must(open("delta.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644), "open delta");
  must((int)copy_file_range(in, NULL, out, NULL, 8192, 0), "copy_file_range");
  int again = must(dup(out), "dup delta");
  must((int)write(again, buf, 100), "write delta through the dup");
  close(again);
  close(out);
  close(in);
}

__attribute__((noinline)) static void use_pipe(void)
{
  int ends[2];
  must(pipe(ends), "pipe");
  must((int)write(ends[1], buf, 64), "write pipe");
  must((int)read(ends[0], buf, 64), "read pipe");
  close(ends[0]);
  close(ends[1]);
}

__attribute__((noinline)) static int fail_open(void)
{
  int fd = open("no-such-directory/none", O_RDONLY);
  return fd < 0 && errno == ENOENT;
}

static int devnull = -1;
static volatile sig_atomic_t handler_writes;

static void on_alarm(int sig)
{
  int saved = errno;
  if (write(devnull, buf, 8) == 8)
    handler_writes++;
  errno = saved;
}

/* The program's own writes and its signal handler's, interleaved. */
static int writes_with_signals(void)
{
  devnull = must(open("/dev/null", O_WRONLY), "open /dev/null");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval every_ms = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &every_ms, NULL);
  long main_writes = 0;
  while (handler_writes < 300)
    if (write(devnull, buf, 64) == 64)
      main_writes++;
  setitimer(ITIMER_REAL, &off, NULL);
  long total = handler_writes;
  close(devnull);
  printf("signals main=%ld handler=%ld\n", main_writes, total);
  return 0;
}

int main(int argc, char **argv)
{
  memset(buf, 'x', sizeof buf);
  if (argc > 2 && strcmp(argv[1], "many") == 0) {
    long n = atol(argv[2]);
    int fd = must(open("/dev/null", O_WRONLY), "open /dev/null");
    for (long i = 0; i < n; i++)
      must((int)write(fd, buf, 64), "write /dev/null");
    close(fd);
    printf("many=%ld\n", n);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "ready") == 0) {
    printf("ready\n");
    fflush(stdout);
    struct timespec ts = {2, 0};
    nanosleep(&ts, NULL);
  }
  if (argc > 1 && strcmp(argv[1], "signals") == 0)
    return writes_with_signals();
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid > 0) {
      int status;
      waitpid(pid, &status, 0);
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
  }
  write_alpha();
  write_beta();
  long read_back = read_alpha();
  long gamma = stdio_gamma();
  long epsilon = text_epsilon();
  copy_delta();
  use_pipe();
  int failed_as_expected = fail_open();
  printf("read_alpha=%ld stdio_gamma=%ld text_epsilon=%ld open_error=%d\n", read_back, gamma, epsilon,
         failed_as_expected);
  return 0;
}
