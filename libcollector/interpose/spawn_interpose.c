/* system, popen, posix_spawn, posix_spawnp, and glibc 2.39's pidfd_spawn
 * and pidfd_spawnp: one call that both creates a process and runs a
 * program in it; and clone(), whose new process (not a thread) gprofng
 * names _CN.er, not _fN.er.  gprofng names what they start as an exec
 * of the caller (_xN.er), not as a fork (_fN.er) followed by an exec: the
 * child never runs the caller's program.  The sampler process sees only
 * the kernel's fork and exec records, so the runtime tells it, on the
 * control page, which thread is inside such a call and until when; a fork
 * by that thread in that interval is the call's child.
 *
 * Their children also get the runtime when descendants are followed
 * (descendant_carrier.c): the spawns' through the environment they pass,
 * the shell of system and popen through an export put before the command
 * (their shell takes the program's own environment, which stays as it is).
 *
 * Preloaded, these definitions win symbol lookup; after an attach the GOT
 * slots are redirected (got_patch.c).  Elsewhere (collection in the
 * program's own process, nothing recorded) they pass straight through. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/experiment_control.h"
#include "core/hrtime.h"
#include "core/runtime_calls.h"
#include "interpose/descendant_carrier.h"
#include "interpose/runtime_hooks.h"
#include "runtime/collection_state.h"
#include "control_page.h"
#include "er/er_fileutil.h"
#include "interposed.h"



/* Only the sampler process follows descendants: in-process collection and
 * the runtime's own calls are not announced. */
static int spawn_starting(const char *variant, const char *what)
{
  if (!col_collecting() || !col_outside() || col_in_runtime_call())
    return 0;
  /* 1: announced; 2: ours, but the page was full (its child still counted) */
  return col_control_post_variant(COL_CTL_SPAWN, variant, what != NULL ? what : "", 0) == 0 ? 1 : 2;
}

/* After the call (errno kept: it is the call's), with its child's pid
 * where the call gives it (0 else): where perf events are refused the
 * sampler learns of each child only at its exec, and several calls of a
 * round may be unclaimed by then (Debian 13's back-to-back posix_spawn
 * and pidfd_spawn children were named after each other's calls). */
static void spawn_done(int ours, pid_t child)
{
  int err = errno;
  if (ours && child > 0 && col_control != NULL) /* (counted here: the requests can be lost in a storm) */
    __atomic_add_fetch(&col_control->spawned_children, 1, __ATOMIC_RELAXED);
  if (ours == 1)
    col_control_post(COL_CTL_SPAWN_DONE, NULL, child > 0 ? (int)child : 0);
  errno = err;
}

/* The pid of the process pidfd FD refers to (its fdinfo's "Pid:"), 0
 * where it cannot be read (errno kept: the program's). */
static pid_t pidfd_pid(int fd)
{
  int err = errno;
  char path[64], text[512];
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
  const char *line = er_read_text(path, text, sizeof text) > 0 ? strstr(text, "Pid:") : NULL;
  errno = err;
  return line != NULL ? (pid_t)atoi(line + 4) : 0;
}

/* COMMAND with the runtime carried into its shell (malloc'd; the caller
 * frees it), or NULL to run COMMAND as it is. */
static char *carried_command(const char *command)
{
  char prefix[3 * PATH_MAX];
  if (command == NULL || !col_carrier_shell_prefix(prefix, sizeof prefix))
    return NULL;
  size_t a = strlen(prefix), b = strlen(command);
  char *whole = malloc(a + b + 1);
  if (whole != NULL) {
    memcpy(whole, prefix, a);
    memcpy(whole + a, command, b + 1);
  }
  return whole;
}

int col_wrap_system(const char *command)
{
  int ours = spawn_starting("system", command);
  char *carried = carried_command(command);
  int rc = COL_REAL(system)(carried != NULL ? carried : command);
  free(carried);
  spawn_done(ours, 0);
  return rc;
}

FILE *col_wrap_popen(const char *command, const char *mode)
{
  int ours = spawn_starting("popen", command);
  char *carried = carried_command(command);
  FILE *f = COL_REAL(popen)(carried != NULL ? carried : command, mode);
  free(carried);
  spawn_done(ours, 0);
  return f;
}

/* posix_spawn and posix_spawnp (VARIANT, whose real function is REAL):
 * WHAT is the path or the file name searched for.  PIDFD: PID is the
 * pidfd_spawn's descriptor (an int), not a pid. */
