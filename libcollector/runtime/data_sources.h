/* The data sources the settings ask for, started and stopped in the program. */
#ifndef COL_RUNTIME_DATA_SOURCES_H
#define COL_RUNTIME_DATA_SOURCES_H

#include <sys/types.h>

enum col_start_how { COL_START_LAUNCH, COL_START_ATTACH, COL_START_DESCENDANT };
/* Starts the sources the settings (col_cfg) ask for. */
void col_sources_start(enum col_start_how how);
/* A program thread starts (on itself): nonzero when it must report its end. */
int col_sources_thread_start(pid_t tid);
void col_sources_thread_stop(pid_t tid);
void col_sources_pause(void);
void col_sources_resume(void);
/* The experiment ends (the program may run on). */
void col_sources_stop(void);
/* In a fork's child where the program samples itself (perf events
 * refused): its fork announced (PPID, the forking thread PTID, the
 * parent's clock before the call FORKED_AT), and its clock restarted on
 * its one thread (timers are not inherited). */
void col_sources_forked_child(pid_t ppid, pid_t ptid, int64_t forked_at);
/* Before the program's exec, its request posted at ASKED_AT: where the
 * program samples itself, until the sampler has taken it, and with it
 * every sample of the image that ends (no kernel record orders the two:
 * its samples were read against the new image's mappings in one
 * clean-clone CI run of e2e.exec under the no-perf filter). */
void col_sources_exec_starting(int64_t asked_at);
/* Perf events refused, before a dlclose: until the sampler has taken the
 * samples before it and read the mappings while its object is still there
 * (no kernel record of the mapping tells when it was made). */
void col_sources_unloading(void);
/* A thread made by clone() starts, its stack ending at STACK_TOP (the
 * program samples itself for the sampler process): nonzero when it must
 * report its end (col_sources_thread_stop). */
int col_sources_raw_thread_start(void *stack_top);

#endif
