/* A library whose constructor spins 0.3 s of CPU: the dynamic loader
 * calls it from its entry code (_dl_start_user -> _dl_init -> call_init),
 * assembly with no unwind information, before the program's main
 * (constructor_work.c, linked with it). */
#include "cpu_now.h"

static volatile double sink;
double constructor_lib_cpu;

__attribute__((noinline)) void work_in_library_constructor(double seconds)
{
  double until = cpu_now() + seconds;
  while (cpu_now() < until)
    for (int i = 0; i < 1000; i++)
      sink += i * 0.5;
}

__attribute__((constructor)) static void library_constructor(void)
{
  double start = cpu_now();
  work_in_library_constructor(0.3);
  constructor_lib_cpu = cpu_now() - start;
}
