/* The runtime's hooks (runtime_hooks.h), doing nothing until it sets them. */
#include <stddef.h>

#include "interpose/runtime_hooks.h"

static int no_thread_start(pid_t tid)
{
  return 0;
}

static void no_thread_stop(pid_t tid)
{
}

static void no_close(const char *why)
{
}

static int no_exec_starting(const char *variant, const char *what)
{
  return 0;
}

static void no_exec_failed(const char *variant, const char *what, int err)
{
}

static void no_pause(const char *reason)
{
}

static void no_resume(void)
{
}

static int no_cloned(int thread, pid_t ppid, pid_t ptid, int64_t forked_at, void *stack_top)
{
  return 0;
}

struct col_runtime_hooks col_hooks = {no_thread_start, no_thread_stop, no_close,  no_exec_starting,
                                      no_exec_failed,  no_pause,       no_resume, no_cloned};
