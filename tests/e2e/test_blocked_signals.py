"""Threads that block every signal, sampled from inside the program (what
a user gets where the kernel refuses perf events: issue 39).  The
collector's timer signal stays deliverable while the program sees the
masks and handlers it set (libcollector/interpose/signal_interpose.c).
Before, such threads kept the signal pending for their whole run: xz -T2
recorded 3 samples, 0.04 s of 11.4 s of CPU.

- blocked_signals (the in-process timer asked for): its workers' CPU is
  recorded within 5 % of what the program measured, and nothing is said
  to be unsampled.
- signal_user, with perf events refused (tests/programs/no_perf_events),
  as root and as an ordinary user: the program reads its own mask back as
  it set it, its handler for the collector's signal number runs for each
  of its three signals, in the thread that lets them in, a thread waiting
  in sigtimedwait on a full set gets the SIGUSR1 sent to it and never a
  sample's signal; its CPU recorded within 5 %; gprofng reads it.
- xz -T2 (a real program whose workers block every signal), perf events
  refused: recorded / xz's own user+sys time (GDB's `info proc stat` at its
  exit_group) >= 0.95.
- After an attach, threads that blocked the signal before the runtime came
  cannot be changed from outside: their unsampled CPU is said (GDB and
  log.xml), never a silent zero.
From outside (perf events allowed) no signal is involved: all recorded."""

import os
import random
import re
import shutil

from harness import (attach_then_go, check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb,
                     shared_workdir, true_cpu_seconds, unprivileged_prefix, workdir)

FILTER = [program("no_perf_events")]


def within(recorded, truth, share=0.05):
    return truth > 0 and (1 - share) * truth <= recorded <= (1 + share) * truth


work = workdir()
out = run_gdb(["collector store experiment timer.er", "collector enable", "run"], [program("blocked_signals"), "1.0"],
              cwd=work, env={"GDBCOL_CLOCK_SOURCE": "timer"})
print(out)
summary, _, raw = er_dump(os.path.join(work, "timer.er"))
recorded, truth = float(summary.get("cpu_seconds", 0)), true_cpu_seconds(out) or 0
check(within(recorded, truth) and "not sampled" not in out,
      "in-process timer: threads that block every signal are recorded (%.3f s of %.3f)" % (recorded, truth))

out = run_gdb(["collector store experiment process.er", "collector enable", "run"],
              [program("blocked_signals"), "1.0"], cwd=work)
print(out)
summary, _, _ = er_dump(os.path.join(work, "process.er"))
recorded, truth = float(summary.get("cpu_seconds", 0)), true_cpu_seconds(out) or 0
check(within(recorded, truth) and "not sampled" not in out,
      "from outside, blocked signals change nothing (%.3f s of %.3f)" % (recorded, truth))
cleanup(work)


def signal_user(label, prefix):
    work = shared_workdir()
    out = run_gdb(["collector enable", "run"], [program("signal_user"), "0.5"], cwd=work, prefix=list(prefix) + FILTER)
    print(out)
    check("mask_readback=ok" in out, "%s: a worker reads back the mask it inherited, the timer's number blocked" % label)
    check("handler_readback=ok" in out, "%s: the program reads back its own handler for the timer's number" % label)
    check("handler_calls=3 in_main=3" in out,
          "%s: its handler ran for each of its 3 signals, in the thread that lets them in" % label)
    check(re.search(r"waiter_got=%d stray=0\b" % 10, out) is not None,
          "%s: sigtimedwait on a full set gets the program's SIGUSR1, never a sample's signal" % label)
    exp = os.path.join(work, "test.1.er")
    summary, funcs, _ = er_dump(exp)
    recorded, truth = float(summary.get("cpu_seconds", 0)), true_cpu_seconds(out) or 0
    check(within(recorded, truth), "%s: its CPU recorded (%.3f s of %.3f)" % (label, recorded, truth))
    gfuncs, _, _ = gprofng_functions(exp)
    check("burn" in gfuncs, "%s: gprofng reads it and names burn" % label)
    cleanup(work)


def xz_two_threads(label, prefix):
    xz = shutil.which("xz")
    if xz is None:
        check(False, "xz is installed (.ci/install-deps: xz-utils)")
        return
    work = shared_workdir()
    data = os.path.join(work, "data.txt")
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    with open(data, "w") as f:
        f.write("".join(rng.choice(words) + (" " if i % 12 else "\n") for i in range(800000)))
    os.chmod(data, 0o666)
    out = run_gdb(["catch syscall exit_group", "collector enable", "run", "info proc stat", "continue"],
                  [xz, "-T2", "-3", "-k", "-f", data], cwd=work, prefix=list(prefix) + FILTER, timeout=300)
    print(out[-3000:])
    ticks = re.search(r"^utime: (\d+)\nstime: (\d+)", out, re.M)
    truth = (int(ticks.group(1)) + int(ticks.group(2))) / float(os.sysconf("SC_CLK_TCK")) if ticks else 0
    summary, _, _ = er_dump(os.path.join(work, "test.1.er"))
    recorded = float(summary.get("cpu_seconds", 0))
    check(truth > 0.5 and recorded >= 0.95 * truth and recorded <= 1.05 * truth + 0.02,
          "%s: xz -T2 recorded %.2f s of its own %.2f s of CPU (%.2f)" % (label, recorded, truth,
                                                                        recorded / truth if truth else 0))
    cleanup(work)


def attached_too_late(label, prefix):
    """Workers that blocked every signal before the attach: their CPU is
    said to be unsampled, with the cause."""
    work = shared_workdir()
    target, out, _ = attach_then_go([program("blocked_signals"), "1.0"], ["collector enable"], work,
                                    prefix=list(prefix) + FILTER)
    status, rest = target.finish()
    print(rest)
    summary, _, raw = er_dump(os.path.join(work, "test.1.er"))
    check(status == 0 and "blocked the collector's timer signal" in raw,
          "%s: after an attach, threads that blocked the signal before it are said unsampled in log.xml" % label)
    cleanup(work)


users = [("as this user", [])]
if os.geteuid() == 0 and unprivileged_prefix() is not None:
    users.append(("as an ordinary user", unprivileged_prefix()))
for label, prefix in users:
    signal_user(label, prefix)
    xz_two_threads(label, prefix)
    attached_too_late(label, prefix)
finish()
