/* Code generated at run time, named with the Collector API: a page mapped
 * writable, filled with a loop's machine code (x86-64), made executable,
 * declared with collector_func_load("jit_burn", ...), called for SECONDS
 * of CPU, then collector_func_unload.  Then as long in a compiled function,
 * compiled_burn.  Prints each part's CPU time as the truth.
 *   generated_code [SECONDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "collectorAPI.h"
#include "cpu_now.h"

/* long burn(long n) { long s = 0; do s += n; while (--n); return s; }
 *   31 c0      xor  eax, eax
 *   48 01 f8   add  rax, rdi       <- loop
 *   48 ff cf   dec  rdi
 *   75 f8      jnz  loop
 *   c3         ret                                                      */
static const unsigned char loop_code[] = {0x31, 0xc0, 0x48, 0x01, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xf8, 0xc3};

static volatile long sink;

__attribute__((noinline)) static void compiled_burn(double seconds)
{
  double end = cpu_now() + seconds;
  while (cpu_now() < end)
    for (long i = 0; i < 200000; i++)
      sink += i;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 0.5;
  unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED)
    return 1;
  memcpy(page, loop_code, sizeof loop_code);
  if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
    return 1;
  long (*burn)(long) = (long (*)(long))(void *)page;
  Lineno lines[] = {{0, 10}, {2, 11}, {10, 12}};
  collector_func_load("jit_burn", NULL, "generated.jit", page, sizeof loop_code, 3, lines);
  double start = cpu_now(), end = start + seconds;
  while (cpu_now() < end)
    sink += burn(2000000);
  double jit = cpu_now() - start;
  collector_func_unload(page);
  start = cpu_now();
  compiled_burn(seconds);
  printf("jit_cpu=%.3f compiled_cpu=%.3f\n", jit, cpu_now() - start);
  return 0;
}
