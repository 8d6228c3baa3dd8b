/* A library whose GOT test_got_patch.c rewrites: it asks for
 * pthread_cond_timedwait at two symbol versions (the current condition
 * variables, GLIBC_2.3.2, and the old ABI, GLIBC_2.2.5), and calls a
 * function of its own through its GOT (unversioned). */
#include <pthread.h>
#include <time.h>

int got_old_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *when);
__asm__(".symver got_old_timedwait,pthread_cond_timedwait@GLIBC_2.2.5");

int got_lib_timedwait_current(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *when)
{
  return pthread_cond_timedwait(cond, mutex, when);
}

int got_lib_timedwait_old(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *when)
{
  return got_old_timedwait(cond, mutex, when);
}

/* Exported with default visibility, so the library's own call goes through
 * its GOT (a JUMP_SLOT relocation), as a program's calls to libc do. */
__attribute__((noinline)) int got_unversioned_target(void)
{
  return 1;
}

int got_lib_call_unversioned(void)
{
  return got_unversioned_target();
}
