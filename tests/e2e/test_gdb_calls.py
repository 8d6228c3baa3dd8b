"""GDB's inferior calls and register writes work with the plugin loaded,
and leave the program's registers as they were: every attach, pause,
resume and sample point of ours is such a call.

On CPUs with AMX tiles (Sapphire Rapids and later) GDB 13 (Debian 12)
fails every call ("Couldn't write extended state status: Bad address"):
the kernel takes a write of a thread's extended state only whole, 11008
bytes there, and GDB 13 writes its own fixed size.  The plugin completes
such writes (gdb-plugin/native/xstate_writes.c).  Checked here: a call's
result, a write of a YMM register's upper half (extended state, never in
the general registers) read back from the kernel after GDB drops its
copy, and the program's own end and output.  Where the CPU has AMX and
GDB is older than 14, the writes must have been completed by the plugin;
elsewhere the kernel takes GDB's own and the repair is not exercised (said)."""

import re
import subprocess

from harness import check, cleanup, finish, program, run_gdb, workdir


def cpu_has_amx():
    with open("/proc/cpuinfo") as f:
        return re.search(r"^flags\s*:.*\bamx_tile\b", f.read(), re.M) is not None


def gdb_major():
    out = subprocess.run(["gdb", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"(\d+)\.\d+", out.splitlines()[0] if out else "")
    return int(match.group(1)) if match else 0


work = workdir()
out = run_gdb(["break work_thirty", "run",
               "print (int) getpid() > 0",
               "set var $ymm0.v8_int32[7] = 424242",
               "maintenance flush register-cache",
               "print $ymm0.v8_int32[7]",
               "print (int) getpid() > 0",
               "python import gdb_collector.native as n; print('completed writes:', n.xstate_writes_completed())",
               "delete", "continue"], [program("split_work"), "0.2", "0"], cwd=work)
print(out)
check("Couldn't write" not in out, "GDB wrote the registers (no refused write)")
check(len(re.findall(r"^\$\d+ = 1$", out, re.M)) == 2, "both calls returned their result")
check(re.search(r"^\$\d+ = 424242$", out, re.M) is not None,
      "the YMM register's upper half holds what GDB wrote, read back from the kernel")
check("cpu_seconds=" in out and "exited normally" in out, "the program ran to its end after the calls")
completed = re.search(r"completed writes: (\d+)", out)
check(completed is not None, "the plugin says how many writes it completed")
amx, major = cpu_has_amx(), gdb_major()
if amx and major < 14:
    check(completed is not None and int(completed.group(1)) > 0,
          "AMX and GDB %d: the plugin completed GDB's state writes (%s)" % (major, completed and completed.group(1)))
else:
    print("note: %s, GDB %d: the kernel took GDB's own writes; the plugin's completion is not exercised here"
          % ("AMX" if amx else "no AMX", major))
cleanup(work)
finish()
