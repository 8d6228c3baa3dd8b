"""Clock profiling from outside the program (GDBCOL_CLOCK_SOURCE=process):
the sampler process opens per-CPU task-clock events on the program before
its exec, inherited by every thread.  The program stays as it is: one
thread and __libc_single_threaded still 1 in a single-threaded program, no
variable of ours in its environment.  The experiment holds the run's CPU
time (our reader and gprofng), threads created later are sampled, GDB's
count is what the file holds, and a program killed with SIGKILL still gets
a closed experiment.  Also as an ordinary user (perf_event_paranoid 2:
user mode only, locked memory within perf_event_mlock_kb)."""

import os
import re

from harness import (Background, attach_gdb, check, cleanup, clock_source_said, perf_events_refused, er_dump, finish, gprofng_functions,
                     program, run_gdb, shared_workdir, true_cpu_seconds, unprivileged_prefix, wait_closed)

PROCESS = "set environment GDBCOL_CLOCK_SOURCE=process"


def check_run(out, exp, label, cpu=None):
    summary, funcs, raw = er_dump(exp)
    print(raw)
    check(summary.get("closed") == "yes", "%s: experiment closed" % label)
    check(clock_source_said(summary["comments"]), "%s: log.xml names the sampler process as the source" % label)
    m = re.search(r"closed (?:at its end )?\((\d+) samples", out)
    check(m is not None and m.group(1) == summary.get("clock_packets"),
          "%s: GDB's count (%s) is what the file holds (%s)" % (label, m and m.group(1), summary.get("clock_packets")))
    recorded = float(summary.get("cpu_seconds", 0))
    if cpu is not None:
        check(abs(recorded - cpu) <= 0.1 * cpu + 0.03, "%s: %.3f s recorded of %.3f s" % (label, recorded, cpu))
    _, total, _ = gprofng_functions(exp)
    check(abs(total - recorded) < 0.011, "%s: gprofng reads the same total (%.3f)" % (label, total))
    return summary, funcs


def single_threaded(work, label, prefix=()):
    out = run_gdb([PROCESS, "collector enable", "run"], [program("single_thread"), "0.6"], cwd=work, prefix=prefix)
    print(out)
    check("threads=1 single_threaded=1" in out, "%s: the program has one thread and stays single-threaded" % label)
    check("[New Thread" not in out, "%s: GDB sees no thread of ours" % label)
    summary, funcs = check_run(out, os.path.join(work, "test.1.er"), label, true_cpu_seconds(out))
    spin = funcs.get("spin", (0, 0))[1]
    check(spin >= 0.9 * float(summary.get("cpu_seconds", 1)), "%s: spin has the time (%.3f s)" % (label, spin))


work = shared_workdir()
single_threaded(work, "single-threaded")

out = run_gdb([PROCESS, "collector profile timer hi", "collector enable", "run"],
              [program("split_work"), "1.0", "3"], cwd=work)
print(out)
summary, funcs = check_run(out, os.path.join(work, "test.2.er"), "threads at 1 ms", true_cpu_seconds(out))
check(int(summary.get("threads", 0)) >= 4, "threads at 1 ms: the main thread and the 3 it created (%s)"
      % summary.get("threads"))

out = run_gdb([PROCESS, "collector enable", "run"], [program("exit_paths"), "kill9", "0.5"], cwd=work)
print(out)
summary, funcs = check_run(out, os.path.join(work, "test.3.er"), "kill -9")
check(funcs.get("burn", (0, 0))[1] >= 0.4, "kill -9: the work up to the kill is there (%.3f s of 0.5)"
      % funcs.get("burn", (0, 0))[1])

def single_threaded_attach(work, name, label, prefix=()):
    """After `gdb -p`: the sampler process opens events on the running
    thread; the program stays single-threaded and GDB's detach leaves it
    recording."""
    target = Background([program("single_thread"), "2.5", "ready"], cwd=work, prefix=prefix)
    out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work, prefix=prefix)
    print(out)
    check("recording %s" % os.path.join(work, name) in out, "%s: collector enable records %s" % (label, name))
    status, rest = target.finish()
    print(rest)
    check(status == 0 and "threads=1 single_threaded=1" in rest,
          "%s: the process has one thread and stays single-threaded (%s)" % (label, rest.strip()))
    wait_closed(os.path.join(work, name))
    summary, funcs, raw = er_dump(os.path.join(work, name))
    print(raw)
    check(summary.get("closed") == "yes", "%s: the sampler process closed the experiment at the exit" % label)
    check(clock_source_said(summary["comments"]) and
          (perf_events_refused() or any("every thread at the attach" in c for c in summary["comments"])),
          "%s: log.xml names the sampler process and its per-thread events" % label)
    recorded = float(summary.get("cpu_seconds", 0))
    check(recorded > 0.5 and funcs.get("spin", (0, 0))[1] >= 0.9 * recorded,
          "%s: spin has the time recorded after the attach (%.3f s of %.3f s)"
          % (label, funcs.get("spin", (0, 0))[1], recorded))
    _, total, _ = gprofng_functions(os.path.join(work, name))
    check(abs(total - recorded) < 0.011, "%s: gprofng reads the same total (%.3f)" % (label, total))


single_threaded_attach(work, "test.4.er", "attach")

# A child process: recorded as the sub-experiment _f1.er (its exec as
# _f1_x1.er when it execs), which gprofng reads with the founder.
loop = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"
out = run_gdb([PROCESS, "collector enable", "run"], ["/bin/sh", "-c", "/bin/sh -c '%s'; true" % loop], cwd=work)
print(out)
check("2 descendant experiment(s) beside it" in out,
      "descendants: GDB counts the child's two experiments (before and after its exec)")
founder = os.path.join(work, "test.5.er")
with open(os.path.join(founder, "log.xml")) as f:
    log = f.read()
check('kind="desc_start"' in log and 'lineage="_f1" follow="1"' in log,
      "descendants: the founder's log.xml records the fork it followed")
summary, funcs, raw = er_dump(os.path.join(founder, "_f1_x1.er"))
print(raw)
child_cpu = float(summary.get("cpu_seconds", 0))
check(summary.get("closed") == "yes" and child_cpu >= 0.1,
      "descendants: _f1_x1.er (the child's exec of /bin/sh) is closed and holds %.3f s" % child_cpu)
funcs, total, raw = gprofng_functions(founder)
print(raw)
check(total >= child_cpu - 0.011, "descendants: gprofng's view of test.5.er includes the child (%.3f s)" % total)

out = run_gdb([PROCESS, "collector enable", "run"], ["/usr/bin/env"], cwd=work)
check("\nPATH=" in out and "closed (" in out, "env ran under the collector and printed its environment")
check("GDBCOL" not in out and "LD_PRELOAD" not in out, "the program's environment has no trace of the collector")
cleanup(work)

prefix = unprivileged_prefix()
if prefix:
    work = shared_workdir()
    single_threaded(work, "ordinary user", prefix)
    single_threaded_attach(work, "test.2.er", "ordinary user, attach", prefix)
    cleanup(work)
finish()
