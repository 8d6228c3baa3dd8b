/* The exec family.  A successful exec replaces the process image, and the
 * runtime with it: before the call the experiment is brought up to date
 * (every capture drained and written, the load objects archived) and ends
 * with an exec_start event and a "suspend_for_exec" sample, which gprofng
 * reads as a normal end; the status file says the process exec'd, so GDB
 * reports that and not a crash.  If the exec fails the experiment goes on,
 * with an exec_error event.  Every form passes the runtime on to the new
 * program when descendants are followed (descendant_carrier.c), whatever
 * environment the program gives it.
 *
 * Preloaded, these definitions win symbol lookup; after an attach the GOT
 * slots are redirected (got_patch.c).  A child between vfork and exec, or
 * any process other than the profiled one, passes straight through. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "interpose/descendant_carrier.h"
#include "interpose/runtime_hooks.h"
#include "interposed.h"

extern char **environ;

/* Brackets the real call: a record before, and one after if it returned. */
#define AROUND_EXEC(variant, what, call)                \
  do {                                                  \
    int ours_ = col_hooks.exec_starting(variant, what); \
    int rc_ = (call);                                   \
    int err_ = errno;                                   \
    if (ours_)                                          \
      col_hooks.exec_failed(variant, what, err_);       \
    errno = err_;                                       \
    return rc_;                                         \
  } while (0)

int col_wrap_execve(const char *path, char *const argv[], char *const envp[]);
int col_wrap_execvp(const char *file, char *const argv[]);

/* The forms by path and by file name; VARIANT is the call the program made
 * (execl ends here as well as execv), as log.xml names it. */
static int exec_path(const char *variant, const char *path, char *const argv[], char *const envp[])
{
  CARRIED(env, envp);
  AROUND_EXEC(variant, path, COL_REAL(execve)(path, argv, env));
}

/* execvp's search, with the environment made explicit (execvpe). */
static int exec_file(const char *variant, const char *file, char *const argv[])
{
  CARRIED(env, environ);
  AROUND_EXEC(variant, file, COL_REAL(execvpe)(file, argv, env));
}

int col_wrap_execve(const char *path, char *const argv[], char *const envp[])
{
  return exec_path("execve", path, argv, envp);
}

int col_wrap_execv(const char *path, char *const argv[])
{
  return exec_path("execv", path, argv, environ);
}

int col_wrap_execvp(const char *file, char *const argv[])
{
  return exec_file("execvp", file, argv);
}

int col_wrap_execvpe(const char *file, char *const argv[], char *const envp[])
{
  CARRIED(env, envp);
  AROUND_EXEC("execvpe", file, COL_REAL(execvpe)(file, argv, env));
}

int col_wrap_fexecve(int fd, char *const argv[], char *const envp[])
{
  CARRIED(env, envp);
  AROUND_EXEC("fexecve", argv != NULL && argv[0] != NULL ? argv[0] : "(descriptor)",
              COL_REAL(fexecve)(fd, argv, env));
}

int col_wrap_execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
  CARRIED(env, envp);
  AROUND_EXEC("execveat", path, COL_REAL(execveat)(dirfd, path, argv, env, flags));
}

/* execl, execlp, execle: the argument list as an array on the stack (as
 * glibc builds it), then the vector form. */
static size_t count_args(const char *first, va_list ap)
{
  size_t n = 0;
  for (const char *arg = first; arg != NULL; arg = va_arg(ap, const char *))
    n++;
  return n;
}

/* ARGV (room for N + 1) gets FIRST and the N - 1 arguments after it, then
 * the terminating NULL, which is read too: AP is left after the list. */
static void gather_args(const char **argv, size_t n, const char *first, va_list ap)
{
  argv[0] = first;
  for (size_t i = 1; i <= n; i++)
    argv[i] = va_arg(ap, const char *);
}

#define ARGUMENT_LIST(argv, first, ap)   \
  va_start(ap, first);                   \
  size_t n_args_ = count_args(first, ap); \
  va_end(ap);                            \
  const char *argv[n_args_ + 1];         \
  va_start(ap, first);                   \
  gather_args(argv, n_args_, first, ap)

int col_wrap_execl(const char *path, const char *arg, ...)
{
  va_list ap;
  ARGUMENT_LIST(argv, arg, ap);
  va_end(ap);
  return exec_path("execl", path, (char *const *)argv, environ);
}

int col_wrap_execlp(const char *file, const char *arg, ...)
{
  va_list ap;
  ARGUMENT_LIST(argv, arg, ap);
  va_end(ap);
  return exec_file("execlp", file, (char *const *)argv);
}

int col_wrap_execle(const char *path, const char *arg, ...)
{
  va_list ap;
  ARGUMENT_LIST(argv, arg, ap);
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return exec_path("execle", path, (char *const *)argv, envp);
}

COL_PRELOAD_ALIASES(COL_EXEC_FUNCTIONS)
