"""The smaller things a dbx user meets first (issue 24): `collector store
experiment` with no name goes back to test.N.er (before: an error);
counter forms this version cannot program (+, /REGISTER, ~ATTR) are
refused when typed, with the reason, and change nothing (before: accepted,
refused at enable); `help collector hwprofile` says that counters without
`collector profile` turn clock profiling off, as they do; `collector tha
deadlock` is taken (deadlocks need no instrumentation), `collector tha
race` for a program built without -fsanitize=thread refused plainly,
saying how to build it."""

import os
import re

from harness import COUNTERS_REFUSED_SAID, check, cleanup, finish, perf_events_refused, program, run_gdb, workdir

work = workdir()
out = run_gdb(["collector store experiment named.er", "collector store experiment", "collector enable", "run"],
              [program("split_work"), "0.1", "0"], cwd=work)
print(out)
check("Experiments will be named test.N.er." in out and os.path.isdir(os.path.join(work, "test.1.er")) and
      not os.path.exists(os.path.join(work, "named.er")),
      "store experiment without a name: back to test.N.er")

out = run_gdb(["collector hwprofile counter page-faults", "collector hwprofile counter +page-faults",
               "collector hwprofile counter page-faults/1", "collector hwprofile counter page-faults~umask=1",
               "collector show hwprofile", "help collector hwprofile", "collector tha deadlock",
               "collector tha race", "echo still-running\\n"], ["/bin/true"], cwd=work)
print(out)
check(out.count("this version programs none") + out.count("backtracking (+), attributes (~) and registers (/)") >= 3
      and out.count("Nothing was changed.") >= 3, "+, /REGISTER and ~ATTR refused when typed, with the reason")
# (where perf events are refused, the first list was refused too: the
# default stays, said)
KEPT = "(default" if perf_events_refused() else "page-faults,on\n"
check("HW counter profiling:   off, counters " + KEPT in out and
      (not perf_events_refused() or COUNTERS_REFUSED_SAID in out), "and the counter list stays as it was")
check("turn clock\nprofiling off for that experiment, as in dbx" in out, "help says counters turn clock profiling off")
check("Thread-analyzer data: deadlock detection" in out and
      re.search(r"collector tha race: \S+ is not built for race detection \(it does not use ThreadSanitizer\); build "
                r"it with gcc -fsanitize=thread -g", out) is not None,
      "tha deadlock: taken; tha race on a program built without -fsanitize=thread: refused, saying how to build it")
check("still-running" in out, "GDB went on after every refusal")
cleanup(work)
finish()
