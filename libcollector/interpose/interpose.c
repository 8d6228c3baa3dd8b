/* Functions the runtime interposes when preloaded.
 *
 * pthread_create: each new thread gets its own clock sampler before it runs
 *   any user code.  Defined unversioned, so it binds whatever version the
 *   program asked for (gprofng 2.40 exports only pthread_create@GLIBC_2.2.5
 *   and so never sees threads of programs built against glibc >= 2.34).
 * _exit, _Exit: close the experiment before a process ends without running
 *   destructors.
 * Every wrapper passes straight through when no experiment is open in this
 * process (a fork child, a wrapper program, a disabled runtime). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/experiment_control.h"
#include "interpose/descendant_carrier.h"
#include "interpose/real_calls.h"
#include "interpose/runtime_hooks.h"
#include "interpose/signal_guard.h"
#include "interpose/tsan_frames.h"
#include "runtime/collection_state.h"
#include "control_page.h"
#include "interposed.h"
#include "trace_record.h"

typedef col_fn_pthread_create pthread_create_fn;

int col_real_pthread_create(void *thread, const void *attr, void *(*start)(void *), void *arg)
{
  return COL_REAL(pthread_create)(thread, attr, start, arg);
}

struct thread_start {
  void *(*start)(void *);
  void *arg;
  int blocks_timer_signal; /* the creator's mask as the program sees it */
};

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Runs when a profiled thread ends (return or pthread_exit). */
static void on_thread_exit(void *unused)
{
  col_signal_view_end();
  col_hooks.thread_stop((pid_t)gettid());
}

static void make_exit_key(void)
{
  pthread_key_create(&exit_key, on_thread_exit);
}

static void *profiled_thread_start(void *p)
{
  struct thread_start start = *(struct thread_start *)p;
  COL_AS_RUNTIME(free(p));
  col_signal_view_begin(start.blocks_timer_signal);
  if (col_collecting() && col_hooks.thread_start(gettid()))
    pthread_setspecific(exit_key, &exit_key); /* any value but NULL: the key's destructor runs */
  if (col_collecting() && col_outside() && !col_is_descendant) /* where a thread never sampled has its tail */
    col_control_post_thread_start(gettid(), (uint64_t)(uintptr_t)start.start);
  return start.start(start.arg);
}

/* Where glibc keeps a thread's id in its descriptor (the pthread_t): found
 * once, as the calling thread's own id in its own descriptor; -1 if not. */
static long tid_offset(void)
{
  static long offset = -2;
  if (offset == -2) {
    const int32_t *self = (const int32_t *)pthread_self();
    int32_t me = (int32_t)gettid();
    long found = -1;
    for (long i = 0; i < 1024 / (long)sizeof *self && found < 0; i++)
      if (self[i] == me)
        found = i * (long)sizeof *self;
    offset = found;
  }
  return offset;
}

/* Outside: the inherited events count the new thread; the sampler process
 * is told the function it starts in (the kernel set its id in the
 * descriptor before pthread_create returned). */
static int create_seen_from_outside(pthread_create_fn real, pthread_t *thread, const pthread_attr_t *attr,
                                    void *(*start)(void *), void *arg)
{
  int rc = real(thread, attr, start, arg);
  long offset = rc == 0 ? tid_offset() : -1;
  if (offset >= 0) {
    int32_t tid;
    memcpy(&tid, (const char *)*thread + offset, sizeof tid);
    col_control_post_thread_start(tid, (uint64_t)(uintptr_t)start);
  }
  return rc;
}

static int create_thread(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);

int col_wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
  col_tsan_caller_enter(__builtin_return_address(0)); /* (the program's line, in its sanitizer's stacks) */
  int rc = create_thread(thread, attr, start, arg);
  col_tsan_caller_leave();
  return rc;
}

static int create_thread(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
  pthread_create_fn real = COL_REAL(pthread_create);
  /* (the program samples itself for the sampler: each thread arms its own timer) */
  int outside = col_outside() && !col_control_clock_in_program();
  if (col_collecting() && (col_cfg.clock_interval_us > 0 || col_cfg.n_hwc > 0) && outside &&
      !col_is_descendant) /* the start function: where an unsampled thread's tail goes */
    return create_seen_from_outside(real, thread, attr, start, arg);
  if (!col_collecting() || col_cfg.clock_interval_us <= 0 || outside)
    return real(thread, attr, start, arg);
  pthread_once(&exit_key_once, make_exit_key);
  struct thread_start *info;
  COL_AS_RUNTIME(info = malloc(sizeof *info)); /* the runtime's own block, not the program's */
  if (info == NULL)
    return real(thread, attr, start, arg);
  info->start = start;
  info->arg = arg;
  info->blocks_timer_signal = col_signal_view_blocked();
  int rc = real(thread, attr, profiled_thread_start, info);
  if (rc != 0)
    free(info);
  return rc;
}

/* Closes the experiment, then leaves through the real function. */
void col_wrap__exit(int status)
{
  col_hooks.close_experiment("_exit");
  COL_REAL(_exit)(status);
  __builtin_unreachable();
}

void col_wrap__Exit(int status)
{
  col_hooks.close_experiment("_Exit");
  COL_REAL(_Exit)(status);
  __builtin_unreachable();
}

COL_PRELOAD_ALIASES(COL_THREAD_FUNCTIONS)
