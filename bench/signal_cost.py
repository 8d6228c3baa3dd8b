#!/usr/bin/env python3
"""What the signal-mask wrappers cost (issue 39: <= 20 ns a call over the
bare call), from one run of each per round (medians): ns per
pthread_sigmask call, native, and under GDB with the collector sampling
from inside the program (perf events refused by tests/programs/
no_perf_events: the wrappers keep the timer signal deliverable), and
from outside (perf events allowed: the wrappers pass straight through).

    bench/signal_cost.py [BUILD_DIR] [REPEATS]"""

import os
import re
import statistics
import subprocess
import sys
import tempfile

from tracing_bench import callgrind_per_unit, callgrind_refs, env

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PROGRAM = os.path.join(BUILD, "bench", "signal_cost")
NO_PERF = os.path.join(BUILD, "tests", "no_perf_events")
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
CALLS = "5000000"


def figure(out):
    m = re.search(r"ns_per_call=([0-9.]+)", out)
    return float(m.group(1)) if m else float("nan")


def run(cmd, work, extra=None):
    return figure(subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=dict(env(), **(extra or {})),
                                 stdin=subprocess.DEVNULL).stdout)


def under_gdb(prefix, collector):
    return prefix + ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB] + \
        (["-ex", "collector enable"] if collector else []) + ["-ex", "run", "--args", PROGRAM, CALLS]


def inside_settings(work):
    """The settings GDB gives the runtime for an experiment sampled from
    inside (GDBCOL_CLOCK_SOURCE=timer), for runs without GDB."""
    runtime = os.path.join(BUILD, "libcollector", "libcollector.so")
    return {"LD_PRELOAD": runtime, "GDBCOL_PRELOAD": runtime, "GDBCOL_CLOCK_SOURCE": "timer",
            "GDBCOL_CLOCK_US": "10007", "GDBCOL_STATUS_FILE": os.path.join(work, "status"),
            "GDBCOL_EXPERIMENT_DIR": work}


def callgrind_instructions(calls, work, inside):
    """Instructions of the whole run under callgrind; None without valgrind."""
    return callgrind_refs([PROGRAM, str(calls)], inside_settings(work) if inside else {}, cwd=work)


def print_instructions(work):
    """Per call: the difference of two runs (0.5 M and 1.5 M rounds of two
    calls), so that start-up cancels out."""
    rows = [callgrind_per_unit(lambda n: callgrind_instructions(n, work, inside), 500000, 1500000, 2000000)
            for inside in (False, True)]
    if None in rows:
        print("instructions per call: valgrind not installed (bench/install-deps)")
        return
    print("\ninstructions per pthread_sigmask call (callgrind, exact)")
    print("  %-36s %8.1f" % ("native", rows[0]))
    print("  %-36s %8.1f   +%.1f (the wrapper)" % ("runtime preloaded, sampling inside", rows[1], rows[1] - rows[0]))


def main():
    # Each beside its anchor: under GDB each timer signal stops the
    # program for GDB (ptrace), and the seccomp filter that refuses perf
    # events slows every system call by itself.
    rows = [("native", lambda w: run([PROGRAM, CALLS], w), None),
            ("runtime, sampling inside", lambda w: run([PROGRAM, CALLS], w, inside_settings(w)), "native"),
            ("GDB, perf refused", lambda w: run(under_gdb([NO_PERF], False), w), None),
            ("gdb-collector, inside", lambda w: run(under_gdb([NO_PERF], True), w), "GDB, perf refused"),
            ("GDB", lambda w: run(under_gdb([], False), w), None),
            ("gdb-collector, outside", lambda w: run(under_gdb([], True), w), "GDB")]
    got = {name: [] for name, _, _ in rows}
    with tempfile.TemporaryDirectory(prefix="gdbcol-bench-") as work:
        for _ in range(REPEATS):
            for name, fn, _ in rows:
                got[name].append(fn(work))
    print("pthread_sigmask, ns per call (%s calls, medians of %d rounds; goal: <= 20 ns added)" % (CALLS, REPEATS))
    for name, _, anchor in rows:
        m = statistics.median(got[name])
        added = "" if anchor is None else "   added %+7.2f ns over %s" % (m - statistics.median(got[anchor]), anchor)
        print("  %-26s %8.2f ns%s" % (name, m, added))
    with tempfile.TemporaryDirectory(prefix="gdbcol-bench-") as work:
        print_instructions(work)


if __name__ == "__main__":
    main()
