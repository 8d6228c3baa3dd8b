"""A context-switch storm: two threads on one CPU yield to each other
(tests/programs/yield_storm.c), each until its own CPU clock says 0.6 s.
The kernel's switch path between a thread's switch records is still its
CPU time, about 1 us a switch here: counted from the records alone, a
thread with 200 000 switches ran 0.35-0.41 s of its 0.6, and the clock
samples beyond that were left out as samples that came too soon (18 of
52: 0.41 s recorded, and e2e.mpitrace's spinning Open MPI ranks 0.41 s of
0.56 in a loaded CI run).  Now: no more recorded than the threads' clocks
(within sampling), and samples left out only where those kept reach them;
with off-CPU time on (GDB's default) and off."""

import os
import re

from harness import check, cleanup, er_dump, finish, program, run_gdb, sampling_seconds, workdir

work = workdir()
for offcpu in ("on", "off"):
    cwd = os.path.join(work, "offcpu-" + offcpu)
    os.makedirs(cwd)
    out = run_gdb(["collector profile offcpu " + offcpu, "collector enable", "run"], [program("yield_storm"), "0.6"],
                  cwd=cwd)
    print(out)
    truth = sum(float(s) for s in re.findall(r"^cpu thread=\w+ seconds=([0-9.]+)", out, re.M))
    exp = os.path.join(cwd, "test.1.er")
    summary = er_dump(exp)[0]
    recorded = float(summary.get("cpu_seconds", 0))
    left_out = 0
    for comment in summary.get("comments", []):
        m = re.match(r"Samples left out: (\d+) clock sample", comment)
        if m:
            left_out = int(m.group(1))
    bound = sampling_seconds(truth, 0.01)
    label = "offcpu %s: %.3f s recorded, the threads' clocks %.3f (bound %.3f), %d sample(s) left out" % (
        offcpu, recorded, truth, bound, left_out)
    check(truth > 1.0, "offcpu %s: both threads printed their CPU (%.3f s)" % (offcpu, truth))
    check(recorded <= truth + bound, label + ": no more than the threads ran")
    check(left_out == 0 or recorded >= truth - bound, label + ": samples left out only beyond the threads' CPU")
cleanup(work)
finish()
