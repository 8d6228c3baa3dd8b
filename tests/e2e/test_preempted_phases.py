"""A thread that shares its CPU with a busy thread of its own
(tests/programs/preempted_phases.c: both pinned to one CPU), alternating
code that makes a system call every 50 us (calls_kernel) with a plain loop
(plain_loop), 20 rounds of 0.05 s each, its own CPU clock the truth.

Where perf events are refused, the program's CPU-time timers sample it;
the kernel checks them at its tick, for the thread running then, and
under load switches the plain loop out at a tick and calls_kernel at a
system call between ticks: measured, the ticks found calls_kernel a third
to two thirds as often as its share.  Each sample carried the CPU time
since the last, so calls_kernel's time went to the loop's next sample
(0.34-0.65 s recorded of 1.00, the loop 1.49-1.76 of 1.11).  Now the time
a preempted thread ran beyond what its late sample stands for is under
<Not-sampled-under-load>, said in log.xml and by GDB: no function more
than it ran, calls_kernel's shortfall there.  With perf events (a
task-clock sample every interval of the thread's CPU, on time) nothing is
under it and each function is within sampling of its time."""

import os
import re

from harness import (boundary_seconds, check, cleanup, er_dump, finish, gprofng_rows, gprofng_text,
                     perf_events_refused, program, run_gdb, sampling_seconds, skip_test, workdir)

INTERVAL = 0.01
ROUNDS = 20
PSEUDO = "<Not-sampled-under-load>"
work = workdir()
out = run_gdb(["collector enable", "run"], [program("preempted_phases"), str(ROUNDS), "0.05"], work)
print(out)
m = re.search(r"truth calls_kernel=([0-9.]+) plain_loop=([0-9.]+) preempted=(\d+)", out)
if m is None:
    check(False, "the program printed its truth (GDB's output ends: %r)" % out[-600:])
    finish()
truth_kernel, truth_loop, preempted = float(m.group(1)), float(m.group(2)), int(m.group(3))
if preempted == 0:  # (two threads pinned to one CPU: the kernel switches between them)
    skip_test("the program's thread was never preempted by its competing thread")
experiment = os.path.join(work, "test.1.er")
summary, funcs, raw = er_dump(experiment)
kernel, loop = funcs.get("calls_kernel", (0, 0))[0], funcs.get("plain_loop", (0, 0))[0]
# The program's thread alone (gprofng's thread 1): the competing thread's
# own unsampled time is not calls_kernel's.
rows = gprofng_rows(gprofng_text(experiment, "-thread_select", "1", "-metrics", "e.totalcpu", "-functions"))
unplaced = rows.get(PSEUDO, [0.0])[0]
edges = 2 * ROUNDS
# A sample on time can carry an interval or two of the phase before it
# (the tick's lateness): each edge, at most 2 intervals.
carry = edges * 2 * INTERVAL
label = "calls_kernel %.3f s recorded of %.3f, plain_loop %.3f of %.3f, %s %.3f (the thread's; %d preemptions)" % (
    kernel, truth_kernel, loop, truth_loop, PSEUDO, unplaced, preempted)
if perf_events_refused():
    check(unplaced > 0, label + ": the thread's time no late sample found is under " + PSEUDO)
    check(loop <= truth_loop + sampling_seconds(truth_loop, INTERVAL) + carry,
          label + ": plain_loop no more than it ran (within sampling and a carry of 2 intervals an edge)")
    check(kernel <= truth_kernel + sampling_seconds(truth_kernel, INTERVAL) + carry,
          label + ": calls_kernel no more than it ran")
    check(kernel + unplaced >= truth_kernel - sampling_seconds(truth_kernel, INTERVAL) - carry,
          label + ": calls_kernel's shortfall is under " + PSEUDO)
    said = [c for c in summary.get("comments", []) if c.startswith("Not sampled under load:")]
    check(len(said) == 1 and PSEUDO in said[0], "log.xml says what is under %s (%s)" % (PSEUDO, said))
    total = float(summary.get("cpu_seconds", 0))
    everything = float(summary.get("clock_not_sampled_seconds", 0))  # (both threads')
    if everything >= 0.05 * total:
        check("is under <Not-sampled-under-load>: the CPUs had more threads ready than they could run" in out,
              "GDB says how much of the CPU time is under %s and why (%.3f s of %.3f)" % (PSEUDO, everything, total))
else:
    check(unplaced == 0, label + ": nothing under %s where perf events sample on time" % PSEUDO)
    for name, got, truth in (("calls_kernel", kernel, truth_kernel), ("plain_loop", loop, truth_loop)):
        bound = sampling_seconds(truth, INTERVAL) + boundary_seconds(edges, INTERVAL)
        check(abs(got - truth) <= bound, label + ": %s within %.3f s of its time" % (name, bound))
gp = gprofng_text(experiment, "-functions")
check("plain_loop" in gp and "calls_kernel" in gp, "gprofng reads the experiment (both functions listed)")
cleanup(work)
finish()
