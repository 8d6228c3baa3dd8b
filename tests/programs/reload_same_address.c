/* dlopen liba.so, burn 0.5 s of CPU in its burn_a, dlclose it; then the
 * same with libb.so and burn_b.  The loader usually puts libb where liba
 * was (the same size): the program prints both load addresses and whether
 * they are the same, so the test knows what it checks.
 *   reload_same_address DIR [SECONDS [CYCLES]]
 * With CYCLES, liba then libb CYCLES times over, each burning
 * SECONDS/CYCLES a time (a plugin host's load/unload loop); it prints how
 * many cycles reused the address. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

static int run(const char *dir, const char *lib, const char *fn, double seconds, unsigned long *base)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, lib);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return -1;
  }
  void (*burn)(double) = (void (*)(double))dlsym(h, fn);
  struct link_map *map = NULL;
  dlinfo(h, RTLD_DI_LINKMAP, &map);
  *base = map != NULL ? (unsigned long)map->l_addr : 0;
  if (burn == NULL)
    return -1;
  burn(seconds);
  return dlclose(h);
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
  double seconds = argc > 2 ? atof(argv[2]) : 0.5;
  int cycles = argc > 3 ? atoi(argv[3]) : 0;
  unsigned long a = 0, b = 0;
  if (cycles > 0) {
    int same = 0;
    for (int i = 0; i < cycles; i++) {
      if (run(argv[1], "libburn_a.so", "burn_a", seconds / cycles, &a) != 0 ||
          run(argv[1], "libburn_b.so", "burn_b", seconds / cycles, &b) != 0)
        return 1;
      same += a == b;
    }
    printf("cycles=%d same_address_cycles=%d\n", cycles, same);
    return 0;
  }
  if (run(argv[1], "libburn_a.so", "burn_a", seconds, &a) != 0 || run(argv[1], "libburn_b.so", "burn_b", seconds, &b) != 0)
    return 1;
  printf("liba_base=0x%lx libb_base=0x%lx same_address=%d\n", a, b, a == b);
  return 0;
}
