#!/usr/bin/env python3
"""MPI tracing: what it costs a job, side by side with the same job
untraced, from one run of each per round (medians).

Two ranks bounce an 8-byte message (bench/mpi_pingpong.c, built with
Open MPI's mpicc, else MPICH's).  Per configuration:
  - the one-way latency (half a round trip) and its ratio to the job run
    without GDB (the anchor);
  - the MPI calls per second each rank made;
  - for mpitrace on, the added cost per MPI call: four calls lie on each
    round trip's critical path (a send and a receive in each rank), so
    (round trip traced - round trip untraced) / 4;
  - bytes per MPI event in what it wrote (iotrace + data.frameinfo of
    rank 0's experiment, over its MPI calls);
  - one rank sending to itself (MPI_Sendrecv on MPI_COMM_SELF, no other
    rank to wait for, so no spinning peer competes with the sampler for
    the CPUs): time and the rank's own CPU per call, and what tracing adds.
Targets (issue 27): at most 0.3 us added per call, at most 5 % on the
8-byte latency.

    bench/mpi_cost.py [BUILD_DIR] [REPEATS] [ROUND_TRIPS]"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from tracing_bench import env

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
TRIPS = sys.argv[3] if len(sys.argv) > 3 else "200000"
PROGRAM = os.path.join(BUILD, "bench", "mpi_pingpong")
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
ER_DUMP = os.path.join(BUILD, "experiment", "er-dump")
# The launcher of the implementation CMake built the program with (the same order).
LAUNCHERS = [("mpicc.openmpi", ["mpirun.openmpi", "--oversubscribe", "--allow-run-as-root"]),
             ("mpicc.mpich", ["mpirun.mpich"])]


def launcher():
    for compiler, command in LAUNCHERS:
        if shutil.which(compiler):
            return command
    return None


def figures(out):
    m = re.search(r"latency_us=([0-9.]+) calls_per_s=([0-9.]+)", out)
    return (float(m.group(1)), float(m.group(2))) if m else (float("nan"), float("nan"))


def run(mpirun, work, settings, self_mode=False):
    """The job; under GDB with SETTINGS (None: without GDB)."""
    for old in os.listdir(work):
        shutil.rmtree(os.path.join(work, old), ignore_errors=True)
    job = mpirun + ["-np", "1", PROGRAM, str(int(TRIPS) * 5), "self"] if self_mode else \
        mpirun + ["-np", "2", PROGRAM, TRIPS]
    if settings is None:
        cmd = job
    else:
        cmd = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB] + sum([["-ex", s] for s in settings], []) + \
              ["-ex", "collector enable", "-ex", "run", "--args"] + job
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env(), stdin=subprocess.DEVNULL).stdout
    if self_mode:
        m = re.search(r"self_ns_per_call=([0-9.]+) thread_cpu_ns_per_call=([0-9.]+)", out)
        return (float(m.group(1)), float(m.group(2))) if m else (float("nan"), float("nan"))
    return figures(out)


def bytes_per_event(work):
    rank = os.path.join(work, "test.1.er", "M_r0.er")
    if not os.path.isdir(rank):
        return float("nan")
    dump = subprocess.run([ER_DUMP, rank], capture_output=True, text=True).stdout
    m = re.search(r"^mpi_calls: (\d+)", dump, re.M)
    size = sum(os.path.getsize(os.path.join(rank, f)) for f in ("iotrace", "data.frameinfo")
               if os.path.exists(os.path.join(rank, f)))
    return size / int(m.group(1)) if m and int(m.group(1)) else float("nan")


def main():
    mpirun = launcher()
    if mpirun is None or not os.path.exists(PROGRAM):
        print("no MPI implementation (Debian packages openmpi-bin libopenmpi-dev or mpich libmpich-dev), "
              "or bench/mpi_pingpong was not built: nothing to measure")
        return 1
    configs = [("native (no GDB)", None), ("gdb-collector, mpitrace off", []),
               ("gdb-collector, mpitrace on", ["collector mpitrace on"])]
    results = {label: [] for label, _ in configs}
    alone = {label: [] for label, _ in configs}
    work = tempfile.mkdtemp(prefix="gdbcol-mpi-bench-")
    sizes = []
    for _ in range(REPEATS):
        for label, settings in configs:
            results[label].append(run(mpirun, work, settings))
            if settings:
                sizes.append(bytes_per_event(work))
            alone[label].append(run(mpirun, work, settings, self_mode=True))
    shutil.rmtree(work, ignore_errors=True)
    median = {label: (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows))
              for label, rows in results.items()}
    anchor = median["native (no GDB)"][0]
    print("MPI tracing (%d rounds, medians): 2 ranks (%s), %s round trips of 8 bytes\n" % (REPEATS, mpirun[0], TRIPS))
    print("%-30s %12s %10s %14s" % ("", "latency us", "vs native", "calls/s/rank"))
    for label, _ in configs:
        latency, rate = median[label]
        print("%-30s %12.3f %9.2fx %14.0f" % (label, latency, latency / anchor, rate))
    off, on = median["gdb-collector, mpitrace off"][0], median["gdb-collector, mpitrace on"][0]
    print("\nadded per traced MPI call: %.3f us (round trip on - off, over the 4 calls on it; target 0.3)"
          % ((on - off) * 2 / 4))
    print("latency, mpitrace on vs off: %+.1f %% (target +5 %%)" % (100 * (on / off - 1)))
    print("bytes per MPI event (iotrace + data.frameinfo of rank 0 / its calls): %.1f"
          % statistics.median(s for s in sizes if s == s) if any(s == s for s in sizes) else
          "bytes per MPI event: (no rank experiment)")
    print("\none rank to itself (MPI_Sendrecv, %d calls; each traced call is two events, a send and a receive):"
          % (int(TRIPS) * 5))
    print("%-30s %12s %16s" % ("", "ns/call", "rank CPU ns/call"))
    middle = {label: (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows))
              for label, rows in alone.items()}
    for label, _ in configs:
        print("%-30s %12.1f %16.1f" % ((label,) + middle[label]))
    off, on = middle["gdb-collector, mpitrace off"], middle["gdb-collector, mpitrace on"]
    print("added per traced call: %.3f us wall, %.3f us of the rank's CPU (target 0.3)"
          % ((on[0] - off[0]) / 1000, (on[1] - off[1]) / 1000))
    return 0


sys.exit(main())
