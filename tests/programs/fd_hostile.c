/* A program that treats every descriptor it did not open as its own to
 * close or replace, as daemons and sandboxes do, then writes files of its
 * own and checks each holds exactly what it wrote.
 *     fd_hostile MODE DIR SECONDS [wait]
 * MODE: closeall (close 3..1023 one by one), dup2 (/dev/null over 3..50),
 * close_range (close_range(3, ~0)), none.  The trick is repeated every
 * 100 ms on every descriptor that is not one of its own files, so it also
 * hits a collector that arrives later (attach).  "wait" prints "ready" and
 * waits for the collector's runtime to be mapped (a debugger attached and
 * enabled it), so all its work comes after the attach.  Exit status 0 when
 * every file is intact (prints "files intact: 20"), 3 when not. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime_mapped.h"

#define NFILES 20
#define MAX_LINES 400

static int own[NFILES];
static int lines_written;

static int is_own(int fd)
{
  for (int i = 0; i < NFILES; i++)
    if (own[i] == fd)
      return 1;
  return 0;
}

static void trick(const char *mode)
{
  if (strcmp(mode, "closeall") == 0) {
    for (int fd = 3; fd < 1024; fd++)
      if (!is_own(fd))
        close(fd);
  } else if (strcmp(mode, "dup2") == 0) {
    int null = open("/dev/null", O_RDWR);
    for (int fd = 3; fd <= 50; fd++)
      if (!is_own(fd) && fd != null)
        dup2(null, fd);
    if (null > 50 && !is_own(null))
      close(null);
  } else if (strcmp(mode, "close_range") == 0) {
    /* Own files are contiguous from the lowest free number. */
    int lo = own[0] > 0 ? own[0] : 1024, hi = own[NFILES - 1];
    if (lo > 3)
      syscall(SYS_close_range, 3u, (unsigned)lo - 1, 0u);
    syscall(SYS_close_range, (unsigned)(hi > 0 ? hi + 1 : 3), ~0u, 0u);
  }
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile double sink;

static void burn_cpu(double seconds)
{
  double end = now() + seconds;
  while (now() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
}

static int check_file(const char *dir, int i)
{
  char path[4096], expected[64], got[64];
  snprintf(path, sizeof path, "%s/own.%d", dir, i);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  int ok = 1, line = 0;
  while (fgets(got, sizeof got, f) != NULL) {
    snprintf(expected, sizeof expected, "file %d line %d\n", i, line++);
    ok &= strcmp(got, expected) == 0;
  }
  fclose(f);
  return ok && line == lines_written;
}

int main(int argc, char **argv)
{
  if (argc < 4)
    return 2;
  const char *mode = argv[1], *dir = argv[2];
  double seconds = atof(argv[3]);
  if (argc > 4 && strcmp(argv[4], "wait") == 0) {
    printf("ready\n");
    fflush(stdout);
    if (!wait_for_runtime(60))
      return 4;
  }
  memset(own, -1, sizeof own);
  trick(mode);
  for (int i = 0; i < NFILES; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/own.%d", dir, i);
    own[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (own[i] < 0)
      return 2;
  }
  double end = now() + seconds;
  while (now() < end && lines_written < MAX_LINES) {
    burn_cpu(0.1);
    trick(mode);
    for (int i = 0; i < NFILES; i++)
      dprintf(own[i], "file %d line %d\n", i, lines_written);
    lines_written++;
  }
  for (int i = 0; i < NFILES; i++)
    close(own[i]);
  int intact = 0;
  for (int i = 0; i < NFILES; i++)
    intact += check_file(dir, i);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("cpu_seconds=%.3f\nfiles intact: %d\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
         ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, intact);
  return intact == NFILES ? 0 : 3;
}
