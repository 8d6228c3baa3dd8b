/* The pseudo-function a thread's CPU time goes under when no sample ever
 * reached the thread (never_sampled_frame.c). */
#ifndef COL_RUNTIME_NEVER_SAMPLED_FRAME_H
#define COL_RUNTIME_NEVER_SAMPLED_FRAME_H

#include <stdint.h>

/* Its address in this process. */
uint64_t col_never_sampled_frame(void);

#endif
