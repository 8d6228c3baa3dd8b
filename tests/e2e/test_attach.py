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
                     sampling_seconds, stop_attach_target, wait_closed, wait_for_data, workdir)

busy = sys.argv[1:] == ["busy"]
timer = sys.argv[1:] == ["timer"]
# Threads armed from outside get CPU-time timers aimed at them (SIGEV_THREAD_ID).
source = ["set environment GDBCOL_CLOCK_SOURCE=timer"] if timer else []
work = workdir()
# It runs until told to stop (SIGUSR1), once test.2.er holds enough: how
# long GDB's sessions take (load) changes nothing the test checks.
target = Background([program("attach_target"), "300"] + (["busy"] if busy else []), cwd=work)
first = attach_gdb(target.pid, source + ["collector enable", "detach"], cwd=work)
print(first)
check("Collector enabled in process %d: recording %s" % (target.pid, os.path.join(work, "test.1.er")) in first,
      "enable in the attached process starts test.1.er")
check("goes on recording in process %d" % target.pid in first, "detach says collection goes on")
enough = lambda summary, funcs: int(summary.get("ticks", 0)) >= 50 and funcs.get("late_compute", (0, 0))[1] > 0
check(wait_for_data(os.path.join(work, "test.1.er"), enough), "test.1.er: samples and a late thread's, while it runs")
second = attach_gdb(target.pid, source + ["collector status", "collector disable", "collector enable",
                                          "collector status", "detach"], cwd=work)
print(second)
check("Experiment %s is active in process %d" % (os.path.join(work, "test.1.er"), target.pid) in second,
      "a second GDB session's status reads the experiment the first one started, from the process")
check("experiment %s closed" % os.path.join(work, "test.1.er") in second,
      "a second GDB session closes the experiment the first one started")
check("recording %s" % os.path.join(work, "test.2.er") in second, "a second enable starts test.2.er")
# Half a second of samples and a thread born after the attach, then the end.
check(wait_for_data(os.path.join(work, "test.2.er"), enough), "test.2.er: samples and a late thread's, while it runs")
# The truth: each group's thread CPU since the runtime appeared (the first
# attach), which test.1.er and test.2.er share between them.
out, truth = stop_attach_target(target, busy)
wait_closed(os.path.join(work, "test.2.er"))
recorded = {}

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
    # Each worker sampled in each experiment (how the scheduler shares the
    # cores is not ours to check: the sums are compared with the truth below).
    check(compute > 0 and churn > 0, "%s: compute_loop (%.3f s) and churn_malloc (%.3f s) sampled" % (name, compute, churn))
    recorded["compute_loop"] = recorded.get("compute_loop", 0.0) + compute
    recorded["churn_malloc"] = recorded.get("churn_malloc", 0.0) + churn
    check(late > 0, "%s: threads created after the attach were sampled (late_compute %.3f s)" % (name, late))
    # 3 workers and at least one thread born after the attach.
    check(int(summary.get("threads", 0)) >= 4, "%s: %s threads sampled" % (name, summary.get("threads")))
    gfuncs, gtotal, graw = gprofng_functions(exp)
    print(graw)
    check(abs(gtotal - total) <= 0.02 * max(total, 1e-9), "%s: gprofng's total %.3f s matches the reader's %.3f s"
          % (name, gtotal, total))
    for fn in ("compute_loop", "churn_malloc", "late_compute", "malloc_worker", "late_worker"):
        check(fn in gfuncs, "%s: gprofng names %s" % (name, fn))
# What the two experiments recorded is what the threads used, within what
# sampling allows (and 20 ms for the moments between the runtime appearing
# and the sampling starting).
for fn, seconds in truth.items():
    bound = sampling_seconds(seconds, 0.01) + 0.02
    check(abs(recorded.get(fn, 0.0) - seconds) <= bound, "%s: %.3f s recorded of the %.3f s its threads used (+- %.2f)"
          % (fn, recorded.get(fn, 0.0), seconds, bound))

# GDB's own settings come back as the user had them: the signal table (the
# calls change every signal's stop/print for their duration), breakpoints;
# and the program's threads their registers (the calls' strings lie below
# the lending thread's stack pointer for the session).
snapshot = "python open(%r, 'a').write(gdb.execute('info signals', to_string=True) + " \
           "gdb.execute('info breakpoints', to_string=True) + " \
           "gdb.execute('thread apply all info registers rsp rbp rip', to_string=True) + '=====\\n')"
table = os.path.join(work, "gdb-state.txt")
# sleeper: its thread has room on its stack for the strings; in
# small_stack_sleeper the thread that lends itself has a 64 KiB stack, too
# short to hold them beside the calls' frames: they go into a mapped page.
for name, done in (("sleeper", "sleeper done"), ("small_stack_sleeper", "small stack done")):
    other = Background([program(name), "3"], cwd=work)
    third = attach_gdb(other.pid, ["handle SIGUSR2 nostop noprint", "break main", snapshot % table,
                                   "collector store experiment %s.er" % name, "collector enable", "collector disable",
                                   snapshot % table, "detach"], cwd=work)
    print(third)
    with open(table) as f:
        before, after = f.read().split("=====\n")[:2]
    check(before == after and "SIGUSR2" in before and "rsp" in before,
          "%s: enable/disable leave GDB's signal table, its breakpoints and the threads' registers as they were" % name)
    check("experiment %s closed" % os.path.join(work, name + ".er") in third, "%s: its experiment was recorded" % name)
    os.unlink(table)
    status, out = other.finish()
    check(status == 0 and done in out, "%s: ran to its end after the session (exit %d)" % (name, status))
cleanup(work)
finish()
