"""Where perf_event_open is refused, per-thread POSIX CPU timers take over;
the log says which source ran, and CPU time and shares stay true (samples
weighted by timer overruns)."""

import os

from harness import (check, check_shares, cleanup, er_dump, finish, gprofng_functions, program, run_gdb,
                     true_cpu_seconds, workdir)

work = workdir()
out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=timer", "collector enable", "run"],
              [program("split_work"), "2.5", "1"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
summary, funcs, raw = er_dump(exp)
print(raw)
check(any("POSIX CPU-time timers" in c for c in summary["comments"]), "log.xml says the timer source ran")
true_cpu = true_cpu_seconds(out)
recorded = float(summary.get("cpu_seconds", 0))
check(true_cpu and abs(recorded - true_cpu) <= 0.05 * true_cpu,
      "recorded %.3f s within 5%% of %.3f s" % (recorded, true_cpu or 0))
check(int(summary.get("threads", 0)) == 2, "both threads sampled")
check_shares(funcs, recorded, {"work_fifty": 50, "work_thirty": 30, "work_twenty": 20}, "reader")
gfuncs, gtotal, graw = gprofng_functions(exp)
check_shares(gfuncs, gtotal, {"work_fifty": 50, "work_thirty": 30, "work_twenty": 20}, "gprofng")
cleanup(work)
finish()
