"""The process's life is the program's (issue 25): a main thread that calls
pthread_exit while two workers burn 0.5 s of CPU each.  The process must
end with the last worker (exit status 0, "exited normally"), the
experiment closed with the workers' CPU, in both sampling modes.  Before,
with the in-process sampler (also what a user gets where the kernel
refuses perf events) the runtime's thread kept the process alive: still
there 5 s after the last worker, the experiment never closed."""

import os
import re
import subprocess
import time

from harness import attach_gdb, check, cleanup, er_dump, finish, program, run_gdb, sampling_seconds, workdir

work = workdir()
for source in ("timer", "process"):
    try:
        out = run_gdb(["collector store experiment %s.er" % source, "collector enable", "run"],
                      [program("main_thread_exit"), "0.5"], cwd=work, timeout=60,
                      env={"GDBCOL_CLOCK_SOURCE": source})
    except subprocess.TimeoutExpired:
        out = ""
    print(out)
    check("exited normally" in out, "%s: the process ended with its last worker, status 0" % source)
    truth = sum(float(x) for x in re.findall(r"worker_cpu=([0-9.]+)", out))
    summary, _, _ = er_dump(os.path.join(work, source + ".er"))
    recorded = float(summary.get("cpu_seconds", 0))
    # (within what sampling allows for the workers' samples; a fixed 5 %
    # failed once under load, 1.081 s of 1.000)
    bound = sampling_seconds(truth, int(summary.get("ptimer_us", 10007) or 10007) / 1e6)
    check(summary.get("closed") == "yes" and truth > 0 and abs(recorded - truth) <= bound,
          "%s: the experiment closed with the workers' CPU (%.3f s of %.3f, +- %.3f)" % (source, recorded, truth, bound))
# gdb -p on such a process (its main thread a zombie while the workers run):
# the kernel refuses any debugger; GDB says that, not the ptrace permissions
# (before: CAP_SYS_PTRACE and ptrace_scope, which are not the reason).
target = subprocess.Popen([program("main_thread_exit"), "5"], cwd=work, stdout=subprocess.DEVNULL,
                          stdin=subprocess.DEVNULL)
deadline = time.monotonic() + 10
state = ""
while time.monotonic() < deadline and not state.startswith("Z"):
    with open("/proc/%d/status" % target.pid) as f:
        state = next((l.split(":", 1)[1].strip() for l in f if l.startswith("State:")), "")
    time.sleep(0.02)
out = attach_gdb(target.pid, ["collector enable"], cwd=work)
print(out)
target.kill()
target.wait()
check(state.startswith("Z") and "its main thread has exited" in out and "ptrace_scope" not in out,
      "gdb -p on a process whose main thread exited: GDB says that is why")
cleanup(work)
finish()
