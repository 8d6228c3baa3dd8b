#!/usr/bin/env python3
"""Off-CPU time (`collector profile offcpu on`): what it costs a program
that switches as fast as it can, side by side with the program alone,
under GDB alone, with clock profiling alone, with off-CPU time as an
ordinary user where the bench runs as root (at perf_event_paranoid 2 the
kernel gives such a user no sample at a switch: waits are read from
outside instead), and with perf's scheduler recording (`perf sched
record`, and `perf record --off-cpu` where this perf has it), from one
run of each per round (medians).

  - us per round trip of bench/pingpong.c (two threads handing a byte
    over two pipes: each hand-off blocks a thread in read());
  - context switches per second (the program's own, from its threads'
    /proc counts: voluntary + involuntary);
  - bytes written per context switch (the experiment's profile +
    data.frameinfo; perf.data) and what was lost.

    bench/offcpu_cost.py [BUILD_DIR] [REPEATS] [ROUNDS]"""

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
ROUNDS = sys.argv[3] if len(sys.argv) > 3 else "100000"
PROGRAM = os.path.join(BUILD, "bench", "pingpong")
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")


def round_trip(out):
    m = re.search(r"us_per_round_trip=([0-9.]+)", out)
    return float(m.group(1)) if m else float("nan")


def run(cmd, work):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env(), stdin=subprocess.DEVNULL)


# Root's runs as an ordinary user too (nobody), where setpriv is here.
AS_NOBODY = (["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
             if os.geteuid() == 0 and shutil.which("setpriv") else None)


def gdb(settings, work, collect=True, prefix=()):
    cmd = list(prefix) + ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB] + sum([["-ex", s] for s in settings], [])
    if collect:
        cmd += ["-ex", "collector enable"]
    cmd += ["-ex", "run", "--args", PROGRAM, ROUNDS]
    result = run(cmd, work)
    return result.stdout + result.stderr


def experiment_bytes(work):
    exps = sorted(glob.glob(os.path.join(work, "test.*.er")), key=os.path.getmtime)
    if not exps:
        return 0, ""
    exp = exps[-1]
    size = sum(os.path.getsize(os.path.join(exp, f)) for f in ("profile", "data.frameinfo")
               if os.path.exists(os.path.join(exp, f)))
    log = open(os.path.join(exp, "log.xml")).read()
    return size, log


def main():
    if not os.path.exists(PROGRAM):
        sys.exit("bench/offcpu_cost.py: build first (%s missing)" % PROGRAM)
    perf = shutil.which("perf")
    rows = {}
    notes = {}
    with tempfile.TemporaryDirectory(prefix="offcpu-cost-") as work:
        alone = run([PROGRAM, ROUNDS], work).stdout
        switches = None
        # The switches the program makes: from a run under perf stat when
        # it can count them, else two per round trip (the least).
        if perf:
            stat = run([perf, "stat", "-x,", "-e", "context-switches", PROGRAM, ROUNDS], work)
            m = re.search(r"^(\d+),,context-switches", stat.stderr, re.M)
            switches = int(m.group(1)) if m else None
        if switches is None:
            switches = 2 * int(ROUNDS)
            notes["switches"] = "counted as two per round trip (perf stat could not count them)"
        for _ in range(REPEATS):
            rows.setdefault("program alone", []).append(round_trip(run([PROGRAM, ROUNDS], work).stdout))
            rows.setdefault("under GDB, no collector", []).append(round_trip(gdb([], work, collect=False)))
            rows.setdefault("gdb-collector clock profiling", []).append(
                round_trip(gdb(["collector profile offcpu off"], work)))  # off-CPU time is on by default
            out = gdb(["collector profile offcpu on"], work)
            rows.setdefault("gdb-collector clock + offcpu", []).append(round_trip(out))
            size, log = experiment_bytes(work)
            notes["ours"] = (size, log, out)
            if AS_NOBODY:
                os.chmod(work, 0o777)
                rows.setdefault("gdb-collector clock + offcpu, nobody", []).append(
                    round_trip(gdb(["collector profile offcpu on"], work, prefix=AS_NOBODY)))
            if perf:
                data = os.path.join(work, "perf.data")
                r = run([perf, "sched", "record", "-o", data, PROGRAM, ROUNDS], work)
                if r.returncode == 0:
                    rows.setdefault("perf sched record", []).append(round_trip(r.stdout))
                    notes["perf sched"] = os.path.getsize(data)
                else:
                    notes["perf sched"] = (r.stderr.strip().splitlines() or ["failed"])[-1]
                r = run([perf, "record", "--off-cpu", "-o", data, PROGRAM, ROUNDS], work)
                if r.returncode == 0:
                    rows.setdefault("perf record --off-cpu", []).append(round_trip(r.stdout))
                    notes["perf off-cpu"] = os.path.getsize(data)
                else:
                    notes["perf off-cpu"] = (r.stderr.strip().splitlines() or ["failed"])[-1]
    base = statistics.median(rows["program alone"])
    seconds = base * int(ROUNDS) / 1e6
    print("pingpong %s round trips: %d context switches (%.0f per second alone)%s" % (
        ROUNDS, switches, switches / seconds if seconds else 0, "; " + notes["switches"] if "switches" in notes else ""))
    print("%-38s %14s %10s" % ("", "us/round trip", "x alone"))
    for name, values in rows.items():
        med = statistics.median(values)
        print("%-38s %14.2f %10.3f   (runs: %s)" % (name, med, med / base, ", ".join("%.2f" % v for v in values)))
    size, log, out = notes["ours"]
    periods = re.search(r"Off-CPU time \(numstates 10\): (\d+) period", log)
    lost = re.search(r"closed \(.*?(\d+) lost\)", out)
    print("gdb-collector offcpu: %.2f bytes per context switch (%d bytes; %s off-CPU periods recorded; %s "
          "record(s) lost by the kernel)" % (size / switches, size, periods.group(1) if periods else "?",
                                             lost.group(1) if lost else "?"))
    for key in ("perf sched", "perf off-cpu"):
        if key in notes:
            v = notes[key]
            print("%-21s %s" % (key + ":", "%.2f bytes per context switch" % (v / switches) if isinstance(v, int)
                                else "not available here: " + v))


if __name__ == "__main__":
    main()
