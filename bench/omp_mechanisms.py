#!/usr/bin/env python3
"""OpenMP (issue 28): what each candidate way of knowing a thread's OpenMP
state would add to a parallel region, a barrier and a critical section,
side by side with the program alone (the anchor) and with today's clock
profiling under GDB, from one run of each per round (medians of REPEATS).

The program is bench/omp_epcc.c (EPCC-style); the candidates are LD_PRELOAD
shims built from bench/omp_mechanisms.c (PASS, TRAMP, STAMPS, EVENT: see
there).  Target (issue 28): at most 5 % added to a region's cost at 10 ms
sampling.

    bench/omp_mechanisms.py [BUILD_DIR] [REPEATS] [N]"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
N = sys.argv[3] if len(sys.argv) > 3 else "200000"
HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
VARIANTS = ("PASS", "TRAMP", "STAMPS", "EVENT")
CONSTRUCTS = ("parallel_us", "barrier_us", "critical_us")


def build(work):
    program = os.path.join(work, "omp_epcc")
    subprocess.run(["gcc", "-O2", "-fopenmp", "-o", program, os.path.join(HERE, "omp_epcc.c")], check=True)
    shims = {}
    for variant in VARIANTS:
        shims[variant] = os.path.join(work, "shim_%s.so" % variant.lower())
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-D" + variant, "-o", shims[variant],
                        os.path.join(HERE, "omp_mechanisms.c"), "-ldl"], check=True)
    return program, shims


def figures(text):
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\w+_us) ([0-9.]+)$", text, re.M)}


def run_alone(program, preload=None):
    env = dict(os.environ)
    if preload:
        env["LD_PRELOAD"] = preload
    return figures(subprocess.run([program, N], capture_output=True, text=True, env=env, timeout=600).stdout)


def run_profiled(program, work, commands=("collector enable", "run")):
    """Under GDB (which turns address randomization off: the program's
    layout differs from a run alone), with COMMANDS."""
    cmd = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB]
    for c in commands:
        cmd += ["-ex", c]
    out = subprocess.run(cmd + ["--args", program, N], capture_output=True, text=True, cwd=work, timeout=600)
    for entry in os.listdir(work):
        if entry.endswith(".er"):
            shutil.rmtree(os.path.join(work, entry), ignore_errors=True)
    return figures(out.stdout + out.stderr)


def main():
    if shutil.which("gcc") is None:
        sys.exit("omp_mechanisms: gcc is needed")
    work = tempfile.mkdtemp(prefix="gdbcol-omp-bench-")
    try:
        program, shims = build(work)
        configs = [("alone (anchor)", lambda: run_alone(program))]
        configs += [("shim %s" % v, (lambda v=v: run_alone(program, shims[v]))) for v in VARIANTS]
        if os.path.exists(COLLECTOR_GDB):
            configs.append(("under GDB, no collector", lambda: run_profiled(program, work, ("run",))))
            configs.append(("clock profiling + OpenMP states, 10 ms", lambda: run_profiled(program, work)))
        results = {name: {c: [] for c in CONSTRUCTS} for name, _ in configs}
        for _ in range(REPEATS):  # interleaved, so that the machine's drift touches each alike
            for name, run in configs:
                got = run()
                for c in CONSTRUCTS:
                    if c in got:
                        results[name][c].append(got[c])
        anchor = {c: statistics.median(results[configs[0][0]][c]) for c in CONSTRUCTS}
        print("OMP_NUM_THREADS=%s, %s repetitions, medians of %d runs (microseconds; ratio to the anchor)"
              % (os.environ.get("OMP_NUM_THREADS", "all CPUs"), N, REPEATS))
        print("%-34s %18s %18s %18s" % ("configuration", "parallel region", "barrier", "critical"))
        for name, _ in configs:
            cells = []
            for c in CONSTRUCTS:
                values = results[name][c]
                if not values:
                    cells.append("%18s" % "-")
                    continue
                m = statistics.median(values)
                cells.append("%9.4f (%5.3fx)" % (m, m / anchor[c] if anchor[c] else float("nan")))
            print("%-34s %s" % (name, " ".join(cells)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
