"""The experiment is readable however the program ends: _exit closes it
cleanly (exit event written by the _exit interposer).  An exit_group
system call made directly (Go, the sanitizers' exits) passes no function
of the runtime: GDB saw the exit and says it with its code, not "killed by
a signal, or it crashed" as before; log.xml says the runtime did not see
an exit and names the ways that happens.  A SIGSEGV that GDB
stops on and then kills: sampled from outside (the default), the sampler
process closes the experiment when the program is gone; sampled from
inside (GDBCOL_CLOCK_SOURCE=perf), the data up to the crash is there, not
closed."""

import os
import re
import subprocess

from harness import check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, workdir

work = workdir()

out = run_gdb(["collector enable", "run"], [program("exit_paths"), "_exit", "0.5"], cwd=work)
print(out)
check("exited with code 07" in out, "_exit(7) status unchanged")
summary, funcs, raw = er_dump(os.path.join(work, "test.1.er"))
print(raw)
check(summary.get("closed") == "yes", "_exit: experiment closed")
check(funcs.get("burn", (0, 0))[1] >= 0.4, "_exit: burn() has its ~0.5 s")

out = run_gdb(["collector store experiment raw.er", "collector enable", "run"], [program("exit_paths"), "raw_exit", "0.5"],
              cwd=work)
print(out)
raw_exp = os.path.join(work, "raw.er")
check("exited with code 07" in out and "killed" not in out and
      "collector: process %s exited with code 7; experiment %s closed at its end (" % (
          re.search(r"process (\d+)", out).group(1) if re.search(r"process (\d+)", out) else "?", raw_exp) in out,
      "raw exit_group: GDB says the program exited, with its code, never a kill")
summary, funcs, raw = er_dump(raw_exp)
check(summary.get("closed") == "yes" and "an exit system call made directly" in raw and
      funcs.get("burn", (0, 0))[1] >= 0.4, "raw exit_group: closed, log.xml names the ways, burn() has its ~0.5 s")
# gprofng's header: our warning's own text (not "No warning"), the
# process's parent (GDB) and session (this test's), the CPUs' clock.
header = subprocess.run(["gprofng", "display", "text", "-header", raw_exp], capture_output=True, text=True).stdout
print(header)
ids = re.search(r"Process pid (\d+), ppid (\d+), pgrp (\d+), sid (\d+)", header)
check("No warning" not in header and "*** Collect: The program ended without its runtime seeing an exit" in header,
      "gprofng's header shows the warning's text")
check(ids is not None and ids.group(1) != ids.group(2) and int(ids.group(4)) == os.getsid(0),
      "gprofng's header: the parent is not the process itself, the session is this test's (%s)"
      % (ids.groups() if ids else None,))
clock = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", open("/proc/cpuinfo").read(), re.M)
if clock:
    check("clock speed %d MHz" % int(float(clock.group(1)) + 0.5) in header,
          "gprofng's header: the clock speed /proc/cpuinfo gives (%s MHz)" % clock.group(1))

for n, source, closed in ((2, None, True), (3, "perf", False)):
    label = "segv, sampled from %s" % ("inside" if source else "outside")
    commands = (["set environment GDBCOL_CLOCK_SOURCE=" + source] if source else []) + ["collector enable", "run"]
    out = run_gdb(commands, [program("exit_paths"), "segv", "0.5"], cwd=work)
    print(out)
    check("SIGSEGV" in out, "%s: the program stopped on SIGSEGV in GDB" % label)
    if closed:
        check("ended without exiting (killed by a signal, or it crashed); experiment %s closed at its end ("
              % os.path.join(work, "test.%d.er" % n) in out,
              "%s: the sampler process closed the experiment, and GDB says the program did not exit" % label)
    else:
        check("killed or crashed" in out, "%s: the plugin says the process ended without closing it" % label)
    exp = os.path.join(work, "test.%d.er" % n)
    summary, funcs, raw = er_dump(exp)
    print(raw)
    check(summary.get("closed") == ("yes" if closed else "no"), "%s: closed %s" % (label, summary.get("closed")))
    if closed:
        check(summary.get("ended_by") == "killed (the program ended without exiting)",
              "%s: log.xml says it ended without exiting" % label)
    check(summary.get("invalid_packets") == "0", "%s: no torn packets" % label)
    check(funcs.get("burn", (0, 0))[1] >= 0.35, "%s: the samples before the crash are there" % label)
    gfuncs, gtotal, graw = gprofng_functions(exp)
    print(graw)
    check(gfuncs.get("burn", (0, 0))[1] >= 0.35, "%s: gprofng reads it (burn %.3f s)"
          % (label, gfuncs.get("burn", (0, 0))[1]))
cleanup(work)
finish()
