/* Actual deadlocks found while they happen (deadlock_watch.c): a lock
 * wrapper whose lock is taken by another thread waits through here. */
#ifndef GDBCOL_DEADLOCK_WATCH_H
#define GDBCOL_DEADLOCK_WATCH_H

#include <time.h>

/* The most threads of a deadlock said (a longer cycle is not looked for). */
#define GDBCOL_DEADLOCK_MAX 8

/* The timed variant of a lock call (pthread_mutex_timedlock,
 * pthread_rwlock_timedrdlock, ...), on an absolute CLOCK_REALTIME time. */
typedef int (*col_timed_lock)(void *lock, const struct timespec *deadline);

/* Waits for LOCK (enum er_lock_kind KIND) through TIMED, looking for a
 * deadlock through this thread at each check interval; the call's result.
 * errno kept. */
int col_lock_wait_watched(void *lock, int kind, col_timed_lock timed);

#endif
