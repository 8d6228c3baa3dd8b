"""Every thread counted whatever its lifetime (sampler process): threads
that each live 1 or 3 ms of CPU beside two long-lived ones get their share
of the profile within 3 percentage points of the truth the program measured
with thread CPU clocks, at 10 ms and at 1 ms, at launch and after `gdb -p`.
2000 threads created and joined, 200 at a time: their CPU recorded within
5 % (what profiling costs them is bench/thread_truth.py's).  As an ordinary user (locked memory within perf_event_mlock_kb,
no signals), 256 threads: at least 0.97 of their CPU recorded."""

import os
import re

import harness

from harness import (Background, attach_gdb, check, cleanup, clock_source_said, er_dump, finish, gprofng_functions,
                     gprofng_text, program, run_gdb,
                     shared_workdir, skip_part, unprivileged_prefix, wait_closed)

MIX = program("thread_mix")
experiments = iter("test.%d.er" % n for n in range(1, 100))


def truth(out):
    m = re.search(r"short_cpu=([0-9.]+) long_cpu=([0-9.]+) short_threads=(\d+) cpu_seconds=([0-9.]+)", out)
    return tuple(float(x) for x in m.groups()) if m else None


def recorded(exp, label):
    """{function: inclusive seconds} from gprofng, after our reader's checks
    (harness.NOT_SAMPLED among them: time the program's own timers found no
    sample of, its threads preempted for others)."""
    summary, _, _ = er_dump(exp)
    check(summary.get("closed") == "yes" and summary.get("invalid_packets") == "0",
          "%s: experiment closed, every packet valid" % label)
    check(any("Thread tails" in c for c in summary["comments"]), "%s: log.xml states the thread tails" % label)
    funcs, total, raw = gprofng_functions(exp)
    print(raw)
    return {name: incl for name, (excl, incl) in funcs.items()}, total


def check_never_sampled(out, exp, label):
    """Threads of 1 ms at 10 ms are almost never sampled: their time is
    under <Thread-never-sampled>, beneath short_thread, which has none of
    it as its own; GDB says how to sample them."""
    funcs, _, _ = gprofng_functions(exp)
    excl = {name: e for name, (e, i) in funcs.items()}
    pseudo, own = excl.get("<Thread-never-sampled>", 0.0), excl.get("short_thread", 0.0)
    check(pseudo > 0 and own <= 0.1 * pseudo, "%s: the unsampled threads' time under <Thread-never-sampled> "
          "(%.3f s), not as their start function's own (%.3f s)" % (label, pseudo, own))
    check("ended before their first sample" in out and ("collector profile timer hi" in out if not
                                                         harness.perf_events_refused() else
                                                         "perf events allowed, a shorter interval" in out),
          "%s: GDB says how much ran in threads never sampled, and how to sample them" % label)


def check_groups(out, exp, label, stolen):
    t = truth(out)
    check(t is not None, "%s: the program printed its truth" % label)
    if t is None:
        return
    short_true, long_true = t[0], t[1]
    incl, _ = recorded(exp, label)
    # A thread's tail (its CPU after its last sample, from the kernel's
    # switch records) has the host's steal on its CPU taken off by the
    # rate polled every 100 ms: where the host took more than a quarter of
    # the threads' time during the run, its bursts fall on the short
    # threads or not by chance (a CI run: 1.78 s of steal, 0.78 s recorded
    # of 1.09 s), and the figures say nothing of the collector.
    if stolen > 0.25 * (short_true + long_true):
        skip_part("%s: the shares of short threads judged where the host took %.2f s of the machine's CPU during "
                  "the run (over a quarter of the threads' %.2f s: its bursts, not the collector, decide)"
                  % (label, stolen, short_true + long_true))
        return
    short_rec, long_rec = incl.get("short_thread", 0.0), incl.get("long_thread", 0.0)
    # Time not sampled (its threads preempted, the program's own timers
    # late) may be either group's: the shares may move by its part.
    unplaced = incl.get(harness.NOT_SAMPLED, 0.0)
    share_true = 100 * short_true / (short_true + long_true)
    share_rec = 100 * short_rec / max(short_rec + long_rec, 1e-9)
    slack = 100 * unplaced / max(short_rec + long_rec + unplaced, 1e-9)
    check(abs(share_rec - share_true) <= 3.0 + slack, "%s: short threads %.1f%% of the threads' time (truth %.1f%%; "
          "%.3f s and %.3f s recorded of %.3f s and %.3f s, %.3f s not sampled)"
          % (label, share_rec, share_true, short_rec, long_rec, short_true, long_true, unplaced))
    check(abs(short_rec + long_rec + unplaced - short_true - long_true) <= 0.05 * (short_true + long_true),
          "%s: %.3f s of the threads' %.3f s recorded (%.3f s of it not sampled)"
          % (label, short_rec + long_rec + unplaced, short_true + long_true, unplaced))


