"""The Collector API (collectorAPI.h, libcollectorAPI.so): harmless without
the runtime; effective in launch mode and after an attach: labelled samples,
a paused region with no data, and collector_terminate_expt ending the
experiment (work after it is not recorded)."""

import os
import subprocess

from harness import Background, attach_gdb, check, cleanup, er_dump, finish, program, run_gdb, wait_closed, workdir

work = workdir()
alone = subprocess.run([program("api_user")], capture_output=True, text=True, cwd=work)
check(alone.returncode == 0 and "api_user done" in alone.stdout, "without the runtime the calls are no-ops")
check(not any(n.endswith(".er") for n in os.listdir(work)), "and no experiment appears")


def check_experiment(mode, exp):
    summary, funcs, raw = er_dump(exp)
    print(raw)
    labels = [line.split(": ", 1)[1] for line in raw.splitlines() if line.startswith("sample ")]
    check("api_start" in labels and "api_end" in labels, "%s: the program's sample labels (%s)" % (mode, labels))
    check("collector_pause(collector_pause)" in labels and "collector_resume" in labels,
          "%s: collector_pause/collector_resume samples" % mode)
    check(summary.get("closed") == "yes", "%s: collector_terminate_expt closed the experiment" % mode)
    check(summary.get("packets_in_pauses") == "0", "%s: nothing recorded inside the pause" % mode)
    for name, expected in (("recorded_before", 0.3), ("recorded_after", 0.3)):
        got = funcs.get(name, (0, 0))[1]
        check(abs(got - expected) <= 0.04, "%s: %s recorded (%.3f s)" % (mode, name, got))
    for name in ("paused_region", "after_terminate"):
        got = funcs.get(name, (0, 0))[1]
        check(got <= 0.02, "%s: %s not recorded (%.3f s)" % (mode, name, got))


out = run_gdb(["collector enable", "run"], [program("api_user")], cwd=work)
print(out)
check_experiment("launch", os.path.join(work, "test.1.er"))

# From outside: the runtime passes the same requests to the sampler process.
out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=process", "collector enable", "run"], [program("api_user")],
              cwd=work)
print(out)
check("[New Thread" not in out, "sampler process: no thread of ours in the program")
check_experiment("sampler process", os.path.join(work, "test.2.er"))

target = Background([program("api_user"), "1.5"], cwd=work)
out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
print(out)
status, rest = target.finish()
check(status == 0 and "api_user done" in rest, "attach: the program ends normally")
wait_closed(os.path.join(work, "test.3.er"))
check_experiment("attach", os.path.join(work, "test.3.er"))
cleanup(work)
finish()
