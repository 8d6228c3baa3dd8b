"""A library loaded with dlopen after start is in map.xml and its functions
are named: hot_loop (75 %) inside libhotlib.so, local_loop (25 %)."""

import os

from harness import (check, check_shares, cleanup, clock_samples, er_dump, finish, gprofng_functions, program, run_gdb,
                     workdir)

work = workdir()
# 1 ms: ~1000 samples, so a share's sampling error (1.4 points) is well
# inside the 3-point tolerance, also on a loaded machine.  Where perf events
# are refused the CPU-time timers fire at the kernel's tick (about 260
# samples, each weighted): the bound is what that many samples allow.
out = run_gdb(["collector profile timer hi", "collector enable", "run"],
              [program("dlopen_main"), program("libhotlib.so"), "1.0"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
with open(os.path.join(exp, "map.xml")) as f:
    check("libhotlib.so" in f.read(), "map.xml records the dlopen'd library")
summary, funcs, raw = er_dump(exp)
print(raw)
total = float(summary.get("cpu_seconds", 0))
samples = clock_samples(summary)
check_shares(funcs, total, {"hot_loop": 75, "local_loop": 25}, "reader", samples=samples)
gfuncs, gtotal, graw = gprofng_functions(exp)
print(graw)
check_shares(gfuncs, gtotal, {"hot_loop": 75, "local_loop": 25}, "gprofng", samples=samples)
cleanup(work)
finish()
