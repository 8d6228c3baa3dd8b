/* The time a hypervisor took from this machine's CPUs (/proc/stat's
 * steal): perf's clock events count it as the time of the threads it was
 * taken from (host_steal.c). */
#ifndef GDBCOL_HOST_STEAL_H
#define GDBCOL_HOST_STEAL_H

/* All CPUs' steal so far, in seconds (0 where the kernel keeps none). */
double host_steal_seconds(void);
/* The run begins: its steal counts from now. */
void host_steal_start(void);
/* Said in log.xml and GDB's closing line where the steal since the start is
 * a share of RECORDED_CPU (the seconds the clock recorded) that matters. */
void host_steal_describe(double recorded_cpu);

#endif
