#!/usr/bin/env python3
"""Synchronization-wait tracing: what it costs the program, side by side
with gprofng `collect -s`, from one run of each per round (medians).

  - ns per uncontended lock+unlock (20 M pairs no one waits in): native,
    gdb-collector with synctrace off and on (calibrated), gprofng -s on;
    and the lock orders of deadlock detection (`collector tha deadlock`)
    on top of synctrace, with no lock held and with one held (nested: an
    order checked at each lock), beside Helgrind (valgrind's lock-order
    and race checker, on 1/100 of the pairs);
  - us per handoff between two threads (mutex + condition, two waits per
    handoff, 100 000 handoffs) with every wait traced (threshold 0):
    the added cost per traced event = (traced - native) / 2;
  - bytes per event in the experiment (synctrace packets + their share of
    data.frameinfo);
  - instructions per uncontended lock+unlock under callgrind (exact, where
    this VM's timings vary by more than the figure): native, and the
    runtime preloaded with synctrace and lock orders off (the wrappers'
    idle path: a load, a test and a tail call each, issue 38).

    bench/sync_cost.py [BUILD_DIR] [REPEATS]"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from tracing_bench import callgrind_per_unit, callgrind_refs, env, print_bytes_per_event

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
PROGRAM = os.path.join(BUILD, "bench", "sync_cost")
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
MODES = {"uncontended": "20000000", "nested": "20000000", "handoff": "100000"}
THA = ["collector synctrace on", "collector tha deadlock"]


def figure(out, mode):
    key = "us_per_handoff" if mode == "handoff" else "ns_per_pair"
    m = re.search(key + r"=([0-9.]+)", out)
    return float(m.group(1)) if m else float("nan")


def native(mode, work):
    return subprocess.run([PROGRAM, mode, MODES[mode]], capture_output=True, text=True, cwd=work, env=env()).stdout


def collector(mode, work, settings):
    cmd = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB] + sum([["-ex", s] for s in settings], []) + \
          ["-ex", "collector enable", "-ex", "run", "--args", PROGRAM, mode, MODES[mode]]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env(), stdin=subprocess.DEVNULL).stdout


def helgrind(mode, work):
    """Helgrind on 1/100 of the pairs (it runs the program on valgrind's
    simulated CPU); None where valgrind is missing."""
    if shutil.which("valgrind") is None:
        return None
    return subprocess.run(["valgrind", "--tool=helgrind", "-q", PROGRAM, mode, str(int(MODES[mode]) // 100)],
                          capture_output=True, text=True, cwd=work, env=env()).stdout


def gprofng(mode, work, threshold):
    exp = os.path.join(work, "g.er")
    shutil.rmtree(exp, ignore_errors=True)
    return subprocess.run(["gprofng", "collect", "app", "-p", "off", "-s", "all" if threshold == "0" else threshold, "-o", exp, PROGRAM, mode,
                           MODES[mode]], capture_output=True, text=True, cwd=work, env=env()).stdout


def callgrind_instructions(pairs, preload):
    """Instructions the whole run executes under callgrind; None without
    valgrind.  PRELOAD: the runtime, inert (no experiment: the same idle
    path as an experiment with synctrace off, less one test)."""
    extra = {"LD_PRELOAD": os.path.join(BUILD, "libcollector", "libcollector.so"),
             "GDBCOL_TARGET": "/nonexistent"} if preload else {}
    return callgrind_refs([PROGRAM, "uncontended", str(pairs)], extra)


def print_idle_instructions():
    """Per pair: the difference of two runs (1 M and 3 M pairs), so that
    start-up cancels out."""
    rows = [callgrind_per_unit(lambda n: callgrind_instructions(n, preload), 1000000, 3000000, 2000000)
            for preload in (False, True)]
    if None in rows:
        print("instructions per lock+unlock: valgrind not installed (bench/install-deps)")
        return
    print("\ninstructions per uncontended lock+unlock (callgrind, exact)")
    print("  %-36s %10.1f" % ("native", rows[0]))
    print("  %-36s %10.1f   +%.1f (two wrappers idle)" % ("runtime preloaded, synctrace off", rows[1],
                                                          rows[1] - rows[0]))


def main():
    work = tempfile.mkdtemp(prefix="gdbcol-bench-sync-")
    rows = {}
    for _ in range(REPEATS):
        for mode in MODES:
            threshold = "0" if mode == "handoff" else "calibrate"
            rows.setdefault((mode, "native"), []).append(figure(native(mode, work), mode))
            rows.setdefault((mode, "gdb-collector, synctrace off"), []).append(
                figure(collector(mode, work, []), mode))
            rows.setdefault((mode, "gdb-collector, synctrace " + threshold), []).append(
                figure(collector(mode, work, ["collector synctrace on", "collector synctrace threshold " + threshold]
                                 if threshold == "0" else ["collector synctrace on"]), mode))
            rows.setdefault((mode, "gprofng collect -s " + ("on" if threshold == "calibrate" else "all")), []).append(
                figure(gprofng(mode, work, "on" if threshold == "calibrate" else "0"), mode))
            if mode != "handoff":
                rows.setdefault((mode, "gdb-collector, synctrace + tha deadlock"), []).append(
                    figure(collector(mode, work, THA), mode))
                grind = helgrind(mode, work)
                if grind is not None:
                    rows.setdefault((mode, "valgrind --tool=helgrind"), []).append(figure(grind, mode))
    print("synchronization-wait tracing (%d rounds, medians)" % REPEATS)
    for mode, unit in (("uncontended", "ns per lock+unlock"), ("nested", "ns per lock+unlock, another lock held"),
                       ("handoff", "us per handoff (2 waits)")):
        print("\n%s: %s" % (mode, unit))
        base = statistics.median(rows[(mode, "native")])
        for (m, who), values in rows.items():
            if m != mode:
                continue
            value = statistics.median(values)
            added = value - base
            extra = ""
            if mode == "handoff" and who != "native":
                extra = "   +%.3f us per traced event" % (added / 2)
            elif mode != "handoff" and who != "native":
                extra = "   +%.2f ns" % added
            print("  %-36s %10.3f%s" % (who, value, extra))
    experiments = sorted(n for n in os.listdir(work) if n.startswith("test.") and n.endswith(".er"))
    ours = [os.path.join(work, n) for n in experiments]
    traced = [e for e in ours if os.path.exists(os.path.join(e, "synctrace")) and os.path.getsize(
        os.path.join(e, "synctrace")) > 0]
    print()
    print_bytes_per_event(traced[-1] if traced else None, os.path.join(work, "g.er"), "synctrace", "e.syncn")
    print_idle_instructions()
    shutil.rmtree(work, ignore_errors=True)


main()
