#!/usr/bin/env python3
"""Clock profiling of many threads: truth and budget, side by side, one run.

1. Short threads: bench's copy of tests/programs/thread_mix runs 1000
   threads of 1 ms of CPU each (50 alive at a time) beside 2 long threads;
   each group's CPU is measured by the program with thread CPU clocks.
   Printed: recorded/true per group for gdb-collector (under GDB), `perf
   record -e task-clock -c PERIOD` and `gprofng collect app -p`, at 10 ms
   and 1 ms (medians of REPEATS rounds).
2. Budget with 256 threads: the profiler's descriptors, the program's, and
   the perf rings mapped (locked memory), read while it runs.
3. The program's CPU with 2000 threads (200 alive, 2 ms each), profiled
   over unprofiled, both under GDB for gdb-collector (GDB's own thread
   events cost the program too), both without for perf.

    bench/thread_truth.py [BUILD_DIR] [REPEATS]"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
MIX = os.path.join(BUILD, "tests", "thread_mix")
SHORT = [MIX, "1000", "50", "1", "2", "0.5"]
MANY = [MIX, "0", "1", "0", "256", "0.02"]
CHURN = [MIX, "2000", "200", "2", "0", "0"]
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
RATES = {"10 ms": ("on", 10007000), "1 ms": ("hi", 997000)}


def env():
    return {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}


def truth(out):
    m = re.search(r"short_cpu=([0-9.]+) long_cpu=([0-9.]+)", out)
    return float(m.group(1)), float(m.group(2))


def gprofng_groups(exp):
    out = subprocess.run(["gprofng", "display", "text", "-functions", exp], capture_output=True, text=True).stdout
    incl = {}
    for line in out.splitlines():
        m = re.match(r"^\s*[0-9.]+\s+[0-9.]+\s+([0-9.]+)\s+[0-9.]+\s+(\S+)\s*$", line)
        if m:
            incl[m.group(2)] = float(m.group(1))
    return incl.get("short_thread", 0.0), incl.get("long_thread", 0.0)


def run_ours(rate, tmp):
    out = subprocess.run(["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector profile timer " + rate,
                          "-ex", "collector enable", "-ex", "run", "--args"] + SHORT, cwd=tmp, capture_output=True,
                         text=True, env=env()).stdout
    return truth(out), gprofng_groups(os.path.join(tmp, "test.1.er"))


def run_gprofng(rate, tmp):
    out = subprocess.run(["gprofng", "collect", "app", "-p", rate, "-o", "g.er"] + SHORT, cwd=tmp,
                         capture_output=True, text=True, env=env()).stdout
    return truth(out), gprofng_groups(os.path.join(tmp, "g.er"))


def run_perf(period_ns, tmp):
    """perf names no thread function here: the two threads with the most
    samples are the long ones; the main thread (pid) is left out."""
    p = subprocess.Popen(["perf", "record", "-q", "-e", "task-clock", "-c", str(period_ns), "-o", "p.data"] + SHORT,
                         cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env())
    out, _ = p.communicate()
    script = subprocess.run(["perf", "script", "-i", "p.data", "-F", "pid,tid"], cwd=tmp, capture_output=True,
                            text=True).stdout
    per_tid = {}
    for line in script.splitlines():
        parts = line.split()
        if len(parts) >= 1 and "/" in parts[0]:
            pid, tid = parts[0].split("/")
            if pid != tid:
                per_tid[tid] = per_tid.get(tid, 0) + 1
    counts = sorted(per_tid.values(), reverse=True)
    seconds = lambda n: n * period_ns / 1e9
    return truth(out), (seconds(sum(counts[2:])), seconds(sum(counts[:2])))


def budget(cmd, profiler_name, tmp):
    """Peak descriptors of the profiler and the program, and the perf ring
    bytes the profiler maps, read every 50 ms while the program runs."""
    p = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env())
    peak = {"profiler_fds": 0, "program_fds": 0, "ring_kib": 0, "threads": 0}
    while p.poll() is None:
        for name, key in ((profiler_name, "profiler"), ("thread_mix", "program")):
            pids = subprocess.run(["pgrep", "-n", "-x", name], capture_output=True, text=True).stdout.split()
            if not pids:
                continue
            try:
                fds = len(os.listdir("/proc/%s/fd" % pids[0]))
                peak[key + "_fds"] = max(peak[key + "_fds"], fds)
                if key == "program":
                    peak["threads"] = max(peak["threads"], len(os.listdir("/proc/%s/task" % pids[0])))
                else:
                    kib = 0
                    with open("/proc/%s/maps" % pids[0]) as f:
                        for line in f:
                            if "perf_event" in line:
                                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                                kib += (hi - lo) // 1024
                    peak["ring_kib"] = max(peak["ring_kib"], kib)
            except OSError:
                pass
        time.sleep(0.05)
    return peak


def main():
    tmp = tempfile.mkdtemp(prefix="gdbcol-bench-")
    print("short-thread program: %s (%d rounds, medians)" % (" ".join(SHORT[1:]), REPEATS))
    print("%-14s %-6s %22s %22s" % ("profiler", "rate", "short threads rec/true", "long threads rec/true"))
    for rate_name, (word, period_ns) in RATES.items():
        for name, fn in (("gdb-collector", lambda t: run_ours(word, t)), ("perf", lambda t: run_perf(period_ns, t)),
                         ("gprofng", lambda t: run_gprofng(word, t))):
            shorts, longs = [], []
            for _ in range(REPEATS):
                shutil.rmtree(tmp, ignore_errors=True)
                os.makedirs(tmp)
                (short_true, long_true), (short_rec, long_rec) = fn(tmp)
                shorts.append(short_rec / short_true)
                longs.append(long_rec / long_true)
            print("%-14s %-6s %22.3f %22.3f" % (name, rate_name, statistics.median(shorts), statistics.median(longs)))
    print("\n256 threads (%s), peaks while running:" % " ".join(MANY[1:]))
    print("%-14s %16s %16s %18s %10s" % ("profiler", "profiler fds", "program fds", "perf rings (KiB)", "threads"))
    for name, cmd, process in (
            ("gdb-collector", ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector enable", "-ex", "run",
                               "--args"] + MANY, "gdbcol-sampler"),
            ("perf", ["perf", "record", "-q", "-e", "task-clock", "-c", "10007000", "-o", "p.data"] + MANY, "perf"),
            ("none", MANY, "-")):
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        peak = budget(cmd, process, tmp)
        print("%-14s %16s %16d %18s %10d" % (name, peak["profiler_fds"] if process != "-" else "-",
                                             peak["program_fds"], peak["ring_kib"] if process != "-" else "-",
                                             peak["threads"]))
    print("\n2000 threads (%s): the program's CPU, profiled / not (medians)" % " ".join(CHURN[1:]))
    gdb = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB]
    for name, profiled, plain in (
            ("gdb-collector", gdb + ["-ex", "collector enable", "-ex", "run", "--args"], gdb + ["-ex", "run", "--args"]),
            ("perf", ["perf", "record", "-q", "-e", "task-clock", "-c", "10007000", "-o", "p.data"], [])):
        ratios = []
        for _ in range(REPEATS):
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            cpu = [process_cpu(subprocess.run(cmd + CHURN, cwd=tmp, capture_output=True, text=True, env=env()).stdout)
                   for cmd in (profiled, plain)]
            ratios.append(cpu[0] / cpu[1])
        print("%-14s %8.3f" % (name, statistics.median(ratios)))
    shutil.rmtree(tmp, ignore_errors=True)


def process_cpu(out):
    return float(re.search(r"cpu_seconds=([0-9.]+)", out).group(1))


if __name__ == "__main__":
    main()
