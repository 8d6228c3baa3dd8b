/* Every function the runtime interposes, in one table.  From it come:
 *   - the wrappers' declarations and their function types (interposed.h);
 *   - the definitions under the real names that win symbol lookup when the
 *     runtime is preloaded (COL_PRELOAD_ALIASES, in the file that defines
 *     each group's wrappers: an alias must sit beside its target);
 *   - the GOT slots patched after an attach (got_patch.c), with the symbol
 *     version a slot must ask for;
 *   - the real function each wrapper calls, looked up once at that version
 *     (COL_REAL);
 *   - the runtime's exported names (exports.map.in, through cpp).
 * Adding a function is one line here and its wrapper col_wrap_NAME.
 *
 * X(name, version, return type, (parameter types)).  VERSION: NULL for
 * any, else the one ABI the wrapper serves (glibc's condition variables
 * have two: a slot bound to GLIBC_2.2.5 keeps libc's compatibility code).
 *
 * Only names and tokens: cpp expands this file without any system header. */
#ifndef GDBCOL_INTERPOSED_TABLE_H
#define GDBCOL_INTERPOSED_TABLE_H

#define COL_CONDVAR_VERSION "GLIBC_2.3.2"

/* interpose.c: threads and the process's end. */
#define COL_THREAD_FUNCTIONS(X)                                                              \
  X(pthread_create, NULL, int, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)) \
  X(_exit, NULL, void, (int))                                                                \
  X(_Exit, NULL, void, (int))

/* loader_interpose.c: unloads (the kernel reports no unmap). */
#define COL_LOADER_FUNCTIONS(X) X(dlclose, NULL, int, (void *))

/* exec_interpose.c: the exec family. */
#define COL_EXEC_FUNCTIONS(X)                                                     \
  X(execve, NULL, int, (const char *, char *const[], char *const[]))              \
  X(execv, NULL, int, (const char *, char *const[]))                              \
  X(execvp, NULL, int, (const char *, char *const[]))                             \
  X(execvpe, NULL, int, (const char *, char *const[], char *const[]))             \
  X(fexecve, NULL, int, (int, char *const[], char *const[]))                      \
  X(execveat, NULL, int, (int, const char *, char *const[], char *const[], int))  \
  X(execl, NULL, int, (const char *, const char *, ...))                          \
  X(execlp, NULL, int, (const char *, const char *, ...))                         \
  X(execle, NULL, int, (const char *, const char *, ...))

/* spawn_interpose.c: calls that make a process and run a program in it
 * (pidfd_spawn and pidfd_spawnp: glibc 2.39 and later; nothing calls them
 * where glibc has none). */
#define COL_SPAWN_FUNCTIONS(X)                                                                          \
  X(system, NULL, int, (const char *))                                                                  \
  X(popen, NULL, FILE *, (const char *, const char *))                                                  \
  X(posix_spawn, NULL, int,                                                                             \
    (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[], \
     char *const[]))                                                                                    \
  X(posix_spawnp, NULL, int,                                                                            \
    (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[], \
     char *const[]))                                                                                    \
  X(pidfd_spawn, NULL, int,                                                                             \
    (int *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[],   \
     char *const[]))                                                                                    \
  X(pidfd_spawnp, NULL, int,                                                                            \
    (int *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[],   \
     char *const[]))                                                                                    \
  X(clone, NULL, int, (int (*)(void *), void *, int, void *, ...))

/* sync_interpose.c: the calls a thread waits in. */
#define COL_SYNC_FUNCTIONS(X)                                                                              \
  X(pthread_mutex_lock, NULL, int, (pthread_mutex_t *))                                                    \
  X(pthread_mutex_timedlock, NULL, int, (pthread_mutex_t *, const struct timespec *))                      \
  X(pthread_mutex_clocklock, NULL, int, (pthread_mutex_t *, clockid_t, const struct timespec *))           \
  X(pthread_cond_wait, COL_CONDVAR_VERSION, int, (pthread_cond_t *, pthread_mutex_t *))                    \
  X(pthread_cond_timedwait, COL_CONDVAR_VERSION, int,                                                      \
    (pthread_cond_t *, pthread_mutex_t *, const struct timespec *))                                        \
  X(pthread_cond_clockwait, COL_CONDVAR_VERSION, int,                                                      \
    (pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *))                             \
  X(pthread_rwlock_rdlock, NULL, int, (pthread_rwlock_t *))                                                \
  X(pthread_rwlock_wrlock, NULL, int, (pthread_rwlock_t *))                                                \
  X(pthread_rwlock_timedrdlock, NULL, int, (pthread_rwlock_t *, const struct timespec *))                  \
  X(pthread_rwlock_timedwrlock, NULL, int, (pthread_rwlock_t *, const struct timespec *))                  \
  X(pthread_rwlock_clockrdlock, NULL, int, (pthread_rwlock_t *, clockid_t, const struct timespec *))       \
  X(pthread_rwlock_clockwrlock, NULL, int, (pthread_rwlock_t *, clockid_t, const struct timespec *))       \
  X(pthread_barrier_wait, NULL, int, (pthread_barrier_t *))                                                \
  X(pthread_join, NULL, int, (pthread_t, void **))                                                         \
  X(sem_wait, NULL, int, (sem_t *))                                                                        \
  X(sem_timedwait, NULL, int, (sem_t *, const struct timespec *))                                          \
  X(sem_clockwait, NULL, int, (sem_t *, clockid_t, const struct timespec *))

