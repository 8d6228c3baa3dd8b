"""A traced kind that is off costs the program nothing: at the
experiment's start the program's call slots that would reach the
runtime's wrapper of a kind that is off call the real function instead
(got_patch.c's col_got_bypass_idle: before, every uncontended
lock+unlock pair passed through two wrappers, 9.3 ns against 5.5).  Read
back in GDB at main: with synctrace and heaptrace off, the program's
`pthread_mutex_lock` and `malloc` slots hold libc's functions; with them
on, they do not (the runtime's wrappers, or the stub that binds to them).
Each part would fail without the other: a slot left to the wrapper, or
a traced kind bypassed."""

import os

from harness import check, finish, program, run_gdb, workdir


def slot(out, name):
    """What `info symbol` said of the slot NAME: the function it holds (GDB
    prints it right after the echoed "SLOT NAME", with no space)."""
    for line in out.splitlines():
        if line.startswith("SLOT " + name):
            return line[len("SLOT " + name):]
    return ""


def read_slots(settings, work):
    commands = list(settings) + ["collector enable", "break main", "run"]
    for name in ("pthread_mutex_lock", "malloc"):
        commands += ["echo SLOT %s " % name, "info symbol *(void **)&'%s@got.plt'" % name]
    commands += ["kill"]
    out = run_gdb(commands, [program("lock_orders")], work)
    print(out)
    return {name: slot(out, name) for name in ("pthread_mutex_lock", "malloc")}


work = workdir()
off = read_slots([], work)
for name, where in off.items():
    check("libc.so" in where, "synctrace and heaptrace off: the program's %s slot holds libc's function (%s)"
          % (name, where))
on = read_slots(["collector synctrace on", "collector heaptrace on"], work)
for name, where in on.items():
    check(where != "" and "libc.so" not in where,
          "synctrace and heaptrace on: the program's %s slot reaches the runtime (%s)" % (name, where))
finish()
