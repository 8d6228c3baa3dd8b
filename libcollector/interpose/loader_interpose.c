/* dlclose: the moment an object leaves the address space.  The kernel's
 * records report mappings, never unmaps; without this wrapper an unload is
 * known only when a later mapping takes its place (module_map.c), and a
 * library dlclose'd early stays "loaded" to the end of the experiment.
 * Around the real call, the loader's own list (dl_iterate_phdr: in
 * memory, no system call) gives the code segments loaded before and after;
 * each one gone is posted to the sampler with the time (or the runtime
 * thread rescans, inside).  Only when the loader's count of removed objects
 * moved: most dlclose calls (a reference dropped, libcollectorAPI's lookups)
 * cost two list walks and nothing else.  dlopen is not wrapped: a wrapper
 * would become the "caller" glibc uses for RUNPATH and $ORIGIN lookups.
 * Where perf events are refused no kernel record says what was mapped: a
 * dlclose first waits for the sampler to take the samples before it and
 * read the mappings while its object is still there (1.2-1.8 ms a call
 * here), or a library loaded and closed between two readings is never
 * named. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <unistd.h>

#include "core/experiment_control.h"
#include "core/module_map.h"
#include "core/runtime_calls.h"
#include "runtime/collection_state.h"
#include "runtime/data_sources.h"
#include "unwind/unwind.h"
#include "control_page.h"
#include "interposed.h"

/* The objects a list walk keeps (on the caller's stack: 2 KiB); beyond
 * them, unloads are known when a later mapping takes their place. */
#define MAX_OBJECTS 256

struct code_starts {
  uint64_t start[MAX_OBJECTS];
  size_t n;
  uint64_t page_mask;
  unsigned long long removed; /* the loader's count of objects removed */
};

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct code_starts *c = arg;
  c->removed = size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs ? info->dlpi_subs : 0;
  for (int i = 0; i < info->dlpi_phnum && c->n < MAX_OBJECTS; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      c->start[c->n++] = (info->dlpi_addr + ph->p_vaddr) & c->page_mask;
      break; /* its first code segment names it */
    }
  }
  return 0;
}

static void walk(struct code_starts *c)
{
  c->n = 0;
  c->removed = 0;
  c->page_mask = ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1); /* once a walk, not once an object */
  dl_iterate_phdr(note_object, c);
}

static void post_gone(const struct code_starts *before, const struct code_starts *after)
{
  for (size_t i = 0; i < before->n; i++) {
    size_t k = 0;
    while (k < after->n && after->start[k] != before->start[i])
      k++;
    if (k < after->n)
      continue;
    char text[32];
    snprintf(text, sizeof text, "%llx", (unsigned long long)before->start[i]);
    col_control_post_waiting(COL_CTL_UNLOADED, text, 0, 50); /* (lost, a library loaded later at its address is
                                                                 named after it) */
  }
}

static void rescan_on_runtime_thread(void *unused)
{
  (void)unused;
  if (col_modules_rescan())
    col_unwind_forget_modules(); /* as the runtime thread's own rescans */
}

int col_wrap_dlclose(void *handle)
{
  if (!col_collecting())
    return COL_REAL(dlclose)(handle);
  struct code_starts before, after;
  col_sources_unloading(); /* (waits only where perf events are refused) */
  walk(&before);
  int rc = COL_REAL(dlclose)(handle);
  int err = errno;
  walk(&after);
  if (rc == 0 && after.removed != before.removed) {
    if (col_outside())
      post_gone(&before, &after);
    else
      col_on_runtime_thread(rescan_on_runtime_thread, NULL);
  }
  errno = err;
  return rc;
}

COL_PRELOAD_ALIASES(COL_LOADER_FUNCTIONS)
