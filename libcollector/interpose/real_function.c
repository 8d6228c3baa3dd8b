/* The function each wrapper stands in front of (interposed.h): where the
 * runtime came from (preloaded, or injected by GDB after an attach)
 * decides where the real definition is looked up. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "interposed.h"

/* Set when GDB injected the runtime with dlopen (got_patch.c finds it out
 * before any wrapper can be reached): until then the runtime was
 * preloaded.  Not asked of the loader from here: a wrapper's first call
 * can come inside a sanitizer's start-up, before our constructor, where
 * a dlopen or dlsym of our own would enter that sanitizer again. */
static int runtime_injected;

void col_runtime_was_injected(void)
{
  runtime_injected = 1;
}

static int runtime_preloaded(void)
{
  return !runtime_injected;
}

/* The function our wrapper stands in front of.  Preloaded, the next
 * definition after ours in the global scope (libc's, the program's
 * allocator library's; behind a sanitizer's runtime, which is preloaded
 * first, that runtime forwards its own calls to us).  Injected with
 * dlopen, RTLD_NEXT would search only our own dependencies (libc's malloc,
 * where the program's is jemalloc's or AddressSanitizer's): the global
 * scope's definition is what the program's GOT slots called. */
void *col_real_function(const char *name, void *ours)
{
  void *real = runtime_preloaded() ? dlsym(RTLD_NEXT, name) : dlsym(RTLD_DEFAULT, name);
  if (real == NULL || real == ours)
    real = dlsym(runtime_preloaded() ? RTLD_DEFAULT : RTLD_NEXT, name);
  return real;
}

void *col_real_function_version(const char *name, const char *version, void *ours)
{
  if (version == NULL)
    return col_real_function(name, ours);
  void *real = runtime_preloaded() ? dlvsym(RTLD_NEXT, name, version) : dlvsym(RTLD_DEFAULT, name, version);
  return real != NULL && real != ours ? real : col_real_function(name, ours);
}
