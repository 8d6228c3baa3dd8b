"""Root's GDB records another user's process (issue 25): `gdb -p` as root on
a process that runs as nobody, `collector enable`, detach.

Before: "collector enable: no experiment in process N: " with no reason,
then an experiment of 0 samples that claimed a normal exit 4 ms in: the
runtime inside the process (nobody) could not open the session's control
page, root's file of mode 600 in root's directory.  Now the sampler process
(root) makes the files the runtime maps that user's, the session directory
lets others through (mode 711, moved to /dev/shm when root's runtime
directory is closed), and the experiment is root's, written by the sampler.

Checked: the CPU of the process's threads (measured by the program since
the attach) in our reader and gprofng, heap tracing through the trace ring
the process writes (a second program), the program's output and exit status unchanged, the
experiment's files root's, and nothing left in the runtime directories.
Sampling from inside the process is refused with its reason: the program
would write root's experiment with its own rights.

Root only: it needs a second user (CI runs as root)."""

import os
import re
import signal

from harness import (Background, attach_gdb, check, check_shares, cleanup, clock_samples, er_dump, finish,
                     gprofng_functions, program, skip_test, stop_attach_target, unprivileged_prefix, wait_closed,
                     wait_for_data, workdir)

if os.geteuid() != 0:
    skip_test("recording another user's process needs root's GDB (run the suite as root)")
prefix = unprivileged_prefix()
if prefix is None:
    skip_test("root cannot run a program as nobody here (see the skipped parts)")

work = workdir()
# Root's runtime directory as a login gives it: mode 700, closed to the
# process's user.  The session must move out of it.
closed_runtime = os.path.join(work, "run-user-0")
os.mkdir(closed_runtime, 0o700)
os.environ["XDG_RUNTIME_DIR"] = closed_runtime


def shm_sessions():
    """The sessions shared with another user in /dev/shm (mode 711: other
    tests running beside this one make theirs 700)."""
    shared = []
    for name in os.listdir("/dev/shm"):
        try:
            if name.startswith("gdbcol-") and os.lstat(os.path.join("/dev/shm", name)).st_mode & 0o777 == 0o711:
                shared.append(name)
        except OSError:
            pass
    return sorted(shared)


shm_before = shm_sessions()

# The target runs as nobody until told to stop (SIGUSR1); GDB is root.
target = Background([program("attach_target"), "300", "busy"], cwd=work, prefix=prefix)
out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
check("Collector enabled in process %d: recording %s" % (target.pid, exp) in out,
      "root's enable in nobody's process starts test.1.er")
check("no experiment" not in out, "no refusal")
enough = lambda summary, funcs: int(summary.get("ticks", 0)) >= 300
check(wait_for_data(exp, enough), "samples arrive while it runs")
_, truth = stop_attach_target(target, busy=True)
wait_closed(exp)

summary, funcs, raw = er_dump(exp)
print(raw)
check(summary.get("closed") == "yes" and summary.get("ended_by") == "exit", "the experiment closed at the exit")
if truth:
    recorded = {name: funcs.get(name, (0.0, 0.0)) for name in truth}
    check_shares(recorded, sum(incl for _, incl in recorded.values()),
                 {name: 100.0 * cpu / sum(truth.values()) for name, cpu in truth.items()},
                 "our reader", samples=clock_samples(summary))
g_funcs, g_total, _ = gprofng_functions(exp)
check(abs(g_total - float(summary.get("cpu_seconds", 0))) < 0.011 and g_funcs.get("compute_loop", (0.0, 0.0))[1] > 0,
      "gprofng reads the same CPU time (%.3f s)" % g_total)
owners = {os.lstat(os.path.join(exp, name)).st_uid for name in os.listdir(exp)}
check(owners == {0}, "the experiment's files are root's (owners %s)" % sorted(owners))
check(os.listdir(closed_runtime) == [] and shm_sessions() == shm_before,
      "no session file is left (%s, %s)" % (os.listdir(closed_runtime), shm_sessions()))

# Heap tracing: events through the trace ring the process writes (a
# program that allocates a little all the time and ends on its own; the
# attach target's malloc storm filled the data limit in 15 s under load).
target = Background([program("address_space_limit"), "4096", "0"], cwd=work, prefix=prefix)
out = attach_gdb(target.pid, ["collector heaptrace on", "collector store experiment traced.er", "collector enable",
                              "continue"], cwd=work)
print(out)
status, rest = target.finish()
summary, _, raw = er_dump(os.path.join(work, "traced.er"))
check(status == 0 and int(summary.get("heap_allocations", 0) or 0) > 100 and
      re.search(r"closed \(.* [1-9][0-9]* allocations and frees", out) is not None,
      "heap tracing through the ring the process writes (%s allocations)" % summary.get("heap_allocations"))
check(shm_sessions() == shm_before, "no session file is left after the traced run")

# From inside the process: refused, nothing started, the program unharmed.
target = Background([program("attach_target"), "300"], cwd=work, prefix=prefix)
out = attach_gdb(target.pid, ["set environment GDBCOL_CLOCK_SOURCE=timer", "collector enable",
                              "echo gdb-still-works\\n", "detach"], cwd=work)
print(out)
check("collector enable: process %d runs as nobody (uid" % target.pid in out and
      "would have the program write the experiment with that user's rights" in out,
      "sampling from inside: refused with its reason")
check("gdb-still-works" in out, "GDB goes on")
target.proc.send_signal(signal.SIGUSR1)
status, rest = target.finish()
check(status == 3 and rest.strip().endswith("late threads started: yes"), "the program ran to its end (%s)" % status)
check(not os.path.exists(os.path.join(work, "test.2.er")), "no experiment was started")
check(shm_sessions() == shm_before, "no session file is left")
cleanup(work)
finish()
