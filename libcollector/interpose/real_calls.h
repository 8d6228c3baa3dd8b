/* The C library's own functions the runtime itself calls. */
#ifndef COL_INTERPOSE_REAL_CALLS_H
#define COL_INTERPOSE_REAL_CALLS_H

/* The real pthread_create, for the runtime's own thread. */
int col_real_pthread_create(void *thread, const void *attr, void *(*start)(void *), void *arg);

#endif
