"""A user the kernel refuses perf events altogether, as on Debian's and
Ubuntu's stock kernels (kernel.perf_event_paranoid 3 or 4): simulated on
any kernel by a seccomp filter that makes perf_event_open fail with EACCES
for GDB and everything it starts (tests/programs/no_perf_events.c), run as
an ordinary user.  The experiment is still right (the in-process timer
source: recorded CPU within 5 % of the CPU the program measured, both
threads, the shares), GDB says once what that user gets and how to get
more, and counters are refused with the reason rather than recorded as 0.
Where the kernel lets the user count user mode only (paranoid 2), a
counter the kernel raises only in kernel context (context switches) is
refused, never counted as 0; where it allows more, accepted."""

import os
import subprocess
import sys

from harness import (PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, check, check_split_work, cleanup,
                     finish, program, run_gdb, shared_workdir, skip_test, unprivileged_prefix)

prefix = unprivileged_prefix()
if prefix is None:
    skip_test("no ordinary user to run as (listed above)")
FILTER = [program("no_perf_events")]
work = shared_workdir()

out = run_gdb(["collector enable", "run"], [program("split_work"), "2.5", "1"], cwd=work, prefix=list(prefix) + FILTER)
print(out)
exp = os.path.join(work, "test.1.er")
summary = check_split_work(exp, out, "perf events refused")
check(summary.get("closed") == "yes", "the experiment is closed")
check(any("POSIX CPU-time timers" in c and "perf_event_open refused" in c for c in summary["comments"]),
      "log.xml: the in-process timer source ran, because perf_event_open was refused")
note = "this user may not open perf events here (perf_event_open: Permission denied), so the program sampled itself"
check(out.count(note) == 1 and "To be sampled from outside the program" in out,
      "GDB says once what this user gets, and how to get more")

# Counters need perf events: refused with the reason, nothing recorded as 0.
out = run_gdb(["collector hwprofile counter page-faults", "collector hwprofile on", "echo gdb-goes-on\\n"],
              ["/bin/true"], cwd=work, prefix=list(prefix) + FILTER)
print(out)
check(out.count('counter "page-faults" cannot be recorded: this user may not open perf events here') == 2 and
      "gdb-goes-on" in out, "counters refused, saying why, and GDB goes on")
cleanup(work)

# Without the filter: what the kernel lets this user count decides, asked
# of the kernel as that user.
probe = subprocess.run(list(prefix) + ["/usr/bin/python3" if prefix else sys.executable, "-c",
                       "import sys; sys.path.insert(0, %r); import harness; print(harness.kernel_counts(%d, %d, False), "
                       "harness.kernel_counts(%d, %d, True))" % (os.path.dirname(os.path.abspath(__file__)),
                                                                 PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
                                                                 PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES)],
                       capture_output=True, text=True, env=dict(os.environ, HOME="/tmp"))
print(probe.stdout + probe.stderr)
kernel_mode, user_mode = (int(v) for v in probe.stdout.split())
work = shared_workdir()
out = run_gdb(["collector hwprofile counter cs"], ["/bin/true"], cwd=work, prefix=prefix)
print(out)
if kernel_mode == 0:
    check("Counters: cs,on." in out, "context switches accepted where this user may count kernel mode")
elif user_mode == 0:
    check('counter "cs" counts events inside the kernel only, and this user may count user mode only' in out,
          "context switches refused where this user may count user mode only (they would count 0)")
else:
    check('counter "cs" cannot be recorded: this user may not open perf events here' in out,
          "context switches refused where this user may not open perf events")
cleanup(work)
finish()
