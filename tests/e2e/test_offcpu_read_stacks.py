"""Off-CPU stacks read from the waiting threads (issue 30): where the kernel
gives no sample at a context switch (an ordinary user at
kernel.perf_event_paranoid 2), the sampler process reads a thread that has
waited a few milliseconds from outside: its PC and SP, its stack, and each
frame's record where RBP is needed.  fp_waits.c makes that hard on
purpose (code with frame pointers, blocked below frames that never saved
RBP): a wait in a function that makes the system call itself, reached by a
tail call; and a read() into a buffer full of stale frame records that
chain as well as real ones.  Each wait is checked under its function and
main, as I/O (the raw system call's reason from its number: no glibc
name says it), with the program's own clock, and nowhere else (no stale
frame, no tail-calling frame).  Run as an ordinary user (the tests' root runs it as
nobody), at launch, in a descendant and after gdb -p; skipped where the kernel gives every
stack (paranoid 1 or less: nothing is read) or this user may not trace the
program (Yama)."""

import os
import re

from harness import (STATE_COLUMNS, attach_then_go, check, cleanup, finish, offcpu_read_note, offcpu_stacks_here,
                     perf_event_paranoid, program, run_gdb, shared_workdir, skip_part, skip_test, states_rows,
                     unprivileged_prefix, wait_closed, yama_ptrace_scope)

PROGRAM = program("fp_waits")
TICK = 0.010
COLUMNS = len(STATE_COLUMNS)
IO = STATE_COLUMNS.index("I/O")

prefix = unprivileged_prefix()
if prefix is None:
    skip_test("no way to run as an ordinary user here")
if offcpu_stacks_here(prefix, short_waits=True):
    skip_test("the kernel gives every wait's stack here (kernel.perf_event_paranoid is %d): nothing is read from "
              "outside" % perf_event_paranoid())
if not offcpu_stacks_here(prefix):
    skip_test("this user may not read the program's threads (kernel.yama.ptrace_scope %d)" % yama_ptrace_scope())


def check_waits(exp, out, label):
    m = re.search(r"leaf=([0-9.]+) buffer=([0-9.]+)", out)
    check(m is not None, "%s: the program ran and timed its waits" % label)
    if not m:
        return
    leaf, buffer = float(m.group(1)), float(m.group(2))
    rows, _ = states_rows(exp, prefix)
    io = lambda name: rows.get(name, [0] * COLUMNS)[IO]
    near = lambda value, truth: abs(value - truth) <= 0.1 * truth + 2 * TICK
    check(near(io("leaf_wait"), leaf),
          "%s: the wait in a function that makes the system call itself, reached by a tail call: %.3f s in I/O "
          "under leaf_wait (it waited %.3f s)" % (label, io("leaf_wait"), leaf))
    check(near(io("buffer_wait"), buffer) and near(io("read"), buffer),
          "%s: the read() into a buffer of stale frame records: %.3f s in I/O under buffer_wait, %.3f under read "
          "(it waited %.3f s)" % (label, io("buffer_wait"), io("read"), buffer))
    check(near(io("main"), leaf + buffer),
          "%s: both under main: %.3f s (%.3f s)" % (label, io("main"), leaf + buffer))
    check(io("deep") == 0 and io("tail_caller") == 0,
          "%s: no wait under a stale frame (deep: %.3f s) or the frame that tail-called (tail_caller: %.3f s)"
          % (label, io("deep"), io("tail_caller")))


work = shared_workdir()
out = run_gdb(["collector enable", "run"], [PROGRAM], work, prefix=prefix)
print(out)
check(offcpu_read_note() in out,
      "at launch: GDB says the stacks were read from the waiting threads")
check_waits(os.path.join(work, "test.1.er"), out, "at launch")

# In a descendant (a shell starts the program): its writer reads it too
# (where Yama's scope 1 lets only the launched process name us, not here).
if offcpu_stacks_here(prefix, attached=True):
    out = run_gdb(["collector enable", "run"], ["/bin/sh", "-c", '"$0"; true', PROGRAM], work, prefix=prefix)
    print(out)
    check_waits(os.path.join(work, "test.2.er", "_f1_x1.er"), out, "in a descendant")
else:
    skip_part("in a descendant as an ordinary user (kernel.yama.ptrace_scope %d: only the launched process names "
              "the sampler process its tracer)" % yama_ptrace_scope())

if offcpu_stacks_here(prefix, attached=True):
    target, _, _ = attach_then_go([PROGRAM], ["collector enable"], work, prefix=prefix)
    rc, rest = target.finish()
    print(rest)
    wait_closed(os.path.join(work, "test.3.er"))
    check(rc == 0, "after gdb -p: the program ended well")
    check_waits(os.path.join(work, "test.3.er"), rest, "after gdb -p")
else:
    skip_part("after gdb -p as an ordinary user (kernel.yama.ptrace_scope %d: the program cannot name the sampler "
              "process its tracer after the attach)" % yama_ptrace_scope())
cleanup(work)
finish()
