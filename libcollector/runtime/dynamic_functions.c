/* The Collector API for code generated at run time (Oracle's
 * collector_func_load / collector_func_unload).  Without it such code is
 * <Unknown> (an anonymous mapping names nothing).  A load is two records:
 * a map.xml function record (name, address, size, time), which names the
 * samples in it, and a dyntext entry with the code bytes, the source file
 * and the line table (format notes §8), which gprofng reads for its
 * disassembly.  An unload is an unmap record.
 *
 * map.xml is the sampler's (outside the program: the request goes on the
 * control page with the call's time) or the runtime thread's (inside).
 * dyntext is written here, in the calling thread: only the program has the
 * code bytes (the sampler may not read its memory).  One writev per entry
 * on a descriptor opened for it (O_APPEND: entries of several threads never
 * interleave), closed at once; nothing is allocated.  A descendant's
 * generated code is named too; its code bytes are not kept (its
 * experiment's path is its writer's). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/experiment_control.h"
#include "core/experiment_log.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/runtime_calls.h"
#include "interpose/descendant_carrier.h"
#include "runtime/collection_state.h"
#include "runtime/dynamic_functions.h"
#include "control_page.h"

#define DT_HEADER 1
#define DT_CODE 2
#define DT_LTABLE 3
#define DT_SRCFILE 4

struct dt_record {
  uint32_t type, size;
};
struct dt_header {
  uint32_t type, size;
  int64_t time; /* relative to the run */
  uint64_t vaddr;
};

static uint32_t padded16(size_t n)
{
  return (uint32_t)((n + 15) & ~(size_t)15);
}

/* The dyntext entry of one function, in the experiment at DIR. */
static void write_dyntext(const char *dir, int64_t rel, const void *vaddr, int size, const char *source, int n_lines,
                          const struct col_lineno *lines)
{
  static const char zeros[16];
  char path[PATH_MAX + 16];
  if (dir[0] == '\0' || snprintf(path, sizeof path, "%s/dyntext", dir) >= (int)sizeof path)
    return;
  struct dt_header header = {DT_HEADER, sizeof header, rel, (uint64_t)(uintptr_t)vaddr};
  struct dt_record code = {DT_CODE, 0}, src = {DT_SRCFILE, 0}, table = {DT_LTABLE, 0};
  size_t source_len = source != NULL ? strlen(source) + 1 : 0;
  struct iovec iov[10];
  int n = 0;
  iov[n++] = (struct iovec){&header, sizeof header};
  if (vaddr != NULL && size > 0) {
    code.size = sizeof code + padded16((size_t)size);
    iov[n++] = (struct iovec){&code, sizeof code};
    iov[n++] = (struct iovec){(void *)(uintptr_t)vaddr, (size_t)size};
    iov[n++] = (struct iovec){(void *)zeros, code.size - sizeof code - (size_t)size};
  }
  if (source_len > 1) {
    src.size = sizeof src + padded16(source_len);
    iov[n++] = (struct iovec){&src, sizeof src};
    iov[n++] = (struct iovec){(void *)(uintptr_t)source, source_len};
    iov[n++] = (struct iovec){(void *)zeros, src.size - sizeof src - source_len};
  }
  if (lines != NULL && n_lines > 0) {
    table.size = (uint32_t)(sizeof table + (size_t)n_lines * sizeof *lines);
    iov[n++] = (struct iovec){&table, sizeof table};
    iov[n++] = (struct iovec){(void *)(uintptr_t)lines, (size_t)n_lines * sizeof *lines};
  }
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  if (writev(fd, iov, n) < 0) {
  }
  close(fd);
}

/* Inside the program, map.xml is the runtime thread's. */
struct function_record {
  uint64_t vaddr, size;
  const char *name; /* NULL: an unload */
  int64_t tstamp;
};

static void record_on_runtime_thread(void *arg)
{
  const struct function_record *f = arg;
  if (f->name != NULL)
    col_modules_function(f->vaddr, f->size, f->name, f->tstamp);
  else
    col_modules_function_gone(f->vaddr, f->tstamp);
}

void col_func_load(const char *name, const char *source, const void *vaddr, int size, int n_lines,
                   const struct col_lineno *lines)
{
  if (!col_collecting() || size < 0)
    return;
  int saved = errno;
  int64_t now = col_hrtime();
  char unnamed[32];
  if (name == NULL || name[0] == '\0') {
    snprintf(unnamed, sizeof unnamed, "0x%llx", (unsigned long long)(uintptr_t)vaddr);
    name = unnamed;
  }
  const char *dir;
  int64_t run;
  if (col_outside()) {
    char text[sizeof col_control->slots[0].text];
    /* The call's time rides along: the function record and the dyntext
     * entry must carry the same one (gprofng finds the code of the
     * function loaded at that address by then). */
    snprintf(text, sizeof text, "%llx %d %lld %s", (unsigned long long)(uintptr_t)vaddr, size, (long long)now, name);
    col_control_post(COL_CTL_FUNC_LOAD, text, 0);
    dir = col_is_descendant ? "" : col_control->experiment_path;
    run = __atomic_load_n(&col_control->experiment_run_tstamp, __ATOMIC_ACQUIRE);
  } else {
    struct function_record f = {(uint64_t)(uintptr_t)vaddr, (uint64_t)size, name, now};
    col_on_runtime_thread(record_on_runtime_thread, &f);
    dir = col_exp.path;
    run = col_exp.run_tstamp;
  }
  write_dyntext(dir, now - run, vaddr, size, source, n_lines, lines);
  errno = saved;
}

void col_func_unload(const void *vaddr)
{
  if (!col_collecting())
    return;
  int saved = errno;
  if (col_outside()) {
    char text[32];
    snprintf(text, sizeof text, "%llx", (unsigned long long)(uintptr_t)vaddr);
    col_control_post(COL_CTL_FUNC_UNLOAD, text, 0);
  } else {
    struct function_record f = {(uint64_t)(uintptr_t)vaddr, 0, NULL, col_hrtime()};
    col_on_runtime_thread(record_on_runtime_thread, &f);
  }
  errno = saved;
}
