"""`collector enable` after an attach chooses the thread that lends itself
to its calls from walks of the threads' stacks it makes itself
(gdb-plugin/native/thread_walk.c: GDB's own first unwind waits for its
index of the C library's debug information, 15-20 ms of the process
stopped).  Here that walk is held against GDB's frames, thread by thread,
in the states thread_states holds its threads in (the C library, the
program's code, the vDSO, a signal handler, 300 calls deep, a condition
variable, a qsort comparison), over three attaches: the same frames, the
same verdict on each thread; the deep one left to GDB.  Then an enable in
that process records."""

import os
import re
import signal

from harness import Background, attach_gdb, check, er_dump, finish, program, wait_closed, wait_for_data, workdir

COMPARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "thread_walk_compare.py")
# Whether each thread may lend itself to a call, as its state decides.
VERDICTS = {"thread_states": True, "spinner": True, "handler": False, "waiter": False, "sorter": False}

work = workdir()
target = Background([program("thread_states")], cwd=work)
for attempt in range(3):
    out = attach_gdb(target.pid, ["source " + COMPARE, "detach"], cwd=work)
    print(out)
    walks = {m.group(1): m.groupdict() for m in re.finditer(
        r"^WALK (?P<name>\S+) native=(?P<native>\S+) gdb=(?P<gdb>\d+) same=(?P<same>\S+) "
        r"safe=(?P<by_native>\S+)/(?P<by_gdb>\S+)$", out, re.M)}
    label = "attach %d" % (attempt + 1)
    check(len(walks) == 7, "%s: every thread of 7 compared (%d)" % (label, len(walks)))
    for name, walk in sorted(walks.items()):
        if name == "deep":
            check(walk["native"] == "-" and int(walk["gdb"]) > 256,
                  "%s: 300 calls deep (%s frames by GDB): not walked to its end, left to GDB" % (label, walk["gdb"]))
            continue
        check(walk["native"] != "-" and walk["same"] == "yes",
              "%s, thread %s: walked to its outermost frame (%s frames), the frames GDB shows (%s) the same"
              % (label, name, walk["native"], walk["gdb"]))
        check(walk["by_native"] == walk["by_gdb"],
              "%s, thread %s: the same verdict from both walks (%s, GDB %s)" % (label, name, walk["by_native"],
                                                                                walk["by_gdb"]))
        if name in VERDICTS:
            check(walk["by_gdb"] == str(VERDICTS[name]),
                  "%s, thread %s: %s lend itself to a call" % (label, name, "may" if VERDICTS[name] else "may not"))

out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
check("Collector enabled in process %d" % target.pid in out, "collector enable in that process")
check(wait_for_data(exp), "the experiment gets samples")
target.proc.send_signal(signal.SIGTERM)
target.finish()
wait_closed(exp)
summary, funcs, _ = er_dump(exp)
check(funcs.get("spinner", (0, 0))[1] > 0, "the spinning thread's function recorded (%s)" % (funcs.get("spinner"),))
finish()
