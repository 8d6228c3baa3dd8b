"""Attach mode refuses or fails clearly, GDB goes on, and the target is
unharmed: a static executable, a musl process, a process another tracer
holds (ptrace refused), a process that exits during the injection, an
experiment directory that cannot be created, and an inferior call that
never returns (the watchdog interrupts it and GDB restores the thread)."""

import os
import subprocess
import time

from harness import (Background, attach_gdb, check, cleanup, finish, program, skip_part, wait_closed, workdir)

ALIVE = "echo gdb-still-works\\n"
work = workdir()


def refused(name, args, expect, final_line, status=0):
    target = Background(args, cwd=work)
    out = attach_gdb(target.pid, ["collector enable", ALIVE], cwd=work)
    print(out)
    check(expect in out, "%s: GDB says %r" % (name, expect))
    check("gdb-still-works" in out, "%s: GDB goes on after the error" % name)
    code, rest = target.finish()
    check(code == status and rest.strip().endswith(final_line),
          "%s: the program ran to its normal end (status %s)" % (name, code))
    check(not any(n.endswith(".er") for n in os.listdir(work)), "%s: no experiment directory was left" % name)


refused("static", [program("sleeper_static"), "2"], "is a static executable", "sleeper done")
if os.path.exists(program("sleeper_musl")):
    refused("musl", [program("sleeper_musl"), "2"], "runs on musl libc", "sleeper done")
else:
    check(False, "musl: sleeper_musl was not built (install musl-tools)")

# ptrace refused: the target already has a tracer (its parent), which the
# kernel enforces for every user, root included.
parent = Background([program("traced_child"), "3"], cwd=work, ready=None)
child = int(parent.first_line)
out = attach_gdb(child, ["collector enable", ALIVE], cwd=work)
print(out)
check("GDB is not attached to process %d: it is already traced by process %d" % (child, parent.pid) in out,
      "ptrace refused: the message names the tracer")
check("gdb-still-works" in out, "ptrace refused: GDB goes on")
parent.finish()

# The process ends while the runtime is being loaded: an audit library
# calls _exit(5) when the loader opens libcollector.so, inside GDB's call.
target = Background([program("attach_target"), "10"], cwd=work,
                    env={"LD_AUDIT": program("libexit_on_runtime_audit.so")})
out = attach_gdb(target.pid, ["collector enable", ALIVE], cwd=work)
print(out)
check("process %d exited while GDB was loading the runtime; no experiment was started" % target.pid in out,
      "exit during injection: said plainly")
check(not any(n.endswith(".er") for n in os.listdir(work)), "exit during injection: no experiment directory was left")
check("gdb-still-works" in out, "exit during injection: GDB goes on")
code, _ = target.finish()
check(code == 5, "exit during injection: the program's own exit status (%s)" % code)

# The experiment directory disappears between `store directory` and enable:
# refused before anything is loaded.
gone = os.path.join(work, "gone")
os.mkdir(gone)
target = Background([program("attach_target"), "3"], cwd=work)
out = attach_gdb(target.pid, ["collector store directory " + gone, "shell rmdir " + gone, "collector enable",
                              ALIVE], cwd=work)
print(out)
check("collector enable: cannot store experiments there: %s does not exist. Nothing was started." % gone in out,
      "vanished directory: refused at enable, naming the problem")
code, rest = target.finish()
check(code == 3 and "late threads started: yes" in rest, "vanished directory: the program ran on (status %s)" % code)

# A directory with no room left: the runtime's own reason reaches the user
# (where the test can mount a small file system).
full = os.path.join(work, "full")
os.mkdir(full)
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", full], capture_output=True).returncode == 0:
    try:
        try:
            with open(os.path.join(full, "filler"), "wb") as f:
                f.write(b"\0" * 8192)
        except OSError:
            pass  # full: what the case needs
        target = Background([program("attach_target"), "3"], cwd=work)
        out = attach_gdb(target.pid, ["collector store directory " + full, "collector enable", ALIVE], cwd=work)
        print(out)
        check("no experiment in process %d: nothing could be written to %s/test.1.er: No space left on device"
              % (target.pid, full) in out, "full disk: the runtime's reason reaches the user")
        code, rest = target.finish()
        check(code == 3 and "late threads started: yes" in rest, "full disk: the program ran on (status %s)" % code)
    finally:
        subprocess.run(["umount", full], capture_output=True)
else:
    skip_part("the full-disk case (cannot mount a file system here)")

# A call that never returns (pause) is interrupted by the watchdog; the
# process goes on and exits normally.  It sleeps 10 s: with 3, a loaded
# machine started GDB after it had ended (a zombie GDB could not attach).
target = Background([program("sleeper"), "10"], cwd=work)
script = "\n".join([
    "python",
    "from gdb_collector import native",
    "from gdb_collector.inferior_calls import CallSession, CallTimeout",
    "pid = gdb.selected_inferior().pid",
    "kind, libc, loader = native.process_kind(pid)",
    "with CallSession(pid, [libc, loader], 2.0) as calls:",
    "    calls.choose_thread()",
    "    try:",
    "        calls.run('((int (*)(void))0x%x)()' % native.process_symbol(pid, libc, 'pause'))",
    "        print('call returned')",
    "    except CallTimeout:",
    "        print('watchdog interrupted the call')",
    "end",
])
script_path = os.path.join(work, "hang.gdb")
with open(script_path, "w") as f:
    f.write(script + "\n")
out = attach_gdb(target.pid, ["source " + script_path, ALIVE], cwd=work, timeout=60)
print(out)
check("watchdog interrupted the call" in out, "a call that never returns is interrupted")
check("gdb-still-works" in out, "GDB goes on after the watchdog")
code, rest = target.finish()
check(code == 0 and rest.strip().endswith("sleeper done"), "the process went on to its normal end (%s)" % code)
os.unlink(script_path)

# A process that records (GDB 1 enabled and detached), held by another
# tracer: a GDB that cannot attach does not say that nothing records there.
target = Background([program("sleeper"), "8"], cwd=work)
out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
holder = subprocess.Popen(["gdb", "-nx", "-batch", "-p", str(target.pid), "-ex", "shell sleep 4"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
time.sleep(1.5)
out = attach_gdb(target.pid, ["collector status", ALIVE], cwd=work)
print(out)
check("No experiment is active in this GDB session. Process %d has the collector's runtime loaded" % target.pid in out
      and "already traced by process %d" % holder.pid in out,
      "a second GDB that cannot attach: the runtime is in the process, and why this GDB cannot ask it")
holder.wait()
target.finish()
wait_closed(*(os.path.join(work, name) for name in os.listdir(work) if name.endswith(".er")))  # (before the cleanup)

cleanup(work)
finish()
