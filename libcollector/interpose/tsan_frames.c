/* ThreadSanitizer keeps each thread's stack itself (a shadow stack the
 * compiler's instrumentation pushes at every function entry of the
 * program), not by unwinding; its interceptors add only their own
 * caller's address.  Behind one of our wrappers that caller is the
 * wrapper, and the program's line that called the wrapper is in no stack:
 * "created by main thread at: pthread_create, col_wrap_pthread_create,
 * __libc_start_call_main", main gone.  The wrapper enters the program's
 * call site into the shadow stack as an instrumented function would
 * (__tsan_func_entry, its instrumentation interface) and leaves it after
 * the call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "interpose/tsan_frames.h"

static void (*func_entry)(void *);
static void (*func_exit)(void);

void col_tsan_frames_find(void)
{
  void (*entry)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "__tsan_func_entry");
  void (*leave)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "__tsan_func_exit");
  if (entry == NULL || leave == NULL)
    return;
  func_exit = leave;
  __atomic_store_n(&func_entry, entry, __ATOMIC_RELEASE);
}

void col_tsan_caller_enter(void *caller)
{
  void (*entry)(void *) = __atomic_load_n(&func_entry, __ATOMIC_ACQUIRE);
  if (entry != NULL)
    entry(caller);
}

void col_tsan_caller_leave(void)
{
  if (__atomic_load_n(&func_entry, __ATOMIC_ACQUIRE) != NULL)
    func_exit();
}
