#!/usr/bin/env python3
"""I/O tracing: what it costs the program, side by side with gprofng
`collect -i on`, from one run of each per round (medians).

  - us per 64-byte write to /dev/null (one thread): native, gdb-collector
    with iotrace off and on, gprofng -i on.  Back to back (200 000 calls)
    the program waits for the sampler process whenever the trace ring is
    full, so the added cost is the sampler's rate; in bursts of 500 with
    pauses (10 000 calls) the ring drains between them, so it is what the
    program's own thread pays per call, and, apart, the thread's own CPU
    time per call (CLOCK_THREAD_CPUTIME_ID: without the time it waits
    while the sampler process runs on the same CPUs);
  - bytes per event in the experiment (iotrace packets + their share of
    data.frameinfo).

    bench/io_cost.py [BUILD_DIR] [REPEATS]"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from tracing_bench import env, print_bytes_per_event

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
PROGRAMS = {"back to back": [os.path.join(BUILD, "bench", "io_cost"), "write", "200000"],
            "in bursts": [os.path.join(BUILD, "bench", "io_cost"), "bursts", "10000"]}
THREAD_CPU = "in bursts, the program thread's own CPU time"
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")


def figure(out, name="us_per_call"):
    m = re.search(r"\b%s=([0-9.]+)" % name, out)
    return float(m.group(1)) if m else float("nan")


def run(cmd, work):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env(), stdin=subprocess.DEVNULL).stdout


def collector(work, settings, program):
    return run(["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB] + sum([["-ex", s] for s in settings], []) +
               ["-ex", "collector enable", "-ex", "run", "--args"] + program, work)


def gprofng(work, program):
    exp = os.path.join(work, "g.er")
    shutil.rmtree(exp, ignore_errors=True)
    return run(["gprofng", "collect", "app", "-p", "off", "-i", "on", "-o", exp] + program, work)


def main():
    work = tempfile.mkdtemp(prefix="gdbcol-bench-io-")
    rows = {}
    for _ in range(REPEATS):
        for shape, program in PROGRAMS.items():
            outs = {"native": run(program, work),
                    "gdb-collector, iotrace off": collector(work, [], program),
                    "gdb-collector, iotrace on": collector(work, ["collector iotrace on"], program),
                    "gprofng collect -i on": gprofng(work, program)}
            for who, out in outs.items():
                rows.setdefault((shape, who), []).append(figure(out))
                if shape == "in bursts":
                    rows.setdefault((THREAD_CPU, who), []).append(figure(out, "thread_cpu_us_per_call"))
    print("I/O tracing (%d rounds, medians): us per 64-byte write to /dev/null" % REPEATS)
    for shape in list(PROGRAMS) + [THREAD_CPU]:
        print("\n%s (%s):" % (shape, " ".join(PROGRAMS[shape if shape in PROGRAMS else "in bursts"][1:])))
        base = statistics.median(rows[(shape, "native")])
        for (s, who), values in rows.items():
            if s != shape:
                continue
            value = statistics.median(values)
            extra = "" if who == "native" else "   +%.3f us per call" % (value - base)
            print("  %-30s %8.3f%s" % (who, value, extra))
    print("(back to back, the program waits for the sampler process when the trace ring is full, so the figure is"
          "\n the sampler's rate; in bursts, the ring drains in the pauses: what the program's thread pays)")
    traced = [os.path.join(work, n) for n in os.listdir(work) if n.startswith("test.")]
    traced = sorted((e for e in traced if os.path.exists(os.path.join(e, "iotrace"))),
                    key=lambda e: os.path.getsize(os.path.join(e, "iotrace")))
    if traced:
        with open(os.path.join(traced[-1], "log.xml")) as f:
            m = re.search(r"Tracing: (\d+) event\(s\) lost to a full trace ring", f.read())
        print("\nlast traced run: %s event(s) lost to a full trace ring" % (m.group(1) if m else "?"))
    print_bytes_per_event(traced[-1] if traced else None, os.path.join(work, "g.er"), "iotrace",
                          "e.ioreadcnt:e.iowritecnt:e.ioothercnt:e.ioerrorcnt")
    shutil.rmtree(work, ignore_errors=True)


main()
