#!/usr/bin/env python3
"""CPU the profiler spends per further sample, ours beside perf record's.

Each profiler runs bench/workload twice at 1 ms, SHORT and LONG work units.
The profiler's own CPU: for perf, all the CPU of its process tree (getrusage
of the children) minus what the program reports for itself; for the sampler
process, which outlives its launcher and is nobody's child here, the
getrusage it reports in log.xml.  The cost of a further
sample is the difference between the two runs over the difference in
samples, so start-up (reading CFI, perf's own start) cancels out.

  gdb-collector: the launcher GDB uses, sampler process, no GDB; the samples
                 are the profile packets written (er-dump).
  perf record:   -e task-clock -c 997000 (frame pointers, no stack copy:
                 it unwinds nothing while recording); samples from perf script.

    bench/sampler_cost.py [BUILD_DIR] [REPEATS]"""

import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
WORKLOAD = os.path.join(BUILD, "bench", "workload")
RUNTIME = os.path.join(BUILD, "libcollector", "libcollector.so")
SAMPLER = os.path.join(BUILD, "libcollector", "gdbcol-sampler")
LAUNCHER = os.path.join(BUILD, "runtime-attach", "gdbcol-launch")
ER_DUMP = os.path.join(BUILD, "experiment", "er-dump")
SHORT, LONG = "30", "400"
SAMPLES = {}
RECORD_CPU = {}  # the sampler's CPU in reading, unwinding and storing records, per run length
PERIOD_US = 997


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_tree(cmd, cwd, env):
    """(CPU of the whole process tree, the program's own CPU)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}
    full.update(env)
    before = children_cpu()
    out = subprocess.run(cmd, cwd=cwd, env=full, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    tree = children_cpu() - before
    program = float(re.search(r"cpu_seconds=([0-9.]+)", out).group(1))
    return tree, program


def session_parent():
    """Where GDB keeps the status file (gdb_collector/session.py): memory,
    the user's runtime directory or /dev/shm.  On a disk each status write
    cost 0.6 ms here (ext4 flushes a file renamed over another); in
    memory 36 us."""
    for candidate in (os.environ.get("XDG_RUNTIME_DIR"), "/dev/shm"):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            return candidate
    return None


def ours(units, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    session = tempfile.mkdtemp(prefix="gdbcol-bench-", dir=session_parent())
    env = {"GDBCOL_PRELOAD": RUNTIME, "GDBCOL_SAMPLER": SAMPLER, "GDBCOL_CLOCK_US": str(PERIOD_US),
           "GDBCOL_TARGET": WORKLOAD, "GDBCOL_STATUS_FILE": os.path.join(session, "status")}
    try:
        run_tree([LAUNCHER, WORKLOAD, "2", units], tmp, env)
    finally:
        shutil.rmtree(session, ignore_errors=True)
    exp = os.path.join(tmp, "test.1.er")
    dump = subprocess.run([ER_DUMP, exp], capture_output=True, text=True).stdout
    samples = int(re.search(r"clock_packets: ([0-9]+)", dump).group(1))
    SAMPLES.setdefault(units, []).append(samples)
    with open(os.path.join(exp, "log.xml")) as f:  # the sampler process is no child of ours: its own figures
        log = f.read()
    cpu = float(re.search(r"used ([0-9.]+) s of CPU time", log).group(1))
    RECORD_CPU.setdefault(units, []).append(float(re.search(r"Of that, ([0-9.]+) s went to reading", log).group(1)))
    return cpu, samples


def perf(units, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    tree, program = run_tree(["perf", "record", "-q", "-e", "task-clock", "-c", str(PERIOD_US * 1000), "-g",
                              "-o", "p.data", WORKLOAD, "2", units], tmp, {})
    script = subprocess.run(["perf", "script", "-i", "p.data", "-F", "tid"], cwd=tmp, capture_output=True,
                            text=True).stdout
    return tree - program, len([l for l in script.splitlines() if l.strip()])


def main():
    tmp = tempfile.mkdtemp(prefix="gdbcol-bench-")
    costs = {"gdb-collector": [], "perf record": []}
    for _ in range(REPEATS):
        for name, measure in (("gdb-collector", ours), ("perf record", perf)):
            cpu_short, n_short = measure(SHORT, tmp)
            cpu_long, n_long = measure(LONG, tmp)
            costs[name].append(1e6 * (cpu_long - cpu_short) / max(n_long - n_short, 1))
    print("profiler CPU per further sample at 1 ms (bench/workload 2 %s vs 2 %s, %d rounds)" % (SHORT, LONG, REPEATS))
    print("%-14s %10s   %s" % ("profiler", "median", "each round"))
    record = [1e6 * (l - s) / max(nl - ns, 1) for s, l, ns, nl in
              zip(RECORD_CPU[SHORT], RECORD_CPU[LONG], SAMPLES[SHORT], SAMPLES[LONG])]
    for name, values in costs.items():
        print("%-14s %7.2f us   %s" % (name, statistics.median(values), " ".join("%.2f" % v for v in values)))
        if name == "gdb-collector":
            print("%-14s %7.2f us   %s" % ("  of it, records", statistics.median(record),
                                          " ".join("%.2f" % v for v in record)))
    print("(records: reading, unwinding and storing each sample, as log.xml times it; the rest is per wake-up:\n"
          " epoll, the ring's position, flushes and the status file, every half ring of 8 KiB stack copies)")
    ratio = statistics.median(costs["gdb-collector"]) / statistics.median(costs["perf record"])
    print("ratio gdb-collector / perf record: %.1f (perf copies records and unwinds nothing until perf report;"
          " the sampler process unwinds and writes the experiment)" % ratio)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
