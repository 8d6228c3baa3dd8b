"""A thread made by the raw clone system call (no pthread_create to
interpose) is sampled: the runtime's scan of /proc/self/task arms it within
100 ms (plus up to one 50 ms cycle).  Launch mode; checked with the reader and gprofng."""

import os

from harness import check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, workdir

work = workdir()
out = run_gdb(["collector enable", "run"], [program("raw_clone"), "1.5"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
summary, funcs, raw = er_dump(exp)
print(raw)
check(int(summary.get("threads", 0)) == 2, "both threads sampled (%s)" % summary.get("threads"))
clone_time = funcs.get("clone_spin", (0, 0))[1]
main_time = funcs.get("main_spin", (0, 0))[1]
# The scan runs every 100 ms, checked each 50 ms cycle: at most about 150 ms
# of the clone'd thread's 1.5 s may be missed (0.25 s allowed).
check(1.5 - 0.25 <= clone_time <= 1.5 + 0.075, "the clone'd thread's 1.5 s of CPU recorded (%.3f s)" % clone_time)
check(abs(main_time - 1.5) <= 0.075, "the main thread's 1.5 s recorded (%.3f s)" % main_time)
gfuncs, gtotal, graw = gprofng_functions(exp)
print(graw)
check("clone_spin" in gfuncs, "gprofng names clone_spin")
cleanup(work)
finish()
