"""The command set: help lists every subcommand, TAB completes them, show and
status report, and every malformed form is a clear GDB error after which
GDB goes on (each -ex runs even after an earlier one failed)."""

from harness import check, check_errors, cleanup, finish, program, run_gdb, workdir

work = workdir()
bad = {
    "collector": "collector needs a subcommand",
    "collector frobnicate": 'Undefined collector command: "frobnicate"',
    "collector profile": "Missing argument",
    "collector profile maybe": 'Invalid argument "maybe"',
    "collector profile timer": "takes one value",
    "collector profile timer 0": "greater than zero",
    "collector profile timer -3": "must be positive",
    "collector profile timer 5000": "above the maximum",
    "collector profile timer 10s": "unknown unit",
    "collector profile timer fast": "not an interval",
    "collector store": "Invalid arguments",
    "collector store experiment noext": 'must end in ".er"',
    "collector store experiment a/b.er": "must not contain '/'",
    "collector store directory /nonexistent/dir": "/nonexistent/dir does not exist",
    "collector store directory /etc/hostname": "/etc/hostname is not a directory",
    "collector enable now": "takes no arguments",
}
commands = list(bad) + [
    "collector profile timer 2.5",
    "collector profile timer 50u",
    "collector profile timer 1234.5u",
    "collector show",
    "collector status",
    "collector version",
    "help collector",
    "complete collector st",
    "complete collector profile ",
    "collector disable",
    "echo still-running\\n",
]
out = run_gdb(commands, [program("exit_paths"), "return", "0.1"], cwd=work)
print(out)
check_errors(out, bad)
check("accepted forms" in out, "timer errors name the accepted forms")
check("Clock-profiling interval set to 2.500 ms." in out, "2.5 -> 2.500 ms reported")
check("set to 0.100 ms (raised to the minimum)" in out, "50u raised to the minimum")
check("set to 1.234 ms (rounded down to the timer resolution)" in out, "1234.5u rounded down")
check("Clock profiling:        on, interval 1.234 ms" in out, "show reports the current interval")
check("No experiment is active." in out, "status without an experiment")
check("gdb-collector 0.1" in out, "version")
for sub in ("enable", "disable", "profile", "store", "status", "show", "version"):
    check("collector %s --" % sub in out, "help collector lists %s" % sub)
check("collector status" in out and "collector store" in out.split("complete collector st")[-1],
      "completion offers status and store")
check("collector profile timer" in out, "completion of profile arguments")
check("the collector is not enabled" in out, "disable without enable warns")
check("still-running" in out, "GDB went on after every error")
cleanup(work)
finish()
