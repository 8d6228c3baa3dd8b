"""The fast unwinder (cached frame rules) gives exactly libunwind's call
stacks.  With GDBCOL_UNWIND_CHECK=1 the runtime walks every sample both
ways and logs how many differed; this runs it on the test programs (threads,
a dlopen'd library) and on a program not written for the tests (the system
Python, whose interpreter loop runs deep stacks through libpython), at 1 ms."""

import os
import re

from harness import check, cleanup, er_dump, finish, program, run_gdb, workdir

PYTHON_LOOP = "import json; [json.dumps({'k': list(range(200))}) for _ in range(25000)]"
RUNS = {
    "split_work": [program("split_work"), "0.5", "2"],
    "dlopen_main": [program("dlopen_main"), program("libhotlib.so"), "0.5"],
    "python3": ["/usr/bin/python3", "-c", PYTHON_LOOP],
}

for name, args in RUNS.items():
    work = workdir()
    out = run_gdb(["set environment GDBCOL_UNWIND_CHECK=1", "collector profile timer hi", "collector enable", "run"],
                  args, cwd=work)
    summary, funcs, raw = er_dump(os.path.join(work, "test.1.er"))
    comments = " | ".join(summary["comments"])
    m = re.search(r"Unwinder check: (\d+) of (\d+) rule-based", comments)
    check(m is not None, "%s: the log carries the unwinder check (%s)" % (name, comments[-200:]))
    if m:
        differed, checked = int(m.group(1)), int(m.group(2))
        check(differed == 0, "%s: %d of %d rule-based stacks differed from libunwind's" % (name, differed, checked))
        # (the packets of CPU time no late timer sample found have no stack to unwind)
        packets = int(summary.get("clock_packets", 0)) - int(summary.get("clock_not_sampled_packets", 0))
        check(packets > 0 and checked >= 0.9 * packets,
              "%s: cached rules unwound %d of %d samples (at least 90%%)" % (name, checked, packets))
    check(summary.get("missing_stacks") == "0", "%s: every packet's stack is in data.frameinfo" % name)
    cleanup(work)
finish()
