"""Paths are checked when they are typed (and again at `collector enable`),
with messages that name the actual problem: a missing directory is not "not
a directory", a read-only file system is not "permission denied"; a group
whose directory is missing or whose file is something else, and an
experiment name that is already taken, are errors now rather than an empty
run later.  GDB goes on after each.  Also as an ordinary user, for whom
permission is a real problem."""

import os
import subprocess

from harness import (check, cleanup, finish, run_gdb, shared_workdir, skip_part, unprivileged_prefix)

work = shared_workdir()
os.mkdir(os.path.join(work, "taken.er"))
with open(os.path.join(work, "plain"), "w") as f:
    f.write("x\n")
expected = {
    "collector store directory %s/missing" % work: "%s/missing does not exist" % work,
    "collector store directory %s/plain" % work: "%s/plain is not a directory" % work,
    "collector store group %s/missing/runs.erg" % work: "the group's directory: %s/missing does not exist" % work,
    "collector store group plain.erg": None,  # fine: does not exist yet
    "collector store experiment taken.er": "taken.er already exists in %s" % work,
    # (root passes the access check there, and no directory can be made;
    # an ordinary user is told it may not write there)
    "collector store directory /proc": "cannot store experiments there: %s" % (
        "no directory can be created in /proc" if os.geteuid() == 0 else
        "permission denied: you cannot create files in /proc"),
}
out = run_gdb(list(expected) + ["echo gdb-goes-on\\n"], ["/bin/true"], cwd=work)
print(out)
for command, message in expected.items():
    if message:
        check(message in out, "%s -> %s" % (command, message))
check("Experiments will join the group" in out, "a group that does not exist yet is accepted")
check("gdb-goes-on" in out, "GDB goes on after the errors")

# Taken after it was set: refused at enable, nothing armed.
out = run_gdb(["collector store experiment late.er", "shell mkdir late.er", "collector enable", "collector status",
               "run"], ["/bin/true"], cwd=work)
print(out)
check("collector enable: late.er already exists in %s" % work in out and "Nothing was enabled" in out,
      "a name taken since it was set is refused at enable")
check("Collector is disabled." in out, "and the collector stays disabled")

# A read-only file system (where this machine lets the test mount one).
ro = os.path.join(work, "ro")
os.mkdir(ro)
mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro], capture_output=True).returncode == 0
if mounted:
    out = run_gdb(["collector store directory " + ro], ["/bin/true"], cwd=work)
    print(out)
    check("%s is on a read-only file system" % ro in out, "a read-only file system is named as such")
    subprocess.run(["umount", ro], capture_output=True)
else:
    skip_part("the read-only file system case (cannot mount a file system here)")

prefix = unprivileged_prefix()
if prefix:
    locked = os.path.join(work, "locked")
    os.mkdir(locked, 0o755)  # root's, not writable by the ordinary user
    out = run_gdb(["collector store directory " + locked, "collector store group %s/g.erg" % locked,
                   "echo gdb-goes-on\\n"], ["/bin/true"], cwd=work, prefix=prefix)
    print(out)
    check("permission denied: you cannot create files in %s" % locked in out, "ordinary user: permission denied")
    check(out.count("permission denied") == 2 and "gdb-goes-on" in out, "for the group too, and GDB goes on")
    # The program's working directory, where the experiment goes when no
    # store directory is set: refused at enable (before, nothing was
    # recorded, and that was said when the run had ended).
    out = run_gdb(["collector enable", "run"], ["/bin/true"], cwd=locked, prefix=prefix)
    print(out)
    check("collector enable: the experiment goes in the program's working directory, and permission denied: you "
          "cannot create files in %s" % locked in out and "Nothing was enabled" in out and
          "no experiment was recorded" not in out, "ordinary user in a directory of root's: refused at enable")

# A numbered name is the next free one when the run starts: said so (three
# GDBs launching into one directory each said "records test.1.er").
out = run_gdb(["collector store directory " + work, "collector enable"], ["/bin/true"], cwd=work)
check("Collector enabled: the next run records test.N.er, the next free number (test.1.er as of now), in %s." % work
      in out, "enable names the numbered experiment as the next free number")

# A fixed name, and the collector still enabled for the next run: said at
# the end of the first run (before, only at the end of the second).
out = run_gdb(["collector store experiment fixed.er", "collector enable", "run"], ["/bin/true"], cwd=work)
print(out)
check("collector: the next run is not recorded as it stands: fixed.er already exists in %s" % work in out,
      "a fixed name used once: the end of the run says the next run would not be recorded")
cleanup(work)
finish()