/* heap_interpose.c: allocations and frees, and anonymous mappings. */
#define COL_HEAP_FUNCTIONS(X)                                             \
  X(malloc, NULL, void *, (size_t))                                       \
  X(calloc, NULL, void *, (size_t, size_t))                               \
  X(realloc, NULL, void *, (void *, size_t))                              \
  X(reallocarray, NULL, void *, (void *, size_t, size_t))                 \
  X(free, NULL, void, (void *))                                           \
  X(posix_memalign, NULL, int, (void **, size_t, size_t))                 \
  X(aligned_alloc, NULL, void *, (size_t, size_t))                        \
  X(memalign, NULL, void *, (size_t, size_t))                             \
  X(valloc, NULL, void *, (size_t))                                       \
  X(pvalloc, NULL, void *, (size_t))                                      \
  X(mmap, NULL, void *, (void *, size_t, int, int, int, off_t))           \
  X(mmap64, NULL, void *, (void *, size_t, int, int, int, off_t))         \
  X(munmap, NULL, int, (void *, size_t))

/* lock_interpose.c: releases, tries and spin locks, for lock orders. */
#define COL_LOCK_FUNCTIONS(X)                                   \
  X(pthread_mutex_unlock, NULL, int, (pthread_mutex_t *))       \
  X(pthread_mutex_trylock, NULL, int, (pthread_mutex_t *))      \
  X(pthread_rwlock_unlock, NULL, int, (pthread_rwlock_t *))     \
  X(pthread_rwlock_tryrdlock, NULL, int, (pthread_rwlock_t *))  \
  X(pthread_rwlock_trywrlock, NULL, int, (pthread_rwlock_t *))  \
  X(pthread_spin_lock, NULL, int, (pthread_spinlock_t *))       \
  X(pthread_spin_trylock, NULL, int, (pthread_spinlock_t *))    \
  X(pthread_spin_unlock, NULL, int, (pthread_spinlock_t *))

/* signal_interpose.c: the calls that block, wait for or take over a
 * signal, so that the in-process clock's timer signal stays deliverable
 * while the program sees what it asked for (signal_guard.h). */
#define COL_SIGNAL_FUNCTIONS(X)                                                          \
  X(pthread_sigmask, NULL, int, (int, const sigset_t *, sigset_t *))                     \
  X(sigprocmask, NULL, int, (int, const sigset_t *, sigset_t *))                         \
  X(sigaction, NULL, int, (int, const struct sigaction *, struct sigaction *))           \
  X(signal, NULL, __sighandler_t, (int, __sighandler_t))                                 \
  X(sigsuspend, NULL, int, (const sigset_t *))                                           \
  X(sigwait, NULL, int, (const sigset_t *, int *))                                       \
  X(sigwaitinfo, NULL, int, (const sigset_t *, siginfo_t *))                             \
  X(sigtimedwait, NULL, int, (const sigset_t *, siginfo_t *, const struct timespec *))   \
  X(signalfd, NULL, int, (int, const sigset_t *, int))

/* tsan_interpose.c: ThreadSanitizer's report hook (a program built with
 * -fsanitize=thread calls it for each report; its runtime's own is empty). */
#define COL_TSAN_FUNCTIONS(X) X(__tsan_on_report, NULL, void, (void *))

#include "interposed_io_table.h"
#include "interposed_mpi_table.h"
#include "interposed_omp_table.h"

#define COL_INTERPOSED(X) \
  COL_THREAD_FUNCTIONS(X) \
  COL_LOADER_FUNCTIONS(X) \
  COL_EXEC_FUNCTIONS(X)   \
  COL_SPAWN_FUNCTIONS(X)  \
  COL_SYNC_FUNCTIONS(X)   \
  COL_LOCK_FUNCTIONS(X)   \
  COL_TSAN_FUNCTIONS(X)   \
  COL_SIGNAL_FUNCTIONS(X) \
  COL_IO_FUNCTIONS(X)     \
  COL_HEAP_FUNCTIONS(X)   \
  COL_MPI_FUNCTIONS(X)    \
  COL_OMP_FUNCTIONS(X)

#endif
