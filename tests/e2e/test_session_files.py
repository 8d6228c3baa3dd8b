"""No file of the collector outlives its experiment.

GDB keeps each session's small shared files (status, control page, trace
ring) in a directory under $XDG_RUNTIME_DIR (else /dev/shm).  Whoever
leaves last, GDB or the sampler process, removes it.  Before, GDB skipped
the removal while the sampler was still ending, and each `gdb -batch` run
left a directory in /dev/shm (1900 of them after a few suites).  Each case
gets its own runtime directory, which must be empty after it:
a run to the end; a detach with the experiment recording on after GDB
exits; GDB killed while the program runs; the sampler killed."""

import os
import signal
import subprocess
import tempfile
import time

from harness import Background, attach_gdb, check, cleanup, finish, program, run_gdb, workdir

work = workdir()


def runtime_dir(name):
    path = tempfile.mkdtemp(prefix=name + "-", dir=work)
    os.environ["XDG_RUNTIME_DIR"] = path  # the programs and GDBs below inherit it
    return path


def left_in(path, wait_s=20.0):
    """What is still in PATH once the processes that may remove it had time
    to end (bounded: a sampler ends within its cycle after its program)."""
    deadline = time.monotonic() + wait_s
    while True:
        found = [os.path.relpath(os.path.join(d, f), path) for d, dirs, files in os.walk(path) for f in dirs + files]
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.1)


# A run to the end, twice in one GDB.
rd = runtime_dir("run")
out = run_gdb(["collector enable", "run", "run"], [program("split_work"), "0.2", "0"], cwd=work)
print(out)
check(out.count("closed (") == 2, "both runs recorded")
check(left_in(rd) == [], "a run to the end leaves nothing in the runtime directory: %s" % left_in(rd, 0))

# Attach, enable, detach: GDB exits while the sampler records on; it removes
# the directory at its end.
rd = runtime_dir("detach")
target = Background([program("attach_target"), "3"], cwd=work)
out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
check("goes on recording" in out, "the experiment goes on after GDB leaves")
check(len(os.listdir(rd)) == 1, "the session's directory stays while the sampler records (%s)" % os.listdir(rd))
status, _ = target.finish()
check(left_in(rd) == [], "after the program's end the sampler removed it: %s" % left_in(rd, 0))

# GDB killed while the program runs under it: the sampler ends with the
# program and, GDB being gone, removes the directory.
rd = runtime_dir("gdbkill")
gdb = subprocess.Popen(["gdb", "-nx", "-batch", "-x", os.path.join(os.environ.get("GDBCOL_BUILD", "build"), "share",
                                                                      "gdb", "collector.gdb"),
                        "-ex", "collector enable", "-ex", "run", "--args", program("split_work"), "1.5", "0"],
                       cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                       start_new_session=True)
deadline = time.monotonic() + 30
while time.monotonic() < deadline and not any(n.startswith("sampler-") for d in os.listdir(rd)
                                              for n in os.listdir(os.path.join(rd, d))):
    time.sleep(0.05)
check(time.monotonic() < deadline, "the sampler started")
os.killpg(gdb.pid, signal.SIGKILL)  # GDB and the program it runs (same session)
gdb.wait()
check(left_in(rd) == [], "GDB and its program killed: the sampler removed the directory: %s" % left_in(rd, 0))

# The sampler killed: GDB, at its exit, sees that no member is left.
rd = runtime_dir("samplerkill")
target = Background([program("attach_target"), "30"], cwd=work)
# (this session's sampler only: others run beside this test)
out = attach_gdb(target.pid, ["collector enable", "shell sleep 0.5",
                              "shell kill -KILL $(ls \"$XDG_RUNTIME_DIR\"/*/ | sed -n 's/^sampler-//p')",
                              "shell sleep 0.3", "detach"], cwd=work)
print(out)
target.proc.send_signal(signal.SIGUSR1)
target.finish()
check(left_in(rd) == [], "sampler killed: GDB removed the directory at its exit: %s" % left_in(rd, 0))

cleanup(work)
finish()
