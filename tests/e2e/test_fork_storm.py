"""Fork storms: whatever the rate of forks, everything of the collector
ends and every sub-experiment is closed within seconds of the last
process's exit.  Before, after 2000 fork()s the founder's sampler spun at
90 % of a CPU for minutes (the program's pidfd, readable once it ended,
stayed in its wait set) and waited for ever for writers whose process's
end record the kernel had lost (its rings overflow in such a storm), so
12-18 sub-experiments were never closed; 250 vfork+exec and 250
posix_spawn left 8 collector processes.  Here: 2000 forks (as root and as
an ordinary user), 250 vfork+exec and 250 posix_spawn; no process of the
collector alive 10 s after GDB returned, every sub-experiment closed
(er-dump), the program's output unchanged, gprofng reads the founder."""

import os
import time

from harness import (check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, shared_workdir,
                     unprivileged_prefix)

DESC = program("descendants")
SAMPLER = os.path.join(os.environ.get("GDBCOL_BUILD", "build"), "libcollector", "gdbcol-sampler")


def collector_processes(args):
    """Processes of the sampler (the founder's and its writers) whose
    command line names this run's program and ARGS."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"gdbcol-sampler") and [a.encode() for a in [DESC] + args] == \
                [a for a in argv if a][-len(args) - 1:]:
            found.append(int(pid))
    return found


def storm(label, args, expected_output, prefix=()):
    work = shared_workdir()  # each storm's own: test.1.er is its founder
    out = run_gdb(["collector enable", "run"], [DESC] + args, cwd=work, prefix=prefix, timeout=600)
    returned = time.monotonic()
    print(out[-3000:])
    check(expected_output in out, "%s: the program's output is unchanged (%s)" % (label, expected_output))
    left = collector_processes(args)
    while left and time.monotonic() - returned < 10:
        time.sleep(0.2)
        left = collector_processes(args)
    check(not left, "%s: no collector process 10 s after GDB returned (%d left: %s)" % (label, len(left), left[:8]))
    if not left:
        print("%s: the last collector process ended %.1f s after GDB returned" % (label, time.monotonic() - returned))
    founder = os.path.join(work, "test.1.er")
    names = sorted(n for n in os.listdir(founder) if n.startswith("_") and n.endswith(".er"))
    unclosed = [n for n in names if er_dump(os.path.join(founder, n), expect_status=None)[0].get("closed") != "yes"]
    check(names and not unclosed, "%s: every sub-experiment is closed (%d; not: %s)" % (label, len(names), unclosed[:8]))
    found_gone = [n for n in names if "end record" in open(os.path.join(founder, n, "log.xml")).read()]
    print("%s: %d sub-experiment(s) ended from /proc, their end record lost (their log says so)"
          % (label, len(found_gone)))
    summary, _, _ = er_dump(founder)
    check(summary.get("closed") == "yes", "%s: the founder's experiment is closed" % label)
    funcs, total, raw = gprofng_functions(founder)
    check("<Total>" in raw, "%s: gprofng reads the founder" % label)
    cleanup(founder)


# MS values of their own: the processes found are this test's.
storm("2000 forks", ["forks", "2000", "0.0011"], "children=2000")
storm("250 vfork+exec", ["vforks", "250", "0.0012"], "children=250")
storm("250 posix_spawn", ["spawns", "250", "0.0013"], "children=250")
prefix = unprivileged_prefix()
if prefix:
    storm("2000 forks as nobody", ["forks", "2000", "0.0014"], "children=2000", prefix=prefix)
finish()
