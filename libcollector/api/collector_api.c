/* libcollectorAPI.so: the Collector API (include/collectorAPI.h).
 *
 * The program links with this small library, not with the runtime: the
 * runtime may be absent (a normal run), preloaded (launched under GDB with
 * `collector enable`) or injected later (attached), and an injected runtime
 * is not in the global symbol scope.  So every call asks the dynamic
 * loader whether the runtime is loaded (dlopen with RTLD_NOLOAD, by its
 * soname) and, if so, calls its gdbcol_api_* entry point; otherwise it does
 * nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "collectorAPI.h"

#define RUNTIME_SONAME "libcollector.so"

static void *runtime_function(const char *name)
{
  void *runtime = dlopen(RUNTIME_SONAME, RTLD_LAZY | RTLD_NOLOAD);
  if (runtime == NULL)
    return NULL;
  void *fn = dlsym(runtime, name);
  dlclose(runtime); /* drops only the reference NOLOAD took */
  return fn;
}

void collector_pause(void)
{
  void (*fn)(void) = (void (*)(void))runtime_function("gdbcol_api_pause");
  if (fn != NULL)
    fn();
}

void collector_resume(void)
{
  void (*fn)(void) = (void (*)(void))runtime_function("gdbcol_api_resume");
  if (fn != NULL)
    fn();
}

void collector_sample(const char *name)
{
  void (*fn)(const char *) = (void (*)(const char *))runtime_function("gdbcol_api_sample");
  if (fn != NULL)
    fn(name);
}

void collector_func_load(const char *name, const char *alias, const char *sourcename, void *vaddr, int size,
                         int lntsize, Lineno *lntable)
{
  void (*fn)(const char *, const char *, const char *, void *, int, int, Lineno *) =
      (void (*)(const char *, const char *, const char *, void *, int, int, Lineno *))runtime_function(
          "gdbcol_api_func_load");
  if (fn != NULL)
    fn(name, alias, sourcename, vaddr, size, lntsize, lntable);
}

void collector_func_unload(void *vaddr)
{
  void (*fn)(void *) = (void (*)(void *))runtime_function("gdbcol_api_func_unload");
  if (fn != NULL)
    fn(vaddr);
}

void collector_terminate_expt(void)
{
  void (*fn)(void) = (void (*)(void))runtime_function("gdbcol_api_terminate_expt");
  if (fn != NULL)
    fn();
}
