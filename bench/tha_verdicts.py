#!/usr/bin/env python3
"""Thread Analyzer (issue 29): our verdicts beside Helgrind's on the same
programs, and what each costs, from one run each.

  - tests/programs/lock_orders.c: one lock-order inversion that does not
    deadlock in the run (lock_a/lock_b), a lock always alone, a lock always
    taken first.  Ours: `collector tha deadlock` + `collector report
    deadlocks`; Helgrind: its "lock order ... violated" reports.
  - tests/programs/race_counter.c: a racy counter and a locked one.  Ours:
    built with -fsanitize=thread, `collector tha race` + `collector report
    races`; Helgrind: the plain build, its "Possible data race" reports
    and the data symbols they name.
Wall time of each run beside the program alone.

    bench/tha_verdicts.py [BUILD_DIR]"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(os.path.dirname(HERE), "tests", "programs")
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")


def run(cmd, work, env=None):
    full = dict(os.environ)
    full.update(env or {})
    t0 = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=full, stdin=subprocess.DEVNULL,
                         timeout=600)
    return out.stdout + out.stderr, time.monotonic() - t0


def ours(program, work, setting, view, env=None):
    cmd = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector tha " + setting, "-ex",
           "collector enable", "-ex", "run", "-ex", "collector report " + view, "--args", program]
    return run(cmd, work, env)


def main():
    if shutil.which("valgrind") is None:
        sys.exit("tha_verdicts: valgrind is needed (bench/install-deps)")
    work = tempfile.mkdtemp(prefix="gdbcol-tha-bench-")
    try:
        def build(name, source, *flags):
            path = os.path.join(work, name)
            subprocess.run(["gcc", "-O1", "-g"] + list(flags) + ["-o", path, os.path.join(PROGRAMS, source),
                                                                "-lpthread"], check=True)
            return path
        orders = build("lock_orders", "lock_orders.c")
        plain = build("race_plain", "race_counter.c")
        tsan = build("race_tsan", "race_counter.c", "-fsanitize=thread")
        print("%-44s %-52s %8s" % ("program, tool", "verdict", "wall s"))
        _, alone = run([orders], work)
        print("%-44s %-52s %8.2f" % ("lock_orders alone", "-", alone))
        out, t = ours(orders, work, "deadlock", "deadlocks")
        cycles = re.findall(r"^Potential deadlock \d+: (\d+) locks", out, re.M)
        named = sorted(set(re.findall(r"mutex (lock_[a-d]) ", out)))
        print("%-44s %-52s %8.2f" % ("lock_orders, gdb-collector tha deadlock",
                                     "%d potential deadlock(s), locks %s" % (len(cycles), ",".join(named)), t))
        out, t = run(["valgrind", "--tool=helgrind", orders], work)
        violations = re.findall(r'lock order "(0x[0-9A-F]+) before (0x[0-9A-F]+)" violated', out)
        print("%-44s %-52s %8.2f" % ("lock_orders, valgrind --tool=helgrind",
                                     "%d lock-order violation(s) (%s)" % (len(set(violations)), "; ".join(
                                         "%s before %s" % v for v in sorted(set(violations)))), t))
        _, alone = run([plain], work)
        print("%-44s %-52s %8.2f" % ("race_counter alone", "-", alone))
        _, alone = run([tsan], work, {"TSAN_OPTIONS": "exitcode=0"})
        print("%-44s %-52s %8.2f" % ("race_counter -fsanitize=thread alone", "-", alone))
        out, t = ours(tsan, work, "race", "races", {"TSAN_OPTIONS": "exitcode=0"})
        places = re.findall(r"^Race \d+ at (\S+) ", out, re.M)
        print("%-44s %-52s %8.2f" % ("race_counter, gdb-collector tha race (TSan)",
                                     "%d race(s) at %s" % (len(places), ",".join(sorted(set(places)))), t))
        out, t = run(["valgrind", "--tool=helgrind", plain], work)
        races = re.findall(r"Possible data race", out)
        symbols = sorted(set(re.findall(r'inside data symbol "(\w+)"', out)))
        print("%-44s %-52s %8.2f" % ("race_counter, valgrind --tool=helgrind",
                                     "%d report(s) at %s" % (len(races), ",".join(symbols)), t))
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
