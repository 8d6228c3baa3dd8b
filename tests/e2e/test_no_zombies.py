"""Nothing of the collector is left under a PID 1 that never reaps (a
container whose program runs without an init, Docker's default).  Before,
every run's sampler process left GDB's process tree at its start, so at
its end it was a zombie of PID 1: one per run, piling up where PID 1 does
not reap.  Now the sampler process is a child of GDB wherever GDB started
the program or attached to it, and GDB reaps it.

Each case runs in a PID namespace of its own whose PID 1
(tests/programs/reaps_nothing) runs GDB (or a driver that attaches it) as
its only child, reaps that child alone, and then lists every process left:
none may be left.  Cases: a launch, a launch with startup-with-shell off
(the runtime starts the sampler process), a launch whose program GDB kills
at its exit, and `gdb -p` with the program ending while GDB is attached.
As root, and as an ordinary user (in a user namespace of its own).  Each
case also checks that the experiment closed with the program's CPU, so a
run that recorded nothing cannot pass.  After a detach the sampler process
outlives GDB by design (it records until the program ends): what is left
then is printed, not checked (docs/design.md says why)."""

import os
import shutil
import subprocess

from harness import (COLLECTOR_GDB, check, cleanup, er_dump, finish, program, shared_workdir, skip_part,
                     skip_test, unprivileged_prefix)

REAPS_NOTHING = program("reaps_nothing")
ATTACHED = [program("exec_after_work"), "fail", "wait"]
WAIT_S = "20"

# Inside the namespace: starts the program, attaches GDB to it, waits for
# the program (so that only the collector's processes can be left).  Run
# by the python3 on the PATH: an ordinary user may not reach this one's.
ATTACH_DRIVER = r"""
import subprocess, sys
gdb_cmd, target = sys.argv[1:sys.argv.index("--")], sys.argv[sys.argv.index("--") + 1:]
p = subprocess.Popen(target, stdout=subprocess.PIPE, text=True)
assert p.stdout.readline().strip() == "ready"
cmd = gdb_cmd + ["-p", str(p.pid)]
r = subprocess.run(cmd, capture_output=True, text=True)
sys.stdout.write(r.stdout + r.stderr)
sys.stdout.write(p.communicate()[0])
print("program exit", p.returncode)
"""


def namespace_prefix(as_user):
    """The command prefix that runs a command as PID 1's only child in a new
    PID namespace (AS_USER: as nobody, in a user namespace of its own), or
    None when this machine cannot make one (said)."""
    base = ["unshare", "--pid", "--fork", "--mount-proc"]
    prefix = []
    if as_user:
        prefix = unprivileged_prefix()
        if prefix is None:
            return None
        if prefix or os.geteuid() != 0:
            base = ["unshare", "--map-current-user", "--pid", "--fork", "--mount-proc"]
    full = list(prefix) + base + [REAPS_NOTHING, WAIT_S]
    probe = subprocess.run(full + ["true"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if probe.returncode != 0 or "left none" not in probe.stdout:
        skip_part("no PID namespace%s here: %s" % (" as an ordinary user" if as_user else "",
                                                  (probe.stderr.strip() or probe.stdout.strip()).splitlines()[-1:]))
        return None
    return full


def gdb_command(commands):
    cmd = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB]
    for c in commands:
        cmd += ["-ex", c]
    return cmd


def leftovers(out):
    return [line for line in out.splitlines() if line.startswith("left ") and line != "left none"]


def one_case(label, prefix, work, commands, program_args, attach=False, expect_left=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_") and k != "LD_PRELOAD"}
    env.update(HOME=work, SHELL="/bin/sh")
    if attach:
        cmd = prefix + ["python3", "-c", ATTACH_DRIVER] + gdb_command(commands + ["continue"]) + \
            ["--"] + program_args
    else:
        cmd = prefix + gdb_command(commands) + ["--args"] + program_args
    done = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300, env=env,
                          stdin=subprocess.DEVNULL)
    out = done.stdout + done.stderr
    print("== %s\n%s" % (label, out[-4000:]))
    check("left none" in out or "left " in out, "%s: PID 1 listed what was left" % label)
    left = leftovers(out)
    if expect_left:
        check(not left, "%s: nothing left under a PID 1 that never reaps (%s)" % (label, left))
    else:
        print("%s: left after GDB's exit (not checked): %s" % (label, left or "nothing"))
    exp = os.path.join(work, "test.1.er")
    summary, funcs, _ = er_dump(exp)
    check(summary.get("closed") == "yes", "%s: the experiment is closed" % label)
    check(float(summary.get("ticks", 0) or 0) > 0, "%s: the program's CPU is recorded (%s ticks)"
          % (label, summary.get("ticks")))
    cleanup(exp)


def cases(as_user):
    prefix = namespace_prefix(as_user)
    if prefix is None:
        return 0
    who = "as an ordinary user" if as_user else "as this user"
    busy = [program("split_work")]
    for label, commands, args, attach, checked in [
        ("launch", ["collector enable", "run"], busy, False, True),
        ("launch, startup-with-shell off", ["set startup-with-shell off", "collector enable", "run"], busy, False,
         True),
        ("launch, program killed at GDB's exit", ["break spin", "collector enable", "run", "continue"], busy, False,
         True),
        ("gdb -p, the program ends while attached", ["collector enable"], ATTACHED, True, True),
        ("gdb -p, detached before the program ends", ["collector enable", "detach"], ATTACHED, True, False),
    ]:
        work = shared_workdir()
        one_case("%s, %s" % (label, who), prefix, work, commands, args, attach=attach, expect_left=checked)
        shutil.rmtree(work, ignore_errors=True)
    return 1


if shutil.which("unshare") is None:
    skip_test("no unshare here (util-linux): no PID namespace to run in")
ran = cases(as_user=False)
if os.geteuid() == 0:
    ran += cases(as_user=True)
if not ran:
    skip_test("no PID namespace could be made here")
finish()
