"""A launched program after `collector disable`: `collector enable` starts a
new experiment in the same process with the runtime already there (not
loaded again, no GOT patching: the preload already interposes), and that
experiment closes when the program exits."""

import os

from harness import check, cleanup, er_dump, finish, program, run_gdb, workdir

work = workdir()
out = run_gdb(["collector enable", "break work_thirty", "run", "collector disable", "collector enable",
               "delete", "continue"], [program("split_work"), "0.5", "1"], cwd=work)
print(out)
first, second = os.path.join(work, "test.1.er"), os.path.join(work, "test.2.er")
check("experiment %s closed" % first in out, "disable at a breakpoint closes test.1.er")
check("Collector enabled in process" in out and "recording %s" % second in out,
      "enable in the stopped program starts test.2.er")
check("experiment %s closed" % second in out, "test.2.er closes at the program's exit")
for exp in (first, second):
    summary, funcs, raw = er_dump(exp)
    print(raw)
    check(summary.get("closed") == "yes" and int(summary.get("clock_packets", 0)) > 0,
          "%s: closed, with samples" % os.path.basename(exp))
summary, funcs, raw = er_dump(second)
check(not any("GOT patching" in c for c in summary["comments"]),
      "no GOT patching in a preloaded process")
check(int(summary.get("threads", 0)) == 2, "test.2.er samples both threads (%s)" % summary.get("threads"))
check("work_twenty" in funcs, "test.2.er has the work after the breakpoint")
cleanup(work)
finish()