static int spawn_program(const char *variant, col_fn_posix_spawn real, pid_t *pid, const char *what,
                         const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
                         char *const argv[], char *const envp[], int pidfd)
{
  int ours = spawn_starting(variant, what);
  CARRIED(env, envp);
  int rc = real(pid, what, actions, attr, argv, env);
  pid_t child = rc != 0 || pid == NULL || !ours ? 0 : pidfd ? pidfd_pid(*(int *)pid) : *pid;
  spawn_done(ours, child);
  return rc;
}

int col_wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
  return spawn_program("posix_spawn", COL_REAL(posix_spawn), pid, path,
                       actions, attr, argv, envp, 0);
}

int col_wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
  return spawn_program("posix_spawnp", COL_REAL(posix_spawnp), pid, file,
                       actions, attr, argv, envp, 0);
}

/* pidfd_spawn and pidfd_spawnp (glibc 2.39): posix_spawn's, with a
 * descriptor for the child instead of its pid (pid_t is an int). */
int col_wrap_pidfd_spawn(int *pidfd, const char *path, const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
  col_fn_pidfd_spawn real = COL_REAL(pidfd_spawn);
  if (real == NULL)
    return ENOSYS;
  return spawn_program("pidfd_spawn", (col_fn_posix_spawn)real, pidfd, path, actions, attr, argv, envp, 1);
}

int col_wrap_pidfd_spawnp(int *pidfd, const char *file, const posix_spawn_file_actions_t *actions,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
  col_fn_pidfd_spawnp real = COL_REAL(pidfd_spawnp);
  if (real == NULL)
    return ENOSYS;
  return spawn_program("pidfd_spawnp", (col_fn_posix_spawn)real, pidfd, file, actions, attr, argv, envp, 1);
}

/* clone()'s child, where the runtime must hear of it (the kernel refused
 * the sampler perf events, whose records would have told it): our start
 * first, then the program's function.  What it needs lies on the child's
 * stack, above where the child begins (the child may share the parent's
 * memory and even its thread-local storage: nothing to allocate or free). */
struct clone_start {
  int (*fn)(void *);
  void *arg;
  void *stack_top;
  pid_t ppid, ptid;
  int64_t forked_at;
  int thread;
};

static int cloned_start(void *p)
{
  struct clone_start start = *(struct clone_start *)p;
  int report_end = col_hooks.cloned(start.thread, start.ppid, start.ptid, start.forked_at, start.stack_top);
  int rc = start.fn(start.arg);
  if (report_end)
    col_hooks.thread_stop(gettid());
  return rc;
}

/* A thread or a process the runtime is told of: where the program samples
 * itself (no thread made without pthread_create is armed otherwise), and
 * a process of its own memory (not one sharing the parent's: its fork
 * handler's work would be the parent's). */
static int tell_clone(int flags, void *stack)
{
  int thread = (flags & CLONE_THREAD) != 0;
  return stack != NULL && (thread || !(flags & CLONE_VM)) && col_collecting() && col_outside() &&
         col_control_perf_refused() && !col_in_runtime_call();
}

/* The three optional arguments are passed on whatever the flags say: the
 * real clone reads only those its flags ask for (as glibc's own callers
 * rely on). */
int col_wrap_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
  va_list ap;
  va_start(ap, arg);
  pid_t *parent_tid = va_arg(ap, pid_t *);
  void *tls = va_arg(ap, void *);
  pid_t *child_tid = va_arg(ap, pid_t *);
  va_end(ap);
  int ours = (flags & CLONE_THREAD) ? 0 : spawn_starting("clone", "");
  if (fn != NULL && tell_clone(flags, stack)) {
    uintptr_t at = ((uintptr_t)stack - sizeof(struct clone_start)) & ~(uintptr_t)15;
    struct clone_start *start = (struct clone_start *)at;
    *start = (struct clone_start){fn, arg, stack, getpid(), (pid_t)gettid(), col_hrtime(), (flags & CLONE_THREAD) != 0};
    fn = cloned_start;
    arg = start;
    stack = start; /* (16-byte aligned, as clone wants) */
  }
  int rc = COL_REAL(clone)(fn, stack, flags, arg, parent_tid, tls, child_tid);
  spawn_done(ours, rc > 0 ? rc : 0);
  return rc;
}

COL_PRELOAD_ALIASES(COL_SPAWN_FUNCTIONS)
