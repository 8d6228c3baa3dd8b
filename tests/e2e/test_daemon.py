"""A daemon (fork, fork, setsid, descriptors 0 to 2 closed, work in the
grandchild) under the in-process sampler: only the sampler process follows
descendants, so the daemon's work is not recorded; GDB says so once, and
log.xml warns (before: nothing was said, the work simply did not appear).
(The default mode records it as _f1_f1.er; the issue's occasional loss
there is not fixed yet.)"""

import os
import re

from harness import check, cleanup, er_dump, finish, program, run_gdb, workdir

work = workdir()
truth = os.path.join(work, "daemon.truth")
out = run_gdb(["collector enable", "run"], [program("daemonize"), truth, "0.5"], cwd=work,
              env={"GDBCOL_CLOCK_SOURCE": "timer"})
print(out)
check(os.path.exists(truth), "the daemon did its work")
check(re.search(r"closed \(.*\d+ process\(es\) it forked not recorded \(sampled from inside", out) is not None,
      "GDB's closing line says the forked processes were not recorded, and why")
summary, _, raw = er_dump(os.path.join(work, "test.1.er"))
check("were not recorded: the sampler inside the program records the program only" in raw, "log.xml warns")
cleanup(work)
finish()
