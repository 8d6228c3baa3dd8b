/* The names of the runtime's pseudo-functions (libcollector/core/
 * pseudo_function.h): frames that say what some CPU time is, which
 * readers may pick out by name (the runtime's symbol table gives it). */
#ifndef ER_PSEUDO_FUNCTIONS_H
#define ER_PSEUDO_FUNCTIONS_H

/* A thread's CPU time no sample ever reached, beneath its start function. */
#define ER_NEVER_SAMPLED_FUNCTION "<Thread-never-sampled>"
/* CPU time a preempted thread ran that the program's late CPU-time timer
 * samples did not find: a packet's whole stack. */
#define ER_NOT_SAMPLED_FUNCTION "<Not-sampled-under-load>"

#endif
