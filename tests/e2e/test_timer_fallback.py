"""Where perf_event_open is refused, per-thread POSIX CPU timers take over;
the log says which source ran, and CPU time and shares stay true (samples
weighted by timer overruns)."""

import os

from harness import check, check_split_work, cleanup, finish, program, run_gdb, workdir

work = workdir()
out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=timer", "collector enable", "run"],
              [program("split_work"), "2.5", "1"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
summary = check_split_work(exp, out, "timer source")
check(any("POSIX CPU-time timers" in c for c in summary["comments"]), "log.xml says the timer source ran")
cleanup(work)
finish()
