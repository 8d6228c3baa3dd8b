"""Attach mode on a live multithreaded process: `gdb -p`, collector enable,
detach; collection goes on to the process's exit.  A second GDB session
adopts and closes that experiment and starts test.2.er in the same process.
Checked with the reader and gprofng: the workers' functions (compute, and
malloc/free churn) and the threads created after the attach are there, and
the program's output and exit status are what they are without GDB.
    test_attach.py [busy|timer]   busy: no thread sleeps (all in compute/malloc)
                                  timer: the POSIX-timer fallback source"""

import os
import sys

from harness import (Background, attach_gdb, check, cleanup, er_dump, finish, gprofng_functions, program,
                     workdir)

busy = sys.argv[1:] == ["busy"]
timer = sys.argv[1:] == ["timer"]
# Threads armed from outside get CPU-time timers aimed at them (SIGEV_THREAD_ID).
source = ["set environment GDBCOL_CLOCK_SOURCE=timer"] if timer else []
work = workdir()
target = Background([program("attach_target"), "6"] + (["busy"] if busy else []), cwd=work)
first = attach_gdb(target.pid, source + ["collector enable", "detach"], cwd=work)
print(first)
check("Collector enabled in process %d: recording %s" % (target.pid, os.path.join(work, "test.1.er")) in first,
      "enable in the attached process starts test.1.er")
check("goes on recording in process %d" % target.pid in first, "detach says collection goes on")
second = attach_gdb(target.pid, source + ["collector status", "collector disable", "collector enable",
                                          "collector status", "detach"], cwd=work)
print(second)
check("Experiment %s is active in process %d" % (os.path.join(work, "test.1.er"), target.pid) in second,
      "a second GDB session's status reads the experiment the first one started, from the process")
check("experiment %s closed" % os.path.join(work, "test.1.er") in second,
      "a second GDB session closes the experiment the first one started")
check("recording %s" % os.path.join(work, "test.2.er") in second, "a second enable starts test.2.er")
status, out = target.finish()
print(out)
check(status == 3, "the program's exit status is unchanged (%s)" % status)
check(out.strip().endswith("attach_target: finished, 3 workers, late threads started: yes"),
      "the program's output is unchanged")

for name, closer in (("test.1.er", "collector disable"), ("test.2.er", "exit")):
    exp = os.path.join(work, name)
    summary, funcs, raw = er_dump(exp)
    print(raw)
    check(summary.get("closed") == "yes", "%s: closed (by %s)" % (name, closer))
    check(any("started in a running process" in c for c in summary["comments"]),
          "%s: log.xml says it was started by attaching" % name)
    if name == "test.1.er":  # (test.2.er: the runtime was loaded already, its libraries stay listed)
        mapped = open(os.path.join(exp, "map.xml")).read()
        check("libcollector.so" in mapped and "libunwind" not in mapped and "libdw" not in mapped,
              "%s: the runtime's own libraries are not listed as the program's" % name)
    expected_source = "POSIX CPU-time timers" if timer else "sampler process"
    check(any(expected_source in c for c in summary["comments"]), "%s: the clock source was %s" % (name, expected_source))
    check(summary.get("missing_stacks") == "0" and summary.get("invalid_packets") == "0",
          "%s: every packet valid, every stack present" % name)
    total = float(summary.get("cpu_seconds", 0))
    compute = funcs.get("compute_loop", (0, 0))[1]
    churn = funcs.get("churn_malloc", (0, 0))[1]
    late = funcs.get("late_compute", (0, 0))[1]
    # 3 busy workers (4 when busy) share 2 cores: each about a third (a
    # quarter) of the time; the late threads compute a little each.
    check(total > 0 and compute / total > 0.15, "%s: compute_loop has %.0f%% of the time" % (name, 100 * compute / max(total, 1e-9)))
    check(total > 0 and churn / total > 0.30, "%s: churn_malloc (2 threads) has %.0f%%" % (name, 100 * churn / max(total, 1e-9)))
    check(late > 0, "%s: threads created after the attach were sampled (late_compute %.3f s)" % (name, late))
    # 3 workers and at least one thread born after the attach.
    check(int(summary.get("threads", 0)) >= 4, "%s: %s threads sampled" % (name, summary.get("threads")))
    gfuncs, gtotal, graw = gprofng_functions(exp)
    print(graw)
    check(abs(gtotal - total) <= 0.02 * max(total, 1e-9), "%s: gprofng's total %.3f s matches the reader's %.3f s"
          % (name, gtotal, total))
    for fn in ("compute_loop", "churn_malloc", "late_compute", "malloc_worker", "late_worker"):
        check(fn in gfuncs, "%s: gprofng names %s" % (name, fn))
# GDB's own settings come back as the user had them: the signal table (the
# calls change every signal's stop/print for their duration), breakpoints.
snapshot = "python open(%r, 'a').write(gdb.execute('info signals', to_string=True) + " \
           "gdb.execute('info breakpoints', to_string=True) + '=====\\n')"
table = os.path.join(work, "gdb-state.txt")
other = Background([program("sleeper"), "3"], cwd=work)
third = attach_gdb(other.pid, ["handle SIGUSR2 nostop noprint", "break main", snapshot % table,
                               "collector store experiment state.er", "collector enable", "collector disable",
                               snapshot % table, "detach"], cwd=work)
print(third)
with open(table) as f:
    before, after = f.read().split("=====\n")[:2]
check(before == after and "SIGUSR2" in before, "enable/disable leave GDB's signal table and breakpoints as they were")
os.unlink(table)
other.finish()
cleanup(work)
finish()
