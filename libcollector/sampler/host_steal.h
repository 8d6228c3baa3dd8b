/* The time a hypervisor took from this machine's CPUs (/proc/stat's
 * steal): perf's clock events count it as the time of the threads it was
 * taken from; while it is taken, each thread's samples are held to its own
 * CPU time (host_steal.c). */
#ifndef GDBCOL_HOST_STEAL_H
#define GDBCOL_HOST_STEAL_H

#include <stdint.h>
#include <sys/types.h>

/* The run begins: its steal counts from now, no thread has an account.
 * HOLD_ALWAYS (GDBCOL_STEAL_CHECK, for the tests): samples are held to
 * their threads' clocks whether the host steals or not. */
void host_steal_start(int hold_always);
/* Whether a clock sample of PERIOD_NS of thread TID (of process PID),
 * taken at SAMPLED_AT (the experiment's clock), is recorded: not when the
 * host has been stealing lately and the thread's recorded time would pass
 * its own CPU time by more than a period. */
int host_steal_admits_sample(pid_t pid, pid_t tid, uint64_t period_ns, int64_t sampled_at);
/* The part of CPU's time between FROM and TO (the experiment's clock) the
 * host took, estimated from each CPU's steal at polls of /proc/stat (CPU
 * not known: UINT32_MAX, the CPUs' average). */
uint64_t host_steal_on_cpu(uint32_t cpu, int64_t from, int64_t to);
/* Thread TID has ended: its account goes. */
void host_steal_forget_thread(pid_t tid);
/* Said in log.xml and GDB's closing line where the steal since the start is
 * a share of RECORDED_CPU (the seconds the clock recorded) that matters,
 * and in log.xml the samples left out. */
void host_steal_describe(double recorded_cpu);

#endif
