/* The runtime's own calls past other interposers (own_calls.c): memcpy,
 * memmove, memset, memcmp, kill and clock_gettime are bound inside the
 * library; these are the parts a caller names. */
#ifndef COL_INTERPOSE_OWN_CALLS_H
#define COL_INTERPOSE_OWN_CALLS_H

#include <signal.h>

typedef int (*col_sigaction_fn)(int, const struct sigaction *, struct sigaction *);

/* Looks up libc's own clock_gettime and sigaction: at the runtime's start,
 * never inside a wrapper (a sanitizer's start-up may be running). */
void col_own_calls_start(void);
/* libc's sigaction, past any sanitizer's (which would hold our timer
 * signal back to its own safe points), or NULL before the start. */
col_sigaction_fn col_own_sigaction(void);

#endif
