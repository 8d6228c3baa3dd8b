"""Installing: `cmake --install BUILD --prefix DIR` into a fresh directory
as an ordinary user prints a `source` line naming a file that exists, and
plain `gdb -x` of that file has the `collector` commands, which record an
experiment with the installed runtime and report it with the installed
gdbcol-report; DESTDIR packaging writes every file under DESTDIR, naming
the final prefix inside, and leaves the system's GDB alone."""

import os
import re
import subprocess

from harness import (BUILD, check, cleanup, finish, program, shared_workdir, skip_test, unprivileged_prefix,
                     workdir)

SPLIT = program("split_work")


def install(prefix_cmd, prefix, env=None):
    done = subprocess.run(list(prefix_cmd) + ["cmake", "--install", os.path.abspath(BUILD), "--prefix", prefix],
                          capture_output=True, text=True, timeout=300, env=env)
    return done.returncode, done.stdout + done.stderr


def plain_gdb(prefix_cmd, gdb_file, commands, args, cwd):
    cmd = list(prefix_cmd) + ["gdb", "-nx", "-batch", "-x", gdb_file]
    for c in commands:
        cmd += ["-ex", c]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}
    env.update(HOME=cwd, SHELL="/bin/sh")
    done = subprocess.run(cmd + ["--args"] + args, capture_output=True, text=True, timeout=120, cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL)
    return done.stdout + done.stderr


prefix_cmd = unprivileged_prefix()
if prefix_cmd is None:
    skip_test("no ordinary user to run as (listed above)")  # as test_no_perf_events
work = shared_workdir()
prefix = os.path.join(work, "prefix")
# cmake --install writes its manifest into the build tree, which is root's
# here (a user installing their own build owns it).
manifest = os.path.join(os.path.abspath(BUILD), "install_manifest.txt")
if prefix_cmd:
    open(manifest, "a").close()
    os.chmod(manifest, 0o666)
rc, out = install(prefix_cmd, prefix)
print(out)
printed = re.search(r"source (\S+)", out)
gdb_file = printed.group(1) if printed else ""
check(rc == 0 and printed and gdb_file.startswith(prefix + "/") and os.path.isfile(gdb_file),
      "install as an ordinary user into %s: the source line names a file that exists (%s)" % (prefix, gdb_file))
if os.path.isfile(gdb_file):
    text = open(gdb_file).read()
    check(str(os.path.abspath(BUILD)) not in text, "the installed file names installed paths only, not the build tree")
    out = plain_gdb(prefix_cmd, gdb_file, ["collector version", "collector enable", "run", "collector report limit 5"],
                    [SPLIT, "0.5"], work)
    print(out)
    check("gdb-collector" in out and "(runtime %s/" % prefix in out, "plain gdb -x: collector, with the installed runtime")
    check(re.search(r"experiment \S+test\.1\.er closed \(\d+ samples", out) is not None and "spin" in out,
          "the installed files record and report an experiment")

# Packaging: everything under DESTDIR, the final prefix inside, the
# system's GDB untouched (root included).
stage = os.path.join(workdir(), "stage")
env = dict(os.environ, DESTDIR=stage)
rc, out = install((), "/usr", env=env)
print(out)
staged = os.path.join(stage, "usr/share/gdb-collector/gdb-collector.gdb")
outside = [line for line in out.splitlines() if "Installing:" in line and stage not in line]
check(rc == 0 and os.path.isfile(staged) and not outside,
      "DESTDIR: every file under DESTDIR (%s)" % (outside[:2] or staged))
if os.path.isfile(staged):
    text = open(staged).read()
    check("/usr/lib" in text and stage not in text, "DESTDIR: the file names the final prefix, not the stage")
check("GDB will load the collector commands" not in out, "DESTDIR: the system's gdbinit directory is left alone")
cleanup(work)
cleanup(os.path.dirname(stage))
finish()
