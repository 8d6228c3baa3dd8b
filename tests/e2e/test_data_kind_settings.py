"""Settings of the data kinds (hwprofile, synctrace, heaptrace, mpitrace,
tha): every documented form is accepted and shown by
`collector show`, every malformed one is a clear error, turning one on is
refused plainly when the kind is not implemented (never a silent no-op)
and changes nothing, and while an
experiment is active a setting is a warning that leaves it unchanged.  The
experiment that runs meanwhile records clock data only."""

import os

from harness import (COUNTERS_REFUSED_SAID, PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_TYPE_SOFTWARE, check, check_errors,
                     cleanup, er_dump, finish, kernel_counts, perf_events_refused, program, run_gdb, skip_part,
                     workdir)

work = workdir()
# Context switches are counted in the kernel: refused to a user who may count
# user mode only (kernel.perf_event_paranoid 2), so such a user sets major
# faults instead.
CS_REFUSED = kernel_counts(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, exclude_kernel=False)
CS, CS_ALIAS = ("major-faults", "major-faults") if CS_REFUSED else ("context-switches", "cs")
# Where perf events are refused, counters are refused when typed (with the
# reason): the counter settings that would be taken are checked for that.
NO_COUNTERS = perf_events_refused()
if NO_COUNTERS:
    skip_part("counter settings taken and shown (counters are perf events, which the kernel refuses here; their "
              "refusal when typed checked)")
elif CS_REFUSED:
    skip_part("the cs alias and context-switches set (this user may count user mode only here: %s)"
              % os.strerror(CS_REFUSED))
accepted = [
    "collector hwprofile counter page-faults,on,%s" % CS_ALIAS,
    "collector hwprofile counter %s,100003" % CS,
    "collector hwprofile on",
    "collector hwprofile off",
    "collector synctrace threshold calibrate",
    "collector synctrace threshold on",
    "collector synctrace threshold 0",
    "collector synctrace threshold 250",
    "collector synctrace on",
    "collector synctrace off",
    "collector heaptrace on",
    "collector heaptrace off",
    "collector mpitrace on",
    "collector mpitrace off",
    "collector tha deadlock",
    "collector tha off",
]
refused_on = {
    "collector tha on": "is not built for race detection (it does not use ThreadSanitizer); build it with gcc "
                        "-fsanitize=thread -g",
    "collector tha race,deadlock": "Deadlock detection needs nothing: collector tha deadlock. Nothing was changed.",
}
malformed = {
    "collector hwprofile": "Missing argument",
    "collector hwprofile maybe": 'Invalid argument "maybe"',
    "collector hwprofile counter": 'Invalid argument "counter"',
    "collector hwprofile counter page-faults,,cs": "empty item",
    "collector hwprofile counter page-faults/99": "invalid register",
    # dbx's full syntax, well formed, but not programmed by this version:
    # refused when typed, not at enable.
    "collector hwprofile counter +minor-faults~umask=0x3/1 hi": "backtracking (+), attributes (~) and registers (/)",
    "collector hwprofile counter nonsense": 'unknown counter "nonsense" on this machine',
    "collector hwprofile counter on": "does not follow a counter",
    "collector synctrace threshold soon": 'must be a whole number from 0 to 2147483647, written with the digits '
                                          '0-9 (for example 100); got "soon"',
    "collector synctrace threshold -1": 'got "-1"',
    "collector synctrace threshold \u0661\u0662": 'got "\u0661\u0662"',
    "collector synctrace sometimes": 'Invalid argument "sometimes"',
    "collector heaptrace yes": 'Invalid argument "yes"',
    "collector mpitrace": "Missing argument",
    "collector tha races": 'Invalid argument "races"',
}
commands = accepted + list(refused_on) + list(malformed) + ["collector show", "collector hwprofile list",
                                                            "help collector", "echo still-running\\n"]
out = run_gdb(commands, ["/bin/true"], cwd=work)
print(out)
check_errors(out, refused_on)
check_errors(out, malformed)
check("nothing was changed" in out.lower(), "a refused 'on' says nothing changed")
if NO_COUNTERS:
    check(out.count(COUNTERS_REFUSED_SAID) >= 2 and "HW counter profiling:   off, counters (default" in out,
          "counter lists refused when typed, with the reason; the list stays the default")
else:
    check("HW counter profiling:   off, counters %s,100003\n" % CS in out,
          "show: the last counter list, canonical, hwprofile off again")
    check("Counter overflow profiling: on, counters %s,100003." % CS in out, "hwprofile on: GDB confirms it")
check("Synchronization-wait tracing: on, threshold 250 microseconds." in out, "synctrace on: GDB confirms it")
check("Sync wait tracing:      off, threshold 250 us\n" in out, "show: the sync threshold, tracing off again")
check("Heap tracing: on." in out and "Heap tracing: off." in out, "heaptrace on and off: GDB confirms them")
check("MPI tracing: on." in out and "MPI tracing: off." in out, "mpitrace on and off: GDB confirms them")
for line in ("Heap tracing:           off", "MPI tracing:            off", "Thread analyzer (tha):  off"):
    check(line in out, "show: " + line)
check("Aliases for common counters:" in out and "  faults,100 (`page faults', alias for page-faults; " in out and
      "Counters:" in out and "  page-faults,100 (`page faults (minor and major)'; kernel software counter; events)"
      in out and "  task-clock,10000000 (" in out and "; nanoseconds)" in out and "hardware PMU" in out,
      "hwprofile list shows what this machine offers")
pmu = os.path.isdir("/sys/bus/event_source/devices/cpu")
check(("  cycles,10000003 (" in out) == pmu, "hardware counters are listed exactly when there is a PMU")
for sub in ("hwprofile", "synctrace", "heaptrace", "mpitrace", "tha", "limit", "archive"):
    check("collector %s --" % sub in out, "help collector lists %s" % sub)
check("still-running" in out, "GDB went on after every error")

# While an experiment is active, settings warn and change nothing; the
# experiment has clock data only.
active = run_gdb(["collector enable", "break work_thirty", "run", "collector heaptrace off",
                  "collector hwprofile counter page-faults", "collector limit 5", "collector archive copy",
                  "collector show", "delete", "continue"], [program("split_work"), "0.3", "0"], cwd=work)
print(active)
# (where counters are refused, the counter is refused as such: 3 warnings)
check(active.count("an experiment is active; settings apply to the next experiment") == (3 if NO_COUNTERS else 4) and
      (not NO_COUNTERS or COUNTERS_REFUSED_SAID in active), "every setting during an experiment warns")
check("counters (default: " in active and "Data limit:             2000 MB" in active and
      "Archive:                on" in active, "and changes nothing")
exp = os.path.join(work, "test.1.er")
names = sorted(os.listdir(exp))
check(not any(n in names for n in ("hwcounters", "synctrace", "heaptrace")), "no data file of a kind not asked for")
summary, _, _ = er_dump(exp)
check(int(summary["clock_packets"]) > 0, "clock profiling went on")
cleanup(work)
finish()
