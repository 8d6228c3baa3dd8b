/* Patches code pages the way UCX's memory hooks do in every Open MPI or
 * MPICH rank built with UCX (its "bistro" rewrites the C library's mmap,
 * munmap, brk... in place): each page made writable, written, and made
 * executable again; the kernel splits the library's code mapping around
 * the page each time.  Here the bytes written are the ones already there,
 * so nothing changes but the mappings.  Then it sorts with qsort, whose
 * comparator is called through the C library's frames, for SECONDS of CPU.
 *     code_patcher [SECONDS]
 * Prints patched=N work_cpu=S (its own CPU clock over the sorting). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cpu_now.h"

#define N 100000

static int by_value(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Writes the first byte of CODE's page back in place, as a hot patcher
 * writes a jump: the page becomes the process's own copy. */
static int rewrite_page_of(const void *code)
{
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *at = (unsigned char *)((uintptr_t)code & ~(uintptr_t)(page - 1));
  if (mprotect(at, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
    return 0;
  volatile unsigned char *byte = at;
  *byte = *byte;
  struct timespec pause = {0, 20 * 1000 * 1000}; /* (each change a record of its own, at its own time) */
  nanosleep(&pause, NULL);
  return mprotect(at, (size_t)page, PROT_READ | PROT_EXEC) == 0;
}

static __attribute__((noinline)) double sort_for(double seconds)
{
  int *values = malloc(N * sizeof *values);
  if (values == NULL)
    exit(1);
  unsigned seed = 1;
  double start = cpu_now();
  while (cpu_now() - start < seconds) {
    for (int i = 0; i < N; i++)
      values[i] = (int)(rand_r(&seed) % 1000000);
    qsort(values, N, sizeof *values, by_value);
  }
  free(values);
  return cpu_now() - start;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  /* The C library's pages UCX patches, and one of the program's own. */
  const void *targets[] = {(const void *)mmap, (const void *)munmap, (const void *)sbrk, (const void *)madvise,
                           (const void *)mremap, (const void *)rewrite_page_of};
  int patched = 0;
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    patched += rewrite_page_of(targets[i]);
  double work = sort_for(seconds);
  printf("patched=%d work_cpu=%.3f\n", patched, work);
  return 0;
}
