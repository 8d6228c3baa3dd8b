#!/usr/bin/env python3
"""Descendant processes: a compiler run recorded by gdb-collector (under
GDB, every descendant a sub-experiment) and by `perf record` (which follows
children), side by side from one run of each per round.

Printed (medians of REPEATS rounds): recorded/true CPU of the whole process
tree (true: the tree's own RUSAGE_CHILDREN, reported by the founder,
tests/programs/descendants `run`), the share in cc1, and the wall time
with profiling over without.  Then a fork storm (2000 fork()s of children
that exit at once, `descendants forks 2000 0`): the wall time each fork
adds, under GDB alone, gdb-collector (to GDB's return, and to the end of
the last collector process) and perf record, over the plain run.

    bench/descendants.py [BUILD_DIR] [REPEATS]"""

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
RUNNER = os.path.join(BUILD, "tests", "descendants")
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
PERIOD_NS = 10007000


def env():
    return {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}


def write_source(path):
    with open(path, "w") as f:
        f.write("int f(int n){int s=0;for(int i=0;i<n;i++)s+=i*i;return s;}\n")
        for i in range(900):
            f.write("int g%d(int x){int a[16];for(int i=0;i<16;i++)a[i]=x*i+%d;return f(a[x&15])+a[%d];}\n"
                    % (i, i, i % 16))


def timed(cmd, cwd):
    start = time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env()).stdout
    return time.monotonic() - start, out


def tree_cpu(out):
    return float(re.search(r"tree_cpu=([0-9.]+)", out).group(1))


def gprofng_total(exp):
    out = subprocess.run(["gprofng", "display", "text", "-functions", exp], capture_output=True, text=True).stdout
    m = re.search(r"^\s*([0-9.]+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+<Total>", out, re.M)
    return float(m.group(1)) if m else 0.0


def cc1_seconds(exp):
    """What the experiments of cc1 hold: those whose start, in their
    parent's log, names cc1 (exec_start "cc1" where gcc 12 forks and execs
    it, desc_start with cc1's path where gcc 14 spawns it)."""
    total = 0.0
    for root in [exp] + [os.path.join(exp, n) for n in os.listdir(exp) if n.endswith(".er")]:
        with open(os.path.join(root, "log.xml")) as f:
            for m in re.finditer(r'kind="(?:exec_start|desc_start)"[^>]*lineage="([^"]+)"[^>]*msg="([^"]*)"', f.read()):
                if os.path.basename(m.group(2).split(" ")[0]) == "cc1":
                    total += gprofng_total(os.path.join(exp, m.group(1) + ".er"))
    return total


def main():
    tmp = tempfile.mkdtemp(prefix="gdbcol-bench-")
    source = os.path.join(tmp, "big.c")
    write_source(source)
    compile_cmd = [RUNNER, "run", "gcc", "-O2", "-c", "-o", os.path.join(tmp, "big.o"), source]
    rows = {"gdb-collector": [], "perf": []}
    walls = {"none": [], "gdb": [], "gdb-collector": [], "perf": []}
    for _ in range(REPEATS):
        wall, _ = timed(compile_cmd, tmp)
        walls["none"].append(wall)
        wall, _ = timed(["gdb", "-nx", "-batch", "-ex", "run", "--args"] + compile_cmd, tmp)
        walls["gdb"].append(wall)
        shutil.rmtree(os.path.join(tmp, "test.1.er"), ignore_errors=True)
        wall, out = timed(["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector enable", "-ex", "run",
                           "--args"] + compile_cmd, tmp)
        walls["gdb-collector"].append(wall)
        exp = os.path.join(tmp, "test.1.er")
        true_cpu = tree_cpu(out)
        rows["gdb-collector"].append((gprofng_total(exp) / true_cpu, cc1_seconds(exp) / true_cpu))
        wall, out = timed(["perf", "record", "-q", "-e", "task-clock", "-c", str(PERIOD_NS), "-o",
                           os.path.join(tmp, "p.data")] + compile_cmd, tmp)
        walls["perf"].append(wall)
        true_cpu = tree_cpu(out)
        comms = subprocess.run(["perf", "script", "-i", os.path.join(tmp, "p.data"), "-F", "comm"],
                               capture_output=True, text=True).stdout.split()
        samples = len(comms) * PERIOD_NS / 1e9
        rows["perf"].append((samples / true_cpu, comms.count("cc1") * PERIOD_NS / 1e9 / true_cpu))
    med = statistics.median
    print("gcc -O2 -c of a generated file (%d rounds, medians), 10 ms" % REPEATS)
    print("%-14s %16s %16s %14s" % ("profiler", "tree rec/true", "cc1 / true", "wall / plain"))
    base = med(walls["none"])
    for name in ("gdb-collector", "perf"):
        print("%-14s %16.3f %16.3f %14.3f" % (name, med(r[0] for r in rows[name]), med(r[1] for r in rows[name]),
                                               med(walls[name]) / base))
    print("%-14s %16s %16s %14.3f" % ("gdb, no collector", "-", "-", med(walls["gdb"]) / base))
    fork_storm(tmp)
    shutil.rmtree(tmp, ignore_errors=True)


STORM = 2000


def collector_alive(args):
    """Processes of the sampler whose command line ends with ARGS."""
    alive = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = [a for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        alive += bool(argv) and argv[0].endswith(b"gdbcol-sampler") and argv[-len(args):] == [a.encode() for a in args]
    return alive


def fork_storm(tmp):
    args = ["forks", str(STORM), "0"]
    storm = [RUNNER] + args
    walls = {name: [] for name in ("none", "gdb", "gdb-collector", "gdb-collector, all ended", "perf")}
    for _ in range(REPEATS):
        walls["none"].append(timed(storm, tmp)[0])
        walls["gdb"].append(timed(["gdb", "-nx", "-batch", "-ex", "run", "--args"] + storm, tmp)[0])
        shutil.rmtree(os.path.join(tmp, "test.1.er"), ignore_errors=True)
        start = time.monotonic()
        wall, _ = timed(["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector enable", "-ex", "run",
                         "--args"] + storm, tmp)
        walls["gdb-collector"].append(wall)
        while collector_alive(args) and time.monotonic() - start < 120:
            time.sleep(0.05)
        walls["gdb-collector, all ended"].append(time.monotonic() - start)
        walls["perf"].append(timed(["perf", "record", "-q", "-e", "task-clock", "-c", str(PERIOD_NS), "-o",
                                    os.path.join(tmp, "p.data")] + storm, tmp)[0])
    med = statistics.median
    base = med(walls["none"])
    print("\nfork storm: %d forks of children that exit at once (%d rounds, medians)" % (STORM, REPEATS))
    print("%-30s %10s %16s" % ("", "wall s", "us added a fork"))
    for name, values in walls.items():
        print("%-30s %10.3f %16s" % (name, med(values), "-" if name == "none" else
                                     "%.1f" % ((med(values) - base) / STORM * 1e6)))


if __name__ == "__main__":
    main()
