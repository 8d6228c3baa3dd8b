/* The runtime's libunwind path (unwind_copy.c), taken on every run: in a
 * recording it is only the fallback for samples the cached frame rules
 * cannot follow, so a libunwind it does not work with showed only by
 * chance, as a crash in the profiled program (libunwind 1.8 called a NULL
 * hook of the address space at the first such sample).  Here a capture of
 * this thread's own registers and stack, taken three calls deep below
 * libc's qsort, is unwound with col_unwind_libunwind, as the thread that records
 * unwinds a timer sample: every caller must be found, through libc's frame. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "core/capture.h"
#include "unwind/unwind.h"
#include "er/er_format.h"
#include "own_stack.h"
#include "test_util.h"

void col_frame_rules_forget(void)
{
}

#define COPY_BYTES (32 * 1024)
static unsigned char stack_copy[COPY_BYTES];
static struct col_capture cap;
static int captured;

__attribute__((noinline)) void unwind_test_capture(void)
{
  ucontext_t uc;
  getcontext(&uc); /* the registers as getcontext returns here */
  if (captured++)
    return;
  own_stack_capture(&uc, &cap, stack_copy, COPY_BYTES);
}

__attribute__((noinline)) int unwind_test_compare(const void *a, const void *b)
{
  unwind_test_capture();
  return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) void unwind_test_sort(void)
{
  int values[] = {3, 1, 2};
  qsort(values, 3, sizeof values[0], unwind_test_compare);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}

static const char *function_at(uint64_t pc)
{
  Dl_info info;
  if (dladdr((void *)(uintptr_t)pc, &info) == 0 || info.dli_sname == NULL)
    return "?";
  return info.dli_sname;
}

int main(void)
{
  unwind_test_sort();
  CHECK(captured > 0);
  CHECK(col_unwind_init() == 0);
  CHECK(col_unwind_init() == 0); /* kept: a second call changes nothing */
  uint64_t pcs[64];
  size_t n = col_unwind_libunwind(&cap, pcs, 64);
  int seen_compare = 0, seen_libc = 0, seen_sort = 0, seen_main = 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = function_at(pcs[i]);
    Dl_info info;
    fprintf(stderr, "#%zu 0x%llx %s\n", i, (unsigned long long)pcs[i], name);
    seen_compare |= strcmp(name, "unwind_test_compare") == 0;
    seen_sort |= seen_compare && strcmp(name, "unwind_test_sort") == 0;
    seen_main |= seen_sort && strcmp(name, "main") == 0;
    seen_libc |= seen_compare && !seen_sort && dladdr((void *)(uintptr_t)pcs[i], &info) != 0 &&
                 info.dli_fname != NULL && strstr(info.dli_fname, "libc.so") != NULL;
  }
  CHECK(strcmp(function_at(pcs[0]), "unwind_test_capture") == 0);
  CHECK(seen_compare);
  CHECK(seen_libc); /* qsort's frames: libc's unwind tables were found */
  CHECK(seen_sort);
  CHECK(seen_main);
  for (size_t i = 0; i < n; i++)
    CHECK(pcs[i] != ER_PC_UNWIND_FAILED && pcs[i] != ER_PC_TRUNCATED);
  return TEST_EXIT();
}
