"""Deadlock detection (issue 29, `collector tha deadlock`): lock_orders.c
takes lock_a then lock_b in one thread and, after it ended, lock_b then
lock_a in another (a cycle that cannot deadlock in this run), lock_c
always alone, lock_d always before lock_a.  `collector report deadlocks`
finds exactly one potential deadlock, of lock_a and lock_b named as the
program's variables, with the two functions that took them and their
stacks, and no cycle with lock_c or lock_d; the experiment holds the three
lock orders; gprofng reads it (each order a synchronization event of no
length: Sync Wait Count 3, DTYPE filterable).  At launch as an ordinary
user, and after gdb -p (the locks taken after the attach).  With lock_b
in a heap block (lock_orders heap) and heaptrace on, the report names it
by the block and the stack that allocated it; without heaptrace, by its
address, saying how to get the stack.

A real deadlock (deadlock.c: two threads each hold one lock and wait for
the other's): under `gdb -batch` the program stops and GDB prints the
cycle (both threads, both locks by name, each thread's stack) instead of
hanging, and the script goes on; the same with GDB attached to a running
process; in a process GDB detached from, the deadlock is recorded and the
experiment closes when the process is killed (kill -9).  Each time
`collector report deadlocks` shows the deadlock with its threads and
locks."""

import os
import re
import signal
import time

from harness import (Background, attach_gdb, attach_then_go, check, check_gprofng_sync_events, cleanup, finish,
                     program, run_gdb, shared_workdir, unprivileged_prefix, wait_closed, workdir)

PROGRAM = program("lock_orders")


def check_report(report, label):
    cycles = re.findall(r"^Potential deadlock \d+: (\d+) locks", report, re.M)
    check(len(cycles) == 1 and cycles[0] == "2", "%s: exactly one potential deadlock, of two locks (%s)"
          % (label, cycles))
    check("mutex lock_a (lock_orders)" in report and "mutex lock_b (lock_orders)" in report and
          "lock_c" not in report and "lock_d" not in report,
          "%s: its locks named lock_a and lock_b; lock_c (alone) and lock_d (one order) in none" % label)
    check(re.search(r"took mutex lock_b .*\n.*holding mutex lock_a .*taken in take_a_then_b\n.*where: "
                    r"pthread_mutex_lock <- take_a_then_b <- start_thread", report) is not None and
          re.search(r"took mutex lock_a .*\n.*holding mutex lock_b .*taken in take_b_then_a\n.*where: "
                    r"pthread_mutex_lock <- take_b_then_a <- start_thread", report) is not None,
          "%s: each order with the function that held the first lock and the stack that took the second" % label)
    check("3 lock order(s)" in report, "%s: three lock orders (a-b, b-a, d-a)" % label)


prefix = unprivileged_prefix()
work = shared_workdir() if prefix else workdir()
out = run_gdb(["collector tha deadlock", "collector enable", "run", "collector report deadlocks"], [PROGRAM], work,
              prefix=prefix or ())
print(out)
check("counter 4000" in out and "3 lock orders" in out, "the program ran right; GDB's closing line counts 3 lock orders")
check_report(out, "at launch%s" % (" as an ordinary user" if prefix else ""))
check_gprofng_sync_events(os.path.join(work, "test.1.er"), 3, "pthread_mutex_lock", "DTYPE==0", "lock orders")

# A heap lock: named by the stack that allocated its block when heaptrace
# recorded it, else by its address with the advice to record it.
out = run_gdb(["collector tha deadlock", "collector heaptrace on", "collector enable", "run",
               "collector report deadlocks"], [PROGRAM, "heap"], work)
print(out)
heap_name = "mutex at 0x%s in a heap block of 64 bytes (+8) allocated in malloc <- make_lock_b <- main"
found = re.search(r"took mutex at 0x([0-9a-f]+) in a heap block", out)
check(found is not None and (heap_name % found.group(1)) in out and
      re.search(r"holding mutex at 0x%s in a heap block of 64 bytes \(\+8\) allocated in malloc <- make_lock_b"
                % (found.group(1) if found else "-"), out) is not None,
      "heap lock, with heaptrace: named by its block (64 bytes, +8) and the stack that allocated it")
