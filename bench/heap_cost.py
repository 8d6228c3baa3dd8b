#!/usr/bin/env python3
"""Heap tracing: what it costs the program, side by side with gprofng
`collect -H on` and heaptrack, from one run of each per round (medians).

The program (bench/heap_cost.c) makes PAIRS malloc/free pairs from four
call sites at a stack depth of about 14, then leaks LEAKS blocks of 48
bytes from one function.  Per profiler:
  - ns per pair (wall) and the program thread's own CPU per pair (its cost
    apart from waiting for a consumer: a sampler process, heaptrack's
    interpreter), and per traced event (a pair is two events);
  - the slowdown against the untraced run;
  - bytes per event in what it wrote;
  - the leaks it found from the leaking function, against the truth.

    bench/heap_cost.py [BUILD_DIR] [REPEATS] [PAIRS]"""

import glob
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
PAIRS = int(sys.argv[3]) if len(sys.argv) > 3 else 2000000
LEAKS = 1000
PROGRAM = [os.path.join(BUILD, "bench", "heap_cost"), str(PAIRS), str(LEAKS)]
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
ER_DUMP = os.path.join(BUILD, "experiment", "er-dump")


def figures(out):
    wall = re.search(r"ns_per_pair=([0-9.]+)", out)
    cpu = re.search(r"thread_cpu_ns_per_pair=([0-9.]+)", out)
    return (float(wall.group(1)) if wall else float("nan"), float(cpu.group(1)) if cpu else float("nan"))


def run(cmd, work):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env(), stdin=subprocess.DEVNULL)


def collector(work, settings):
    for old in glob.glob(os.path.join(work, "test.*.er")):
        shutil.rmtree(old)
    out = run(["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB] + sum([["-ex", s] for s in settings], []) +
              ["-ex", "collector enable", "-ex", "run", "--args"] + PROGRAM, work).stdout
    exp = os.path.join(work, "test.1.er")
    if not os.path.exists(os.path.join(exp, "heaptrace")):
        return out, None, None
    dump = subprocess.run([ER_DUMP, exp], capture_output=True, text=True).stdout
    leak = re.search(r"^\d+ \d+ (\d+) \d+ leak$", dump, re.M)
    events = re.search(r"^heap_events: (\d+)", dump, re.M)
    size = sum(os.path.getsize(os.path.join(exp, f)) for f in ("heaptrace", "data.frameinfo"))
    return out, int(leak.group(1)) if leak else 0, size / int(events.group(1)) if events else None


def gprofng(work):
    exp = os.path.join(work, "g.er")
    shutil.rmtree(exp, ignore_errors=True)
    out = run(["gprofng", "collect", "app", "-p", "off", "-H", "on", "-o", exp] + PROGRAM, work).stdout
    text = subprocess.run(["gprofng", "display", "text", "-leaks", exp], capture_output=True, text=True).stdout
    leaks = sum(int(m.group(1)) for m in re.finditer(r"Instances = (\d+), Bytes Leaked = \d+\n\s+\S+ \+ \S+\n\s+leak ",
                                                   text))
    events = 2 * PAIRS + LEAKS
    size = sum(os.path.getsize(os.path.join(exp, f)) for f in ("heaptrace", "data.frameinfo")
               if os.path.exists(os.path.join(exp, f)))
    return out, leaks, size / events


def heaptrack(work):
    for old in glob.glob(os.path.join(work, "ht*")):
        os.remove(old)
    out = run(["heaptrack", "-o", os.path.join(work, "ht")] + PROGRAM, work).stdout
    files = glob.glob(os.path.join(work, "ht*"))
    if not files:
        return out, None, None
    text = subprocess.run(["heaptrack_print", "--print-leaks", "1", files[0]], capture_output=True, text=True).stdout
    # its leak list per function: "48.00K leaked over 1000 calls from" and, on the next line, the function
    lines = text.splitlines()
    leaks = sum(int(m.group(1)) for i, line in enumerate(lines[:-1])
                for m in [re.match(r"\S+ leaked over (\d+) calls from$", line)] if m and lines[i + 1].strip() == "leak")
    events = 2 * PAIRS + LEAKS
    return out, leaks, os.path.getsize(files[0]) / events


def main():
    work = tempfile.mkdtemp(prefix="gdbcol-bench-heap-")
    rows, found, sizes = {}, {}, {}
    for _ in range(REPEATS):
        outs = {"native": (run(PROGRAM, work).stdout, None, None),
                "gdb-collector, heaptrace off": collector(work, []),
                "gdb-collector, heaptrace on": collector(work, ["collector heaptrace on"]),
                "gprofng collect -H on": gprofng(work),
                "heaptrack": heaptrack(work)}
        for who, (out, leaks, per_event) in outs.items():
            rows.setdefault(who, []).append(figures(out))
            if leaks is not None:
                found[who] = leaks
            if per_event is not None:
                sizes[who] = per_event
    base_wall = statistics.median(w for w, _ in rows["native"])
    print("Heap tracing (%d rounds, medians): %d malloc/free pairs at a depth of about 14, then %d leaked blocks"
          % (REPEATS, PAIRS, LEAKS))
    print("\n%-30s %10s %10s %12s %12s %9s %10s %8s" % ("", "ns/pair", "cpu/pair", "ns/event", "cpu ns/event",
                                                       "slowdown", "B/event", "leaks"))
    for who, values in rows.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        traced = who not in ("native", "gdb-collector, heaptrace off")
        print("%-30s %10.1f %10.1f %12s %12s %8.1fx %10s %8s" % (
            who, wall, cpu,
            "%.1f" % ((wall - base_wall) / 2) if traced else "-",
            "%.1f" % ((cpu - base_wall) / 2) if traced else "-",
            wall / base_wall,
            "%.2f" % sizes[who] if who in sizes else "-",
            "%d/%d" % (found[who], LEAKS) if who in found else "-"))
    print("(ns/event: the added cost per traced call, wall or the program thread's own CPU; heaptrack's "
          "thread writes to a pipe\n its interpreter process reads, ours to a ring the sampler process reads)")
    shutil.rmtree(work, ignore_errors=True)


main()
