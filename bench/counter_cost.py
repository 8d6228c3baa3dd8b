#!/usr/bin/env python3
"""Counter profiling: what it costs the program, side by side with
`perf record -e page-faults -c 100`, from one run of each per round
(medians).  The program (tests/programs/counters.c) touches N fresh pages
(N page faults) and computes for a moment; per profiler the program's
wall time, its ratio to the untraced run, and the page faults it counted
against the truth.

    bench/counter_cost.py [BUILD_DIR] [REPEATS] [PAGES]"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from tracing_bench import env

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
PAGES = int(sys.argv[3]) if len(sys.argv) > 3 else 400000
PROGRAM = [os.path.join(BUILD, "tests", "counters"), "pages", str(PAGES), "0.2"]
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
ER_DUMP = os.path.join(BUILD, "experiment", "er-dump")


def timed(cmd, work):
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env(), stdin=subprocess.DEVNULL)
    return time.monotonic() - start, out.stdout + out.stderr


def native(work):
    return timed(PROGRAM, work)[0], None


def collector(work, gdb_only=False):
    shutil.rmtree(os.path.join(work, "test.1.er"), ignore_errors=True)
    settings = [] if gdb_only else ["collector hwprofile counter page-faults,100", "collector hwprofile on",
                                    "collector enable"]
    seconds, _ = timed(["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB] + sum([["-ex", s] for s in settings], []) +
                       ["-ex", "run", "--args"] + PROGRAM, work)
    if gdb_only:
        return seconds, None
    dump = subprocess.run([ER_DUMP, os.path.join(work, "test.1.er")], capture_output=True, text=True).stdout
    m = re.search(r"^page-faults (\d+) \d+ touch_pages$", dump, re.M)
    return seconds, int(m.group(1)) if m else None


def perf(work):
    data = os.path.join(work, "perf.data")
    seconds, _ = timed(["perf", "record", "-q", "-e", "page-faults", "-c", "100", "-o", data] + PROGRAM, work)
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "sym", "-F", "period,sym"],
                         capture_output=True, text=True).stdout
    m = re.search(r"^\s*(\d+)\s+\[\.\] touch_pages", out, re.M)
    return seconds, int(m.group(1)) if m else None


def main():
    work = tempfile.mkdtemp(prefix="gdbcol-bench-counters-")
    runs = {"native": native, "gdb, no collector": lambda w: collector(w, gdb_only=True),
            "gdb-collector page-faults,100": collector, "perf record -e page-faults -c 100": perf}
    rows, counted = {}, {}
    for _ in range(REPEATS):
        for who, fn in runs.items():
            seconds, faults = fn(work)
            rows.setdefault(who, []).append(seconds)
            if faults is not None:
                counted[who] = faults
    base = statistics.median(rows["native"])
    print("Counter profiling (%d rounds, medians): %d fresh pages touched, then 0.2 s of arithmetic"
          % (REPEATS, PAGES))
    print("\n%-36s %9s %8s %26s" % ("", "seconds", "ratio", "touch_pages faults/truth"))
    for who, values in rows.items():
        value = statistics.median(values)
        faults = "%d/%d" % (counted[who], PAGES) if who in counted else "-"
        print("%-36s %9.3f %8.2f %26s" % (who, value, value / base, faults))
    print("(the collector's and GDB's rows include GDB's own start; clock profiling at 10 ms beside the counter)")
    shutil.rmtree(work, ignore_errors=True)


main()
