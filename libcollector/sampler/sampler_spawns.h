/* Calls that create a process and run a program in it (system, popen,
 * posix_spawn, posix_spawnp, pidfd_spawn, pidfd_spawnp), as the runtime
 * announces them on the control page (sampler_spawns.c): their children
 * are named as execs (_xN.er). */
#ifndef GDBCOL_SAMPLER_SPAWNS_H
#define GDBCOL_SAMPLER_SPAWNS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Thread TID of process PID entered such a call (VARIANT, running
 * COMMAND) at TSTAMP. */
void spawns_begin(pid_t pid, pid_t tid, int64_t tstamp, const char *variant, const char *command);
/* ... and left it at TSTAMP, with CHILD (0: not known). */
void spawns_end(pid_t pid, pid_t tid, pid_t child, int64_t tstamp);
/* A fork of CHILD at TSTAMP by thread PTID of process PPID: 1 when it is
 * such a call's child, with the call's VARIANT and COMMAND; 0 for a plain
 * fork.
 * PTID SPAWNS_ANY_PROGRAM or SPAWNS_ANY_SHELL: any thread of PPID, for a
 * child the sampler learns of only at its exec (perf events refused): a
 * program's (posix_spawn, pidfd_spawn), or a shell's (system, popen). */
#define SPAWNS_ANY_PROGRAM ((pid_t)0)
#define SPAWNS_ANY_SHELL ((pid_t)-1)
int spawns_claim(pid_t child, pid_t ppid, pid_t ptid, int64_t tstamp, char *variant, size_t variant_len,
                 char *command, size_t command_len);

/* The calls of process PID that ended with no child claimed (FN for each
 * command), taken out: where perf events are refused, a child whose
 * environment did not carry the runtime (system's and popen's shell) is
 * seen by nobody. */
unsigned spawns_take_unclaimed(pid_t pid, void (*fn)(const char *command));

#endif
