"""Experiments are numbered across runs (test.1.er, test.2.er), go where
`collector store` says, never reuse a taken name, work with
startup-with-shell off, and `collector disable` restores GDB's settings so
the next run is not profiled."""

import os

from harness import check, cleanup, er_dump, finish, program, run_gdb, workdir

work = workdir()
os.mkdir(os.path.join(work, "store"))
prog = [program("exit_paths"), "return", "0.2"]

out = run_gdb(["collector enable", "run", "run"], prog, cwd=work)
print(out)
check(os.path.isdir(os.path.join(work, "test.1.er")) and os.path.isdir(os.path.join(work, "test.2.er")),
      "two runs give test.1.er and test.2.er")

out = run_gdb(["collector store directory store", "collector store experiment mine.er", "collector enable", "run",
               "run"], prog, cwd=work)
print(out)
check(os.path.isdir(os.path.join(work, "store", "mine.er")), "store directory + experiment name honoured")
check("an experiment of that name exists" in out, "a second run refuses to reuse mine.er, and says so")

out = run_gdb(["set startup-with-shell off", "collector enable", "run"], prog, cwd=work)
print(out)
summary, funcs, raw = er_dump(os.path.join(work, "test.3.er"))
check(summary.get("closed") == "yes" and funcs.get("burn", (0, 0))[1] > 0.1,
      "startup-with-shell off: profiled through LD_PRELOAD")

out = run_gdb(["set environment LD_PRELOAD=/nonexistent-user.so", "set exec-wrapper env", "collector enable",
               "collector disable", "show environment LD_PRELOAD", "show exec-wrapper", "run"], prog, cwd=work)
print(out)
check("LD_PRELOAD = /nonexistent-user.so" in out, "disable restores the user's LD_PRELOAD")
check('wrapper for running programs is "env"' in out, "disable restores the user's exec-wrapper")
check(not os.path.exists(os.path.join(work, "test.4.er")), "after disable the run is not profiled")
cleanup(work)
finish()
