#!/usr/bin/env python3
"""Our report's time on a 1 M-sample experiment beside gprofng's on the same
experiment (issue 41's target: `collector report` no slower than gprofng).

The experiment is a real run: bench/workload's two threads sampled every
100 us through the launcher GDB uses (no GDB), long enough for PACKETS clock
packets (a short run first measures the packets a work unit gives).  Each
reader makes its function list REPEATS times; the medians are printed side
by side, with the two readers' totals, which must agree.  About 100 s of CPU
for 1 M packets.

    bench/report_speed.py [BUILD_DIR] [PACKETS] [REPEATS]"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
PACKETS = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
REPEATS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
WORKLOAD = os.path.join(BUILD, "bench", "workload")
RUNTIME = os.path.join(BUILD, "libcollector", "libcollector.so")
SAMPLER = os.path.join(BUILD, "libcollector", "gdbcol-sampler")
LAUNCHER = os.path.join(BUILD, "runtime-attach", "gdbcol-launch")
REPORT = os.path.join(BUILD, "experiment", "gdbcol-report")
ER_DUMP = os.path.join(BUILD, "experiment", "er-dump")


def record(work, name, units):
    """bench/workload's two threads for UNITS work units at 100 us, as
    bench/sampler_cost.py runs it: the experiment and its clock packets."""
    run = os.path.join(work, name)
    os.makedirs(run)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}
    env.update(GDBCOL_PRELOAD=RUNTIME, GDBCOL_SAMPLER=SAMPLER, GDBCOL_CLOCK_US="100", GDBCOL_TARGET=WORKLOAD,
               GDBCOL_STATUS_FILE=os.path.join(run, "status"))
    subprocess.run([LAUNCHER, WORKLOAD, "2", str(units)], cwd=run, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=3600)
    path = os.path.join(run, "test.1.er")
    for _ in range(600):  # (the sampler process closes it a moment after the program)
        dump = subprocess.run([ER_DUMP, path], capture_output=True, text=True).stdout
        if "closed: yes" in dump:
            return path, int(re.search(r"^clock_packets: (\d+)", dump, re.M).group(1))
        time.sleep(0.1)
    raise SystemExit("report_speed: the recorded experiment did not close")


def timed(cmd):
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    return time.monotonic() - start, out.stdout + out.stderr


def total_seconds(text, pattern):
    m = re.search(pattern, text, re.M)
    return float(m.group(1)) if m else None


def main():
    for path in (WORKLOAD, RUNTIME, SAMPLER, LAUNCHER, REPORT, ER_DUMP):
        if not os.path.exists(path):
            raise SystemExit("report_speed: %s is missing (build first)" % path)
    if shutil.which("gprofng") is None:
        raise SystemExit("report_speed: gprofng is missing (Debian package binutils)")
    work = tempfile.mkdtemp(prefix="gdbcol-bench-")
    try:
        _, per_20 = record(work, "calibrate", 20)
        big, packets = record(work, "big", max(20, -(-PACKETS * 20 // max(per_20, 1))))
        ours, theirs = [], []
        for _ in range(REPEATS):
            t, our_text = timed([REPORT, "--limit", "20", big])
            ours.append(t)
            t, their_text = timed(["gprofng", "display", "text", "-limit", "20", "-functions", big])
            theirs.append(t)
        our_total = total_seconds(our_text, r"^Experiment \S+: +([0-9.]+) sec")
        their_total = total_seconds(their_text, r"^\s*([0-9.]+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+<Total>")
        print("report speed: %d clock packets (a real run at 100 us), function list, median of %d"
              % (packets, REPEATS))
        print("  %-28s %8.2f s   total %s s" % ("gdbcol-report", statistics.median(ours), our_total))
        print("  %-28s %8.2f s   total %s s" % ("gprofng display text", statistics.median(theirs), their_total))
        print("  ratio ours / gprofng's: %.2f (target <= 1.00)" % (statistics.median(ours) / statistics.median(theirs)))
        if our_total is None or their_total is None or abs(our_total - their_total) > 0.01 * their_total:
            print("  the totals differ: the comparison is not of the same work")
            return 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
