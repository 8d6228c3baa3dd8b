"""A program that execs: the experiment ends with an exec_start event (a
normal end for gprofng: no "not closed" note) after everything captured
before the exec was written, and GDB says the process exec'd, not that it
was killed.  Every form of the exec family (execl, execv, execvp, execle),
a failed exec (exec_error, the experiment goes on to the exit), and an
exec after an attach (GOT patching)."""

import os
import re
import subprocess
import time

from harness import Background, attach_gdb, check, cleanup, er_dump, finish, program, run_gdb, wait_closed, wait_for_data, workdir


def check_exec_experiment(exp, label, out):
    summary, funcs, raw = er_dump(exp)
    print(raw)
    check(summary.get("closed") == "yes" and summary.get("ended_by") == "exec",
          "%s: the experiment ends with the exec" % label)
    work_time = funcs.get("work_before_exec", (0, 0))[1]
    check(work_time >= 0.3, "%s: the work before the exec was written (%.2f s of 0.5)" % (label, work_time))
    m = re.search(r"closed \((\d+) samples", out)
    check(m is not None and m.group(1) == summary.get("clock_packets"),
          "%s: GDB's count is what the file holds (%s, %s)" % (label, m and m.group(1), summary.get("clock_packets")))
    header = subprocess.run(["gprofng", "display", "text", "-header", exp], capture_output=True, text=True).stdout
    check("not closed" not in header, "%s: gprofng finds the experiment closed normally" % label)
    check("suspend_for_exec" in raw, "%s: the last sample is suspend_for_exec" % label)


work = workdir()
for n, how in enumerate(("execl", "execv", "execvp", "execle")):
    out = run_gdb(["collector enable", "run"], [program("exec_after_work"), how], cwd=work)
    print(out)
    exp = os.path.join(work, "test.%d.er" % (n + 1))
    check("collector: the process exec'd %s; experiment %s closed (" % ("true" if how == "execvp" else "/bin/true",
                                                                        exp) in out,
          "%s: GDB says the process exec'd" % how)
    check("killed or crashed" not in out, "%s: not reported as killed or crashed" % how)
    check_exec_experiment(exp, how, out)
    # The new image (descendants on, the default) is _x1.er inside it.
    wait_closed(os.path.join(exp, "_x1.er"))  # its writer closes it when the new program's exit record arrives
    check("It is recorded as _x1.er inside it." in out and
          er_dump(os.path.join(exp, "_x1.er"))[0].get("closed") == "yes",
          "%s: the new program is recorded as _x1.er, closed" % how)
    with open(os.path.join(exp, "log.xml")) as f:
        check('kind="exec_start"' in f.read().split('variant="%s"' % how)[0][-200:],
              "%s: log.xml's exec_start names the call (variant=\"%s\")" % (how, how))

out = run_gdb(["collector enable", "run"], [program("exec_after_work"), "fail"], cwd=work)
print(out)
exp = os.path.join(work, "test.5.er")
check("exec failed: rc=-1 errno=ENOENT" in out and "exited normally" in out,
      "failed exec: the program sees the failure and errno unchanged")
summary, funcs, raw = er_dump(exp)
print(raw)
check(summary.get("ended_by") == "exit" and "closed (" in out and "exec'd" not in out,
      "failed exec: the experiment goes on to the exit")
check(any("failed (No such file or directory)" in w for w in raw.splitlines() if w.startswith("warning:")),
      "failed exec: log.xml says so")
check(funcs.get("work_before_exec", (0, 0))[1] >= 0.6, "failed exec: the work after it is recorded too")

# From outside the program: the runtime posts the exec to the sampler process.
PROCESS = "set environment GDBCOL_CLOCK_SOURCE=process"
out = run_gdb([PROCESS, "collector enable", "run"], [program("exec_after_work"), "execv"], cwd=work)
print(out)
check("collector: the process exec'd /bin/true; experiment %s closed (" % os.path.join(work, "test.6.er") in out,
      "sampler process: GDB says the process exec'd")
check_exec_experiment(os.path.join(work, "test.6.er"), "sampler process", out)
out = run_gdb([PROCESS, "collector enable", "run"], [program("exec_after_work"), "fail"], cwd=work)
print(out)
summary, funcs, raw = er_dump(os.path.join(work, "test.7.er"))
check(summary.get("ended_by") == "exit" and funcs.get("work_before_exec", (0, 0))[1] >= 0.6,
      "sampler process: a failed exec, and the experiment goes on to the exit")

target = Background([program("exec_after_work"), "execv", "wait"], cwd=work)
out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
print(out)
status, rest = target.finish()
check(status == 0, "attach: the program exec'd /bin/true, which exits 0 (%s)" % status)
wait_for_data(os.path.join(work, "test.8.er"), lambda summary, funcs: summary.get("ended_by") in ("exec", "exit"))
summary, funcs, raw = er_dump(os.path.join(work, "test.8.er"))
print(raw)
check(summary.get("ended_by") == "exec", "attach: the exec ends the experiment (GOT slots patched)")
check(funcs.get("work_before_exec", (0, 0))[1] >= 0.3, "attach: the work before the exec was written")
cleanup(work)
finish()
