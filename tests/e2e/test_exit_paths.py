"""The experiment is readable however the program ends: _exit closes it
cleanly (exit event written by the _exit interposer); a SIGSEGV that GDB
stops on and then kills leaves the data recorded up to the crash."""

import os

from harness import check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, workdir

work = workdir()

out = run_gdb(["collector enable", "run"], [program("exit_paths"), "_exit", "0.5"], cwd=work)
print(out)
check("exited with code 07" in out, "_exit(7) status unchanged")
summary, funcs, raw = er_dump(os.path.join(work, "test.1.er"))
print(raw)
check(summary.get("closed") == "yes", "_exit: experiment closed")
check(funcs.get("burn", (0, 0))[1] >= 0.4, "_exit: burn() has its ~0.5 s")

out = run_gdb(["collector enable", "run"], [program("exit_paths"), "segv", "0.5"], cwd=work)
print(out)
check("SIGSEGV" in out, "the program stopped on SIGSEGV in GDB")
check("killed or crashed" in out, "the plugin says the process ended without closing the experiment")
exp = os.path.join(work, "test.2.er")
summary, funcs, raw = er_dump(exp)
print(raw)
check(summary.get("closed") == "no", "segv: experiment not closed, as expected")
check(summary.get("invalid_packets") == "0", "segv: no torn packets")
check(funcs.get("burn", (0, 0))[1] >= 0.35, "segv: the samples before the crash are there")
gfuncs, gtotal, graw = gprofng_functions(exp)
print(graw)
check(gfuncs.get("burn", (0, 0))[1] >= 0.35, "segv: gprofng reads the crashed experiment (burn %.3f s)"
      % gfuncs.get("burn", (0, 0))[1])
cleanup(work)
finish()
