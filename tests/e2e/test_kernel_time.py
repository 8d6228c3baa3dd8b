"""CPU time the program spends in the kernel (system calls): kernel_time
takes turns of 20 ms between reading /dev/zero (nearly all system time)
and computing, and measures each with its thread's CPU clock.  Where the
kernel gives samples in kernel mode (root, kernel.perf_event_paranoid 1 or
less, or the program's own CPU-time timers where perf events are refused:
their signal comes as the thread returns to its code), each function's
time is recorded where it was spent, in gprofng and our reader.  Where it
samples user mode only (an ordinary user at Debian's paranoid 2), the
kernel drops those samples: the tails put their periods on the thread's
next sample, in its own code, so the total stays right and the place is
not; GDB says how much ran in the kernel and how to get it placed (an
MPI rank's spin in sched_yield inside MPI_Barrier: a third of it recorded
in MPI), and log.xml counts those periods."""

import os
import re

from harness import (boundary_seconds, check, cleanup, er_dump, finish, gprofng_functions, perf_event_paranoid,
                     perf_events_refused, program, run_gdb, sampled_every_s, shared_workdir, skip_part,
                     unprivileged_prefix)

SECONDS = 2.0
TURN = 0.020


def run(label, prefix=()):
    work = shared_workdir()
    out = run_gdb(["collector enable", "run"], [program("kernel_time"), str(SECONDS)], cwd=work, prefix=prefix)
    print(out)
    m = re.search(r"syscalls_cpu=([0-9.]+) own_cpu=([0-9.]+)", out)
    if not check(m is not None, "%s: the program ran and measured its two functions" % label):
        return
    truth = {"in_system_calls": float(m.group(1)), "in_own_code": float(m.group(2))}
    exp = os.path.join(work, "test.1.er")
    summary, ours, raw = er_dump(exp)
    funcs, total, _ = gprofng_functions(exp)
    every = sampled_every_s(summary, 0.01)
    # (the total: each thread's CPU time is accounted whole, its tail included)
    check(abs(total - sum(truth.values())) <= 2 * every + 0.02,
          "%s: gprofng's total %.3f s of the %.3f s measured" % (label, total, sum(truth.values())))
    user_mode_only = any("user mode only" in c for c in summary["comments"])
    said = re.search(r"(\d+) % of the CPU time \(([0-9.]+) s\) ran in the kernel \(system calls, page faults\), which "
                     r"it samples only with kernel.perf_event_paranoid 1 or less, or CAP_PERFMON: recorded where each "
                     r"thread next ran its own code", " ".join(out.split()))
    counted = [c for c in summary["comments"] if c.startswith("Kernel time: ")]
    if user_mode_only:
        # (of the reading's time most is the kernel's; the periods a
        # thread's end carries are its tail's, not counted there)
        check(said is not None and 0.3 * truth["in_system_calls"] <= float(said.group(2)) <=
              truth["in_system_calls"] + 2 * every,
              "%s: GDB says how much ran in the kernel, placed where the thread next ran its code (%s)"
              % (label, said and said.group(0)))
        check(len(counted) == 1, "%s: log.xml counts the kernel's periods (%s)" % (label, counted))
        skip_part("%s: each function's time in system calls: the kernel samples user mode only here "
                  "(kernel.perf_event_paranoid %d, not root), said by GDB" % (label, perf_event_paranoid()))
        return
    check(said is None and not counted, "%s: nothing said of kernel time the kernel sampled" % label)
    bound = boundary_seconds(int(sum(truth.values()) / TURN), every)
    for name, seconds in truth.items():
        for who, table in (("gprofng", funcs), ("our reader", ours)):
            got = next((v[1] for k, v in table.items() if k.split(".")[0] == name), 0)
            check(abs(got - seconds) <= bound, "%s, %s: %s %.3f s of the %.3f s measured (bound %.3f)"
                  % (label, who, name, got, seconds, bound))
    cleanup(work)


run("as this user")
prefix = unprivileged_prefix()
if prefix is not None and prefix != []:
    run("as nobody", prefix)
elif prefix == []:
    skip_part("the ordinary user's run: the tests run as one already")
finish()
