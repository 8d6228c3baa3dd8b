"""OpenMP programs are not harmed by the runtime's OpenMP wrappers
(libcollector/interpose/omp_interpose.c: libgomp's entry points whose
frames will tell clock samples their OpenMP state).  omp_constructs.c goes
through every construct whose entry point is interposed (parallel regions,
loops, sections, barriers, critical sections, atomics, ordered, locks,
tasks, taskwait, taskgroup, a reduction) and prints a checksum: under the
collector, at launch and after `gdb -p`, the checksum and the exit status
are the program's own, and the program's calls went through the wrappers
(a breakpoint in one is hit: preloaded at launch, through the GOT after the
attach)."""

import os
import re

from harness import (Background, attach_gdb, check, cleanup, finish, program, run_gdb, skip_test, wait_closed,
                     workdir)

os.environ["OMP_NUM_THREADS"] = "2"
PROGRAM = program("omp_constructs")
if not os.path.exists(PROGRAM):
    skip_test("no OpenMP compiler support (gcc -fopenmp, libgomp)")
work = workdir()


def checksum(out):
    m = re.search(r"^checksum (\d+)$", out, re.M)
    return int(m.group(1)) if m else None


native = Background([PROGRAM], work, ready=None)
rc, out = native.finish()
one_round = checksum(native.first_line + "\n" + out)
check(rc == 0 and one_round is not None, "the program alone: checksum %s" % one_round)

# At launch: the breakpoint in a wrapper is hit, the run ends as alone.
out = run_gdb(["collector enable", "set breakpoint pending on", "break col_wrap_GOMP_critical_start", "run", "bt 3", "delete", "continue"],
              [PROGRAM], work)
print(out)
check(re.search(r"#0\s+.*col_wrap_GOMP_critical_start", out) is not None and "_omp_fn" in out,
      "at launch, the program's critical sections go through the runtime's wrapper")
check(checksum(out) == one_round and "exited normally" in out,
      "at launch, the checksum is the program's own (%s, alone %s) and it exits normally" % (checksum(out), one_round))
wait_closed(os.path.join(work, "test.1.er"))

# After an attach: the GOT slots of the running program lead to the wrappers.
rounds = 25
target = Background([PROGRAM, str(rounds)], work)
out = attach_gdb(target.pid, ["collector enable", "sharedlibrary", "break col_wrap_omp_set_lock", "continue", "bt 3", "delete",
                              "detach"], work)
print(out)
check(re.search(r"#0\s+.*col_wrap_omp_set_lock", out) is not None,
      "after the attach, the program's omp_set_lock calls go through the runtime's wrapper")
rc, rest = target.finish()
check(rc == 0 and checksum(rest) == rounds * one_round,
      "after the attach, the checksum is the program's own (%s, alone %s) and it exits 0 (%s)"
      % (checksum(rest), rounds * one_round, rc))
cleanup(work)
finish()