out = run_gdb(["collector tha deadlock", "collector enable", "run", "collector report deadlocks"],
              [PROGRAM, "heap"], work)
print(out)
check(re.search(r"took mutex at 0x[0-9a-f]+ \(heap or stack\)", out) is not None and
      "record with collector heaptrace on as well to name a heap lock" in out,
      "heap lock, without heaptrace: its address, and how to get its allocating stack")

# After gdb -p: the program waits, GDB attaches and turns lock orders on,
# detaches, then the program takes its locks.
target, _, _ = attach_then_go([PROGRAM], ["collector tha deadlock", "collector enable"], work)
rc, rest = target.finish()
wait_closed(os.path.join(work, "test.4.er"))
report = run_gdb(["collector report %s deadlocks" % os.path.join(work, "test.4.er")], ["/bin/true"], work)
print(report)
check(rc == 0 and "counter 4000" in rest, "after the attach: the program ran right")
check_report(report, "after gdb -p")


def check_stopped_at_deadlock(out, label):
    check("collector: deadlock: 2 threads wait for each other's locks and will never go on" in out and
          re.search(r"waits for mutex lock_a \(0x[0-9a-f]+\), held by thread", out) is not None and
          re.search(r"waits for mutex lock_b \(0x[0-9a-f]+\), held by thread", out) is not None,
          "%s: GDB says the two threads wait for each other's locks, lock_a and lock_b by name" % label)
    check(re.search(r"in first \(.*deadlock\.c", out) is not None and re.search(r"in second \(.*deadlock\.c", out)
          is not None, "%s: and shows each thread's stack" % label)
    check("not deadlocked" not in out and "after-the-stop" in out,
          "%s: the program stopped there, and GDB went on with the script" % label)


def check_recorded_deadlock(experiment, label):
    report = run_gdb(["collector report %s deadlocks" % experiment], ["/bin/true"], work)
    print(report)
    check("Deadlock 1 (it happened" in report and report.count("waits for mutex lock_") == 2 and
          "holds mutex lock_a" in report and "holds mutex lock_b" in report,
          "%s: collector report deadlocks shows the deadlock, its two threads and locks" % label)


DEADLOCK = program("deadlock")
out = run_gdb(["collector tha deadlock", "collector enable", "run", "echo after-the-stop\\n",
               "collector report deadlocks", "kill"], [DEADLOCK], work, timeout=60)
print(out)
check_stopped_at_deadlock(out, "under gdb -batch")
# At the deadlock's stop the report has it (before: "no cycle", the
# threads' lanes not yet written), and no stray word of the breakpoint.
check("Deadlock 1 (it happened" in out.split("after-the-stop", 1)[-1],
      "under gdb -batch: collector report deadlocks at the stop shows the deadlock")
check("not defined" not in out, "under gdb -batch: no 'Function ... not defined' from the collector's breakpoint")
check_recorded_deadlock(os.path.join(work, "test.5.er"), "under gdb -batch")

# GDB attached to a running process, then continuing.
go = os.path.join(work, "go2")
target = Background([DEADLOCK, "wait", go], work)
out = attach_gdb(target.pid, ["collector tha deadlock", "collector enable", "shell touch %s" % go, "continue",
                              "echo after-the-stop\\n", "kill"], work, timeout=60)
print(out)
target.finish()
check_stopped_at_deadlock(out, "attached")
check_recorded_deadlock(os.path.join(work, "test.6.er"), "attached")

# Detached: recorded; the experiment closes when the process is killed.
target, _, _ = attach_then_go([DEADLOCK], ["collector tha deadlock", "collector enable"], work, "go3")
time.sleep(2.0)  # the watch looks every half second
os.kill(target.pid, signal.SIGKILL)
target.finish()
wait_closed(os.path.join(work, "test.7.er"))
check_recorded_deadlock(os.path.join(work, "test.7.er"), "detached, then killed")
cleanup(work)
finish()
