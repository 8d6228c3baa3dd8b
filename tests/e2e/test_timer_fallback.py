"""Where perf_event_open is refused, per-thread POSIX CPU timers take over;
the log says which source ran, and CPU time and shares stay true (samples
weighted by timer overruns).  The stack-walking libraries the runtime loads
to sample from inside are its own, not the program's load objects; where
they cannot be loaded GDB says so and the program runs as without GDB."""

import os
import subprocess

from harness import check, check_split_work, cleanup, finish, program, run_gdb, workdir

work = workdir()
out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=timer", "collector enable", "run"],
              [program("split_work"), "2.5", "1"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
summary = check_split_work(exp, out, "timer source")
check(any("POSIX CPU-time timers" in c for c in summary["comments"]), "log.xml says the timer source ran")
mapped = open(os.path.join(exp, "map.xml")).read()
check("libdw" not in mapped and "libunwind" not in mapped,
      "the stack-walking libraries the runtime loaded are not listed as the program's")

# A libdw.so.1 the loader finds first that is not elfutils' (an empty one).
fake = os.path.join(work, "fake-libs")
os.makedirs(fake)
source = os.path.join(fake, "empty.c")
with open(source, "w") as f:
    f.write("int not_libdw;\n")
subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libdw.so.1", "-o", os.path.join(fake, "libdw.so.1"), source],
               check=True)
out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=timer", "set environment LD_LIBRARY_PATH=" + fake,
               "collector store experiment no_walk.er", "collector enable", "run"],
              [program("split_work"), "0.3", "1"], cwd=work)
print(out)
check("no experiment was recorded: sampling from inside the program needs its stack-walking libraries: "
      "libdw.so.1 lacks dwarf_begin_elf" in out, "GDB says the runtime could not load its stack-walking libraries")
check("exited normally" in out and "cpu_seconds=" in out, "the program ran to its end as usual")
cleanup(work)
finish()
