"""The collector never writes into a file that is not its own, whatever the
program does with descriptors it did not open: close them all (3..1023),
dup2 /dev/null over 3..50, close_range(3, ~0), again every 100 ms.  Each
of the program's 20 files must hold exactly what it wrote (the program
checks and exits 3 otherwise), and the experiment must keep its data:
closed, the CPU time of the run in our reader and in gprofng, and GDB's
sample count equal to what is in the file.  Launch mode, attach mode, and
launch as an ordinary user."""

import os
import re

from harness import (Background, attach_gdb, check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb,
                     sampling_seconds, shared_workdir, true_cpu_seconds, unprivileged_prefix, wait_closed)


def check_experiment(exp, label, cpu, gdb_out=None):
    summary, funcs, raw = er_dump(exp)
    check(summary.get("closed") == "yes", "%s: experiment closed" % label)
    check(summary.get("missing_stacks") == "0" and summary.get("invalid_packets") == "0",
          "%s: every packet whole, every stack present" % label)
    recorded = float(summary.get("cpu_seconds", 0))
    check(cpu is not None and abs(recorded - cpu) <= 0.15 * cpu + 0.05,
          "%s: our reader finds the run's CPU time (%.2f s of %s)" % (label, recorded, cpu))
    _, total, text = gprofng_functions(exp)
    check(cpu is not None and abs(total - cpu) <= 0.15 * cpu + 0.05,
          "%s: gprofng finds the run's CPU time (%.2f s of %s)" % (label, total, cpu))
    if gdb_out is not None:
        m = re.search(r"closed \((\d+) samples[;)]", gdb_out)
        check(m is not None and m.group(1) == summary.get("clock_packets"),
              "%s: GDB's count (%s) is what the file holds (%s)" % (label, m and m.group(1), summary.get("clock_packets")))


def launch(mode, work, prefix=(), label=None):
    label = label or "launch, " + mode
    out = run_gdb(["collector enable", "run"], [program("fd_hostile"), mode, work, "1.5"], cwd=work, prefix=prefix)
    print(out)
    check("files intact: 20" in out and "exited normally" in out,
          "%s: all 20 of the program's files hold exactly what it wrote" % label)
    exp = os.path.join(work, "test.1.er")
    if prefix:
        check(os.path.isdir(exp) and os.stat(exp).st_uid != 0, "%s: the experiment belongs to the ordinary user" % label)
    check_experiment(exp, label, true_cpu_seconds(out), out)


for mode in ("closeall", "dup2", "close_range"):
    work = shared_workdir()
    launch(mode, work)
    cleanup(work)

for mode in ("closeall", "dup2"):
    work = shared_workdir()
    target = Background([program("fd_hostile"), mode, work, "3", "wait"], cwd=work)
    out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
    print(out)
    status, rest = target.finish()
    print(rest)
    label = "attach, " + mode
    check(status == 0 and "files intact: 20" in rest, "%s: all 20 of the program's files intact (exit %s)" % (label, status))
    # The program works only once the runtime is there: the experiment
    # holds all its CPU time, within what sampling allows.
    wait_closed(os.path.join(work, "test.1.er"))
    summary, _, raw = er_dump(os.path.join(work, "test.1.er"))
    print(raw)
    check(summary.get("closed") == "yes", "%s: experiment closed at the program's exit" % label)
    truth, kept = true_cpu_seconds(rest) or 0.0, float(summary.get("cpu_seconds", 0))
    bound = sampling_seconds(truth, 0.01)
    check(truth > 0 and abs(kept - truth) <= bound, "%s: profile data kept: %.3f s of the program's %.3f s (+- %.2f)"
          % (label, kept, truth, bound))
    check(summary.get("missing_stacks") == "0" and summary.get("invalid_packets") == "0",
          "%s: every packet whole, every stack present" % label)
    _, total, _ = gprofng_functions(os.path.join(work, "test.1.er"))
    check(abs(total - float(summary.get("cpu_seconds", 0))) < 0.05, "%s: gprofng reads the same time (%.2f)" % (label, total))
    cleanup(work)

prefix = unprivileged_prefix()
if prefix is not None:  # else listed as skipped, with why
    work = shared_workdir()
    launch("closeall", work, prefix=prefix, label="ordinary user, closeall")
    cleanup(work)
finish()
