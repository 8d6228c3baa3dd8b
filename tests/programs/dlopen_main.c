/* Loads libhotlib.so with dlopen after start and spends most of its time
 * in the library's hot_loop (75%), the rest in local_loop (25%).
 *   dlopen_main LIBRARY_PATH [SECONDS] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_now.h"

static volatile double sink;

__attribute__((noinline)) static void local_loop(double seconds)
{
  double end = cpu_now() + seconds;
  while (cpu_now() < end)
    for (int i = 0; i < 20000; i++)
      sink += i;
  __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
  double seconds = argc > 2 ? atof(argv[2]) : 1.0;
  void *lib = dlopen(argv[1], RTLD_NOW);
  if (lib == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  void (*hot_loop)(double) = (void (*)(double))dlsym(lib, "hot_loop");
  for (int i = 0; i < 4; i++) {
    hot_loop(seconds * 0.75 / 4);
    local_loop(seconds * 0.25 / 4);
  }
  return 0;
}
