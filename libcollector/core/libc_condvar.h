/* The runtime's own condition-variable waits go to glibc's current
 * functions by their version.  The runtime also defines pthread_cond_wait
 * and pthread_cond_timedwait (the synctrace wrappers, exported
 * unversioned so that they interpose whatever version a program asks
 * for), and its own references to them would then be unversioned: when the
 * runtime is dlopen'ed after an attach, the dynamic loader binds an
 * unversioned reference to the oldest version glibc has, the 2.2.5
 * condition variables, another ABI (measured: the attach hung, a wake-up
 * lost).  Include after <pthread.h>. */
#ifndef GDBCOL_LIBC_CONDVAR_H
#define GDBCOL_LIBC_CONDVAR_H

#include <pthread.h>
#include <time.h>

int col_libc_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int col_libc_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *when);
__asm__(".symver col_libc_cond_wait,pthread_cond_wait@GLIBC_2.3.2");
__asm__(".symver col_libc_cond_timedwait,pthread_cond_timedwait@GLIBC_2.3.2");

#define pthread_cond_wait col_libc_cond_wait
#define pthread_cond_timedwait col_libc_cond_timedwait

#endif
