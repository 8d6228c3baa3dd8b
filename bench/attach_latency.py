#!/usr/bin/env python3
"""Attach mode: how fast, and how long the target stands still.

For a 3-thread process (two computing, one probing the clock), prints the
medians over REPEATS runs of:
  - time from starting `gdb -p PID -ex 'collector enable' -ex detach` to the
    first clock sample on disk (an upper bound: the runtime flushes every
    50 ms);
  - the longest stretch the process was stopped (the probe thread's largest
    gap between two clock reads), with the collector and, for comparison,
    for a bare `gdb -p PID -ex detach`;
  - the whole GDB session's wall time.
Targets (the attach issue): first sample <= 1 s, stop <= 150 ms.

    bench/attach_latency.py [BUILD_DIR] [REPEATS]"""

import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PROBE = os.path.join(BUILD, "bench", "stall_probe")
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")


def one_run(with_collector, tmp, gdb_options=()):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}
    target = subprocess.Popen([PROBE, "60"], cwd=tmp, stdout=subprocess.PIPE, text=True, env=env)
    target.stdout.readline()
    time.sleep(0.3)
    commands = ["-ex", "collector enable"] if with_collector else []
    # -iex: the plugin loads before GDB attaches, as with the installed
    # auto-load file (with -x it would load while the process is stopped).
    gdb = ["gdb", "-nx", "-batch"] + list(gdb_options) + ["-iex", "source " + COLLECTOR_GDB, "-p", str(target.pid)] + \
        commands + ["-ex", "detach"]
    t0 = time.monotonic()
    session = subprocess.Popen(gdb, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    first_sample = None
    profile = os.path.join(tmp, "test.1.er", "profile")
    while session.poll() is None or (with_collector and first_sample is None and time.monotonic() - t0 < 10):
        if with_collector and first_sample is None and os.path.exists(profile) and os.path.getsize(profile) > 0:
            first_sample = time.monotonic() - t0
        time.sleep(0.002)
    session_time = time.monotonic() - t0
    time.sleep(0.2)
    target.send_signal(signal.SIGUSR1)
    out, _ = target.communicate(timeout=30)
    gap = float(re.search(r"max_gap_ms=([0-9.]+)", out).group(1))
    wait_for_sampler_processes()
    return first_sample, gap, session_time


def wait_for_sampler_processes(limit_s=20):
    """The sampler process closes the experiment after the program's exit;
    the next run's directory is made once it has."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and subprocess.run(["pgrep", "-x", "gdbcol-sampler"],
                                                         capture_output=True).returncode == 0:
        time.sleep(0.02)


def main():
    tmp = tempfile.mkdtemp(prefix="gdbcol-attach-bench-")
    firsts, gaps, sessions, bare_gaps, bare_sessions = [], [], [], [], []
    lean_firsts, lean_gaps = [], []
    for _ in range(REPEATS):
        # GDB without reading the libraries' symbols (the collector needs
        # none): what GDB's own attach costs when it only attaches.
        first, gap, _ = one_run(True, tmp, ["-iex", "set auto-solib-add off"])
        if first is not None:
            lean_firsts.append(first)
        lean_gaps.append(gap)
        first, gap, session = one_run(True, tmp)
        if first is not None:
            firsts.append(first)
        gaps.append(gap)
        sessions.append(session)
        _, gap, session = one_run(False, tmp)
        bare_gaps.append(gap)
        bare_sessions.append(session)
    shutil.rmtree(tmp, ignore_errors=True)
    print("attach benchmark: %s, %d runs, medians" % (PROBE, REPEATS))
    print("%-44s %10s" % ("", "median"))
    print("%-44s %9.0f ms" % ("gdb -p -> first sample on disk", 1000 * statistics.median(firsts)))
    print("%-44s %9.0f ms" % ("process stopped, collector enable + detach", statistics.median(gaps)))
    print("%-44s %9.0f ms" % ("process stopped, bare gdb -p + detach", statistics.median(bare_gaps)))
    print("%-44s %9.0f ms" % ("  same, GDB told not to read library symbols", statistics.median(lean_gaps)))
    print("%-44s %9.0f ms" % ("  and its first sample on disk", 1000 * statistics.median(lean_firsts)))
    print("%-44s %9.0f ms" % ("GDB session, collector enable + detach", 1000 * statistics.median(sessions)))
    print("%-44s %9.0f ms" % ("GDB session, bare gdb -p + detach", 1000 * statistics.median(bare_sessions)))


if __name__ == "__main__":
    main()
