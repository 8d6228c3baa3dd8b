"""Every end is told as it happened (issue 25).

The sampler process killed mid-run (kill -9): the program finishes
normally; GDB says the sampler ended before the experiment closed and that
the program was not harmed (before: "the process ended without closing
... (killed or crashed)", blaming the program); log.xml gets a warning and
an end at the last record (before: none), which gprofng and our reader read.

The sampler process told to end (SIGTERM, as a user or GDB sends it): the
experiment closes while the program runs on, and both GDB and log.xml say
it ended before the program did, and why (before: "closed" and a plain
exit event, as if the program had exited then).

GDB killed while the program it launched runs (GDB's death takes the
program with it): the experiment says the program ended without exiting
(before: a plain exit event, as if it had exited)."""

import os
import signal
import subprocess
import threading
import time

from harness import (COLLECTOR_GDB, check, cleanup, er_dump, finish, gprofng_functions, private_runtime_dir, program,
                     run_gdb, session_sampler_pid, wait_for_data, workdir)

work = workdir()
RUNTIME = private_runtime_dir(work)  # this test's samplers only


killed = []


def kill_sampler_once_recording(profile, sig=signal.SIGKILL):
    """Sends SIG to the sampler once some samples reached PROFILE (a loaded
    machine may start the program late), mid-run."""
    pid = session_sampler_pid(RUNTIME)
    deadline = time.monotonic() + 30
    while pid is not None and time.monotonic() < deadline and \
            not (os.path.exists(profile) and os.path.getsize(profile) > 4096):
        time.sleep(0.02)
    if pid is not None:
        os.kill(pid, sig)
        killed.append(pid)


killer = threading.Thread(target=kill_sampler_once_recording,
                          args=(os.path.join(work, "sampler_killed.er", "profile"),))
killer.start()
out = run_gdb(["collector store experiment sampler_killed.er", "collector enable", "run"],
              [program("split_work"), "2.0", "0"], cwd=work)
killer.join()
print(out)
check(killed, "the sampler process was killed mid-run")
check("exited normally" in out and "cpu_seconds=" in out, "the program finished normally")
check("the sampler process (pid %d) ended before experiment" % (killed[0] if killed else 0) in out and
      "the program was not harmed" in out and "killed or crashed" not in out,
      "GDB says the sampler ended, not the program")
exp = os.path.join(work, "sampler_killed.er")
summary, _, raw = er_dump(exp)
check(summary.get("ended_by") == "the sampler process died (end marked by GDB)" and
      "The sampler process ended before the experiment closed" in raw,
      "log.xml records the end and why (%s)" % summary.get("ended_by"))
_, total, _ = gprofng_functions(exp)
check(total > 0 and abs(total - float(summary.get("cpu_seconds", 0))) < 0.011,
      "gprofng reads what was recorded up to the kill (%.3f s)" % total)

# The sampler told to end: the experiment closes, the program runs on.
killed.clear()
killer = threading.Thread(target=kill_sampler_once_recording,
                          args=(os.path.join(work, "sampler_ended.er", "profile"), signal.SIGTERM))
killer.start()
out = run_gdb(["collector store experiment sampler_ended.er", "collector enable", "run"],
              [program("split_work"), "2.0", "0"], cwd=work)
killer.join()
print(out)
check(killed and "exited normally" in out, "the sampler was told to end mid-run; the program finished normally")
check("it ended before the program did: the sampler process was asked to end" in out,
      "GDB says the experiment ended before the program, and why")
exp = os.path.join(work, "sampler_ended.er")
summary, _, raw = er_dump(exp)
check(summary.get("ended_by", "").startswith("the collector, before the program (the sampler process was asked") and
      "The experiment ended before the program did" in raw, "log.xml records the early end and why (%s)"
      % summary.get("ended_by"))
_, total, _ = gprofng_functions(exp)
check(total > 0 and abs(total - float(summary.get("cpu_seconds", 0))) < 0.011,
      "gprofng reads the experiment that ended early (%.3f s)" % total)

# GDB killed while its program runs.
gdb = subprocess.Popen(["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector store experiment gdb_killed.er",
                        "-ex", "collector enable", "-ex", "run", "--args", program("split_work"), "3.0", "0"],
                       cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
check(session_sampler_pid(RUNTIME) is not None, "the program runs under the collector")
exp = os.path.join(work, "gdb_killed.er")
# Killed once samples are on disk, not after a fixed time: beside two busy
# loops 0.8 s had left the program none (0.000 s recorded).
check(wait_for_data(exp, timeout_s=30.0), "samples of the program reach the experiment before GDB is killed")
gdb.kill()
gdb.wait()
deadline = time.monotonic() + 30
while time.monotonic() < deadline and 'kind="exit"' not in open(os.path.join(exp, "log.xml"), errors="replace").read():
    time.sleep(0.1)  # the sampler closes it when the program is gone
summary, _, raw = er_dump(exp)
check(summary.get("ended_by") == "killed (the program ended without exiting)" and
      "The program ended without its runtime seeing an exit" in raw, "the experiment says the program did not exit (%s)"
      % summary.get("ended_by"))
_, total, _ = gprofng_functions(exp)
check(total > 0 and abs(total - float(summary.get("cpu_seconds", 0))) < 0.011,
      "gprofng reads what was recorded until then (%.3f s, our reader %s)" % (total, summary.get("cpu_seconds")))
cleanup(work)
finish()