work = shared_workdir()
# A counter beside the clock must not disturb it (the kernel's per-thread
# count reports, inherit_stat, lost or added clock samples in 4 runs of 10).
COUNTER = ["collector hwprofile counter page-faults,100", "collector hwprofile on"]
for rate, short_ms, count, extra in (("on", 1, 1000, []), ("hi", 1, 1000, []), ("on", 3, 400, []),
                                     ("hi", 3, 400, []), ("on", 1, 1000, COUNTER)):
    label = "%s ms, %d threads of %d ms%s" % ("10" if rate == "on" else "1", count, short_ms,
                                               ", a counter beside" if extra else "")
    # The long threads get about as much CPU as the short ones together.
    args = [MIX, str(count), "50", str(short_ms), "2", "%.2f" % (count * short_ms / 2000.0)]
    out = run_gdb(["collector profile timer %s" % rate] + extra + ["collector enable", "run"], args, cwd=work)
    print(out)
    exp = os.path.join(work, next(experiments))
    check_groups(out, exp, label, harness.LAST_RUN_STEAL)
    if rate == "on" and short_ms == 1 and not extra:
        check_never_sampled(out, exp, label)

steal_before = harness.steal_seconds()
target = Background([MIX, "1000", "50", "1", "2", "0.5", "ready"], cwd=work)
out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
print(out)
name = next(experiments)
check("recording %s" % os.path.join(work, name) in out, "attach: recording %s" % name)
status, rest = target.finish()
print(rest)
wait_closed(os.path.join(work, name))
check_groups(rest, os.path.join(work, name), "attach, 10 ms, 1000 threads of 1 ms", harness.steal_seconds() - steal_before)

# 2000 threads, 200 alive at once.  What profiling costs the program is a
# timing, measured by bench/thread_truth.py beside perf, not asserted here.
args = [MIX, "2000", "200", "2", "0", "0"]
out = run_gdb(["collector enable", "run"], args, cwd=work)
print(out)
t_profiled = truth(out)
check(t_profiled is not None and "short_threads=2000" in out, "2000 threads: the program ran them all and reported")
stolen = harness.LAST_RUN_STEAL
if t_profiled and stolen > 0.25 * t_profiled[0]:
    next(experiments)
    skip_part("2000 threads: their CPU judged where the host took %.2f s of the machine's CPU during the run (over "
              "a quarter of the threads' %.2f s: its bursts, not the collector, decide; as check_groups)"
              % (stolen, t_profiled[0]))
elif t_profiled:
    exp = os.path.join(work, next(experiments))
    incl, total = recorded(exp, "2000 threads")
    # By thread: all but the main thread, the one of most CPU (0.5 s against
    # 2 ms each; gprofng numbers threads as their first packets come, and
    # where perf events are refused a short thread's came before the main
    # thread's in a CI run: Thread 1 was not main).  A thread's own clock
    # counts its birth too, the kernel's work in clone3 before its start
    # function (a CI run under 5 s of host steal: 0.28 s of 4.27 there,
    # alone at the root as perf has it), so under short_thread a little
    # less is asked.
    threads = gprofng_text(exp, "-metrics", "e.totalcpu", "-threads")
    per_thread = {m.group(2): float(m.group(1))
                  for m in re.finditer(r"^\s*([0-9.]+)\s+(<Total>|Process \d+, Thread \d+)\s*$", threads, re.M)}
    main_thread = max([cpu for name, cpu in per_thread.items() if name != "<Total>"] or [0.0])
    theirs = per_thread.get("<Total>", 0.0) - main_thread
    capture = theirs / t_profiled[0]
    check(0.95 <= capture <= 1.05, "2000 threads: %.3f of their CPU recorded in them (%.3f s of %.3f s)"
          % (capture, theirs, t_profiled[0]))
    under = (incl.get("short_thread", 0.0) + incl.get(harness.NOT_SAMPLED, 0.0)) / t_profiled[0]
    check(0.90 <= under <= 1.05, "2000 threads: %.3f of their CPU under short_thread (%.3f s of %.3f s)"
          % (under, incl.get("short_thread", 0.0), t_profiled[0]))
cleanup(work)

prefix = unprivileged_prefix()
if prefix:
    work = shared_workdir()
    out = run_gdb(["collector profile timer hi", "collector enable", "run"], [MIX, "0", "1", "0", "256", "0.01"],
                  cwd=work, prefix=prefix)
    print(out)
    t = truth(out)
    summary, _, raw = er_dump(os.path.join(work, "test.1.er"))
    print(raw)
    check(clock_source_said(summary["comments"]),
          "ordinary user: sampled by the sampler process, no signals")
    incl, _ = recorded(os.path.join(work, "test.1.er"), "ordinary user, 256 threads")
    capture = (incl.get("long_thread", 0.0) + incl.get(harness.NOT_SAMPLED, 0.0)) / t[1] if t else 0
    if t and harness.LAST_RUN_STEAL > 0.25 * t[1]:
        skip_part("ordinary user, 256 threads: their CPU judged where the host took %.2f s of the machine's CPU "
                  "during the run (over a quarter of the threads' %.2f s)" % (harness.LAST_RUN_STEAL, t[1]))
    else:
        check(capture >= 0.97, "ordinary user, 256 threads: %.3f of their CPU recorded" % capture)
    cleanup(work)
finish()
