"""Samples that cannot be taken are said, with their cause (issue 25): a
program whose threads block every signal, under the in-process sampler
(GDBCOL_CLOCK_SOURCE=timer; what a user gets where the kernel refuses perf
events).  Its timer signal stays pending, so the workers' 2 s of CPU are
not sampled: GDB's closing line says how much CPU was not sampled and why,
and log.xml warns (before: "closed (0 samples; 0.0 KB written, 0 lost)",
no word).  From outside (the default) no signal is involved: all of it is
recorded."""

import os
import re

from harness import check, cleanup, er_dump, finish, program, run_gdb, true_cpu_seconds, workdir

work = workdir()
out = run_gdb(["collector store experiment timer.er", "collector enable", "run"], [program("blocked_signals"), "1.0"],
              cwd=work, env={"GDBCOL_CLOCK_SOURCE": "timer"})
print(out)
truth = true_cpu_seconds(out) or 0
m = re.search(r"; ([0-9.]+) s of CPU not sampled: (\d+) thread\(s\) blocked the collector's timer signal", out)
check(m is not None and float(m.group(1)) >= 0.8 * truth and int(m.group(2)) >= 2,
      "GDB says how much CPU was not sampled and why (%s of %.3f s)" % (m and m.group(1), truth))
summary, _, raw = er_dump(os.path.join(work, "timer.er"))
check("blocked the collector's timer signal" in raw, "log.xml warns with the cause")

out = run_gdb(["collector store experiment process.er", "collector enable", "run"],
              [program("blocked_signals"), "1.0"], cwd=work)
print(out)
summary, _, _ = er_dump(os.path.join(work, "process.er"))
recorded, truth = float(summary.get("cpu_seconds", 0)), true_cpu_seconds(out) or 0
check(truth > 0 and 0.95 * truth <= recorded <= 1.05 * truth and "not sampled" not in out,
      "from outside, blocked signals change nothing (%.3f s of %.3f)" % (recorded, truth))
cleanup(work)
finish()
