/* A wrapper's caller in ThreadSanitizer's stacks (tsan_frames.c). */
#ifndef COL_INTERPOSE_TSAN_FRAMES_H
#define COL_INTERPOSE_TSAN_FRAMES_H

/* Looks up ThreadSanitizer's function-entry hooks, if the program has its
 * runtime: at the runtime's start, never inside a wrapper. */
void col_tsan_frames_find(void);
/* Around a wrapper's call into one of ThreadSanitizer's interceptors:
 * CALLER (the wrapper's return address) enters its shadow stack, so the
 * stacks it reports hold the program's line that called us.  Nothing
 * where the program has no ThreadSanitizer. */
void col_tsan_caller_enter(void *caller);
void col_tsan_caller_leave(void);

#endif
