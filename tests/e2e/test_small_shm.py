"""Small or full shared memory (issue 25).  The session's files (status,
control page, trace ring) live in $XDG_RUNTIME_DIR, else /dev/shm.  On a
256 KiB tmpfs the trace ring (about 8.5 MB) cannot be made: tracing is off
and GDB's closing line says so and why, the clock profile is recorded, the
program is unharmed, and nothing is left in the tmpfs (before: a partial
ring left it full, and a sparse control page could make the program's
first write a SIGBUS).  Needs root, for the tmpfs in a private mount
namespace: CI runs as root; elsewhere a skip with the reason."""

import os
import subprocess

from harness import COLLECTOR_GDB, check, cleanup, er_dump, finish, program, skip_test, workdir

if os.geteuid() != 0:
    skip_test("a small tmpfs needs root to mount (CI runs as root)")
work = workdir()
small = os.path.join(work, "small")
os.makedirs(small)
# Arguments, never pasted into the shell's text.
script = ('mount -t tmpfs -o size=256k tmpfs "$1" || exit 97; shift; XDG_RUNTIME_DIR="$SMALL" "$@"; '
          'echo "left: $(ls -A "$SMALL" | tr "\\n" " ")"')
gdb = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector synctrace on", "-ex", "collector enable",
       "-ex", "run", "--args", program("split_work"), "0.3", "0"]
env = {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}
env["SMALL"] = small
done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", small] + gdb, cwd=work,
                      capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
out = done.stdout + done.stderr
print(out)
if done.returncode == 97:
    skip_test("cannot mount a tmpfs here: %s" % out.strip()[:200])
check("cpu_seconds=" in out and "exited normally" in out, "the program ran unharmed")
check("Synchronization-wait tracing is off: cannot create the trace ring" in out and "No space left on device" in out,
      "GDB's closing line says tracing is off, and why")
summary, _, _ = er_dump(os.path.join(work, "test.1.er"))
check(int(summary.get("clock_packets", 0)) > 0, "the clock profile was recorded")
check("left: \n" in out or out.rstrip().endswith("left:"), "nothing is left in the small tmpfs")
cleanup(work)
finish()
