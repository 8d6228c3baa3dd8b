"""Where the host steals, perf's samples are held to each thread's own CPU
clock (sampler/host_steal.c); a sample that would take the thread beyond
it is left out.  That must never leave out a sample the thread did run:
its first version did (6 of 100 of a daemon's samples, a base read late;
130 of 256 threads' 1 ms samples as an ordinary user, a slack below
schedstat's tick lag), found only in CI runs where the host happened to
steal.  GDBCOL_STEAL_CHECK=1 holds every sample so, steal or not: the
recorded CPU must still be the threads' own, at 1 ms with 256 threads, in
a daemon's writer (a descendant), and as an ordinary user."""

import os
import re
import time

from harness import (check, cleanup, er_dump, finish, gprofng_functions, perf_events_refused, private_runtime_dir,
                     program, run_gdb, shared_workdir, skip_rest, unprivileged_prefix, workdir)

if perf_events_refused():
    skip_rest("the budget holds perf's samples; where perf events are refused the threads' own CPU-time timers "
              "sample them, which leave steal out already")

CHECK = "set environment GDBCOL_STEAL_CHECK=1"
MIX = program("thread_mix")


def check_held(summary, label):
    """The log says the budget judged the samples (it really ran)."""
    comments = " | ".join(summary["comments"])
    m = re.search(r"Steal check: .*?(\d+) read\(s\) of those clocks, (\d+) sample\(s\) left out", comments)
    check(m is not None and int(m.group(1)) > 0, "%s: every sample held to its thread's clock (%s)"
          % (label, m.group(0) if m else comments[-200:]))


def check_threads(work, out, label):
    """thread_mix's long threads and its short ones: their own CPU recorded."""
    m = re.search(r"short_cpu=([0-9.]+) long_cpu=([0-9.]+)", out)
    check(m is not None, "%s: the program printed its truth" % label)
    summary, _, _ = er_dump(os.path.join(work, "test.1.er"))
    check_held(summary, label)
    funcs, _, raw = gprofng_functions(os.path.join(work, "test.1.er"))
    if m is None:
        return
    truth = float(m.group(1)) + float(m.group(2))
    got = funcs.get("short_thread", (0, 0))[1] + funcs.get("long_thread", (0, 0))[1]
    check(0.95 * truth <= got <= 1.05 * truth, "%s: %.3f s of the threads' %.3f s recorded" % (label, got, truth))


# 1 ms, two long threads beside 256 short ones.
work = workdir()
ARGS = [MIX, "0", "1", "0", "256", "0.01"]
out = run_gdb([CHECK, "collector profile timer hi", "collector enable", "run"], ARGS, cwd=work)
print(out)
check_threads(work, out, "1 ms, 256 threads")
cleanup(work)

prefix = unprivileged_prefix()
if prefix:
    work = shared_workdir()
    out = run_gdb([CHECK, "collector profile timer hi", "collector enable", "run"], ARGS, cwd=work, prefix=prefix)
    print(out)
    check_threads(work, out, "ordinary user, 1 ms, 256 threads")
    cleanup(work)
# Last: its runtime directory stays this process's from here on.
# A daemon's grandchild: its samples go to its own writer process.
work = workdir()
truth_file = os.path.join(work, "daemon.truth")
RUNTIME = private_runtime_dir(work)
out = run_gdb([CHECK, "collector enable", "run"], [program("daemonize"), truth_file, "1.0", "leave"], cwd=work)
print(out)
deadline = time.monotonic() + 30
while time.monotonic() < deadline and os.listdir(RUNTIME):
    time.sleep(0.1)
daemon_cpu = float(re.search(r"daemon_cpu=([0-9.]+)", open(truth_file).read()).group(1)) \
    if os.path.exists(truth_file) else 0
summary, _, _ = er_dump(os.path.join(work, "test.1.er", "_f1_f1.er"))
check_held(summary, "daemon")
recorded = float(summary.get("cpu_seconds", 0))
check(daemon_cpu > 0 and 0.95 * daemon_cpu <= recorded <= 1.05 * daemon_cpu,
      "daemon: %.3f s recorded of its %.3f s" % (recorded, daemon_cpu))
cleanup(work)

finish()
