/* What the wrappers tell the runtime, which sits above them: a thread
 * starts or ends, the process ends, an exec is about to happen or failed,
 * the program asks for a pause.
 * The runtime fills these in when it is loaded (collector_main.c); until
 * then each does nothing.  An operations struct keeps the wrappers below
 * the runtime: no file of interpose/ calls into runtime/'s start, end or
 * data sources, which themselves patch and start the wrappers. */
#ifndef COL_INTERPOSE_RUNTIME_HOOKS_H
#define COL_INTERPOSE_RUNTIME_HOOKS_H

#include <stdint.h>
#include <sys/types.h>

struct col_runtime_hooks {
  /* A program thread starts (on itself): nonzero when it must report its end. */
  int (*thread_start)(pid_t tid);
  void (*thread_stop)(pid_t tid);
  /* The process ends (WHY: "_exit", "_Exit"). */
  void (*close_experiment)(const char *why);
  /* Before an exec of WHAT: nonzero when the experiment ended for it (a
   * failed exec is then told with exec_failed). */
  int (*exec_starting)(const char *variant, const char *what);
  void (*exec_failed)(const char *variant, const char *what, int err);
  /* The program asks for a pause or a resume (MPI_Pcontrol). */
  void (*pause)(const char *reason);
  void (*resume)(void);
  /* clone()'s child starts (on itself), made by thread PTID of process
   * PPID at FORKED_AT (the parent's clock just before the call): a thread
   * (THREAD, its stack's top STACK_TOP: no pthread_create told of it) or a
   * process (no fork handler runs in it).  Nonzero when the thread must
   * report its end with thread_stop. */
  int (*cloned)(int thread, pid_t ppid, pid_t ptid, int64_t forked_at, void *stack_top);
};

extern struct col_runtime_hooks col_hooks;

#endif
