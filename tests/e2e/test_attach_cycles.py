"""20 attach -> collector enable -> detach -> attach -> collector disable ->
detach cycles in a
row on a malloc-heavy multithreaded process in which no thread sleeps: no
hang (every GDB session is bounded by a timeout), each cycle records and
closes its own experiment (test.1.er ... test.20.er), the runtime is loaded
once, and the program's output and exit status are unchanged."""

import os
import signal
import subprocess

from harness import Background, attach_gdb, check, cleanup, er_dump, finish, program, wait_for_data, workdir

CYCLES = 20
work = workdir()
target = Background([program("attach_target"), "600", "busy"], cwd=work)
completed = 0


for cycle in range(1, CYCLES + 1):
    name = os.path.join(work, "test.%d.er" % cycle)
    try:
        # GDB stops every thread while it is attached, so the samples come
        # between two sessions: enable and detach, the threads run, then
        # attach again and disable.
        out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work, timeout=60)
        sampled = "recording %s" % name in out and wait_for_data(name)
        out += attach_gdb(target.pid, ["collector disable", "detach"], cwd=work, timeout=60)
    except subprocess.TimeoutExpired:
        check(False, "cycle %d: GDB did not finish within 60 s" % cycle)
        break
    if not check(sampled and "experiment %s closed" % name in out,
                 "cycle %d: %s recorded samples and closed" % (cycle, os.path.basename(name))):
        print(out)
        break
    completed += 1
check(completed == CYCLES, "%d of %d cycles completed" % (completed, CYCLES))
with open("/proc/%d/maps" % target.pid) as f:
    loaded = {line.split()[-1] for line in f if "libcollector.so" in line}
check(len(loaded) == 1, "the runtime is mapped from one file, loaded once")
experiments = sorted(n for n in os.listdir(work) if n.endswith(".er"))
dumps = {n: er_dump(os.path.join(work, n))[0] for n in experiments}
closed = [n for n in experiments if dumps[n].get("closed") == "yes"]
check(len(closed) == completed, "%d experiments, all closed and readable" % len(closed))
# Three threads that never sleep run through each enable and disable.
empty = [n for n in closed if int(dumps[n].get("ticks", 0)) == 0]
check(closed and not empty, "every cycle's experiment holds samples (none in %s)" % empty)
# The program's own end: SIGUSR1 makes it leave its loop as if its time
# were up; what it prints and returns must be what it always does.
target.proc.send_signal(signal.SIGUSR1)
status, out = target.finish()
check(status == 3 and out.strip().endswith("attach_target: finished, 3 workers, late threads started: yes"),
      "after %d cycles the program exits normally with its own output (status %s)" % (completed, status))
cleanup(work)
finish()
