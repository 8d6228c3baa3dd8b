/* Work before main: the constructor of a library it is linked with
 * (constructor_lib.c) spins 0.3 s of CPU, called by the dynamic loader's
 * entry code, which has no unwind information; then main spins as long.
 *     constructor_work
 * Prints constructor_cpu=S main_cpu=S (its own CPU clock) at the end. */
#include <stdio.h>

#include "cpu_now.h"

extern double constructor_lib_cpu;
void work_in_library_constructor(double seconds);

int main(void)
{
  double start = cpu_now();
  work_in_library_constructor(0.3);
  printf("constructor_cpu=%.3f main_cpu=%.3f\n", constructor_lib_cpu, cpu_now() - start);
  return 0;
}
