/* The in-process clock's timer signal kept deliverable in every thread
 * (signal_interpose.c), while the program sees the masks and the handler
 * it asked for.  Threads that block every signal (xz's workers, many
 * libraries' pools) otherwise kept the signal pending for their whole run:
 * 3 samples for 11 s of CPU.  Only while the in-process timer samples
 * (perf events refused); from outside no signal is involved and the
 * wrappers pass straight through. */
#ifndef COL_INTERPOSE_SIGNAL_GUARD_H
#define COL_INTERPOSE_SIGNAL_GUARD_H

#include <signal.h>

/* In the collector's timers' signals (sigev_value.sival_int): a signal of
 * that number without it is the program's own (its kill, sigqueue or
 * timer), given to the program as it asked: its handler run, ignored, its
 * default action, or held while its mask blocks it. */
#define COL_TIMER_COOKIE 0x67646263

/* Installs a handler for the timer signal that calls HANDLER for the
 * collector's timers' signals, keeping the program's own disposition of
 * that number for the others, and turns the guard on: the calling
 * thread's mask is the first fixed.  0, or -errno. */
int col_signal_guard_start(void (*handler)(int, siginfo_t *, void *));

/* The calling thread's mask as the program sees it: whether it blocks the
 * timer signal (for a thread it creates, which inherits that). */
int col_signal_view_blocked(void);
/* A new thread, before its start routine: its view is its creator's;
 * and at its end. */
void col_signal_view_begin(int blocked);
void col_signal_view_end(void);


/* The C library's calls, for the runtime's own masks and descriptors. */
int col_real_sigmask(int how, const sigset_t *set, sigset_t *old);
int col_real_signalfd(int fd, const sigset_t *mask, int flags);

#endif
