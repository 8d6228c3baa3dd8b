"""dbx's obsolete collector commands still work in old scripts:
enable_once and address_space warn and are ignored; close and quit warn
without an experiment and act as disable with one."""

import os

from harness import check, cleanup, er_dump, finish, program, run_gdb, workdir

work = workdir()
out = run_gdb(["collector enable_once", "collector address_space on", "collector address_space sideways",
               "collector close", "collector quit", "collector enable", "break work_thirty", "run",
               "collector close", "collector status", "delete", "continue", "echo gdb-still-works\\n"],
              [program("split_work"), "0.3", "0"], cwd=work)
print(out)
check('"collector enable_once" is obsolete and ignored' in out, "enable_once: warned and ignored")
check('"collector address_space" is no longer supported; ignored' in out, "address_space on: warned and ignored")
check('collector address_space takes on or off (got "sideways")' in out, "address_space with a bad value: error")
check('no experiment is active; "collector close" (obsolete) ignored' in out, "close without an experiment: warned")
check('no experiment is active; "collector quit" (obsolete) ignored' in out, "quit without an experiment: warned")
check("it does what \"collector disable\" does" in out and "closed (" in out,
      "close with an experiment: closes it, as disable")
check("No experiment is active." in out, "after close, no experiment is active")
summary, _, _ = er_dump(os.path.join(work, "test.1.er"))
check(summary.get("closed") == "yes", "the experiment closed by close is complete")
check("gdb-still-works" in out, "GDB goes on")
cleanup(work)
finish()
