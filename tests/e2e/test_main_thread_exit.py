"""The process's life is the program's (issue 25): a main thread that calls
pthread_exit while two workers burn 0.5 s of CPU each.  The process must
end with the last worker (exit status 0, "exited normally"), the
experiment closed with the workers' CPU, in both sampling modes.  Before,
with the in-process sampler (also what a user gets where the kernel
refuses perf events) the runtime's thread kept the process alive: still
there 5 s after the last worker, the experiment never closed."""

import os
import re
import subprocess

from harness import check, cleanup, er_dump, finish, program, run_gdb, workdir

work = workdir()
for source in ("timer", "process"):
    try:
        out = run_gdb(["collector store experiment %s.er" % source, "collector enable", "run"],
                      [program("main_thread_exit"), "0.5"], cwd=work, timeout=60,
                      env={"GDBCOL_CLOCK_SOURCE": source})
    except subprocess.TimeoutExpired:
        out = ""
    print(out)
    check("exited normally" in out, "%s: the process ended with its last worker, status 0" % source)
    truth = sum(float(x) for x in re.findall(r"worker_cpu=([0-9.]+)", out))
    summary, _, _ = er_dump(os.path.join(work, source + ".er"))
    recorded = float(summary.get("cpu_seconds", 0))
    check(summary.get("closed") == "yes" and truth > 0 and 0.95 * truth <= recorded <= 1.05 * truth,
          "%s: the experiment closed with the workers' CPU (%.3f s of %.3f)" % (source, recorded, truth))
cleanup(work)
finish()
