"""`collector limit`: profile data stops near the cap, the experiment stays
open and sample points go on to the end, the log says the limit was hit
(gprofng prints it), and `collector status` shows it live.  A run without
a limit writes more than the cap, so the cap is what stopped the data."""

import os
import subprocess

from harness import check, cleanup, er_dump, finish, program, run_gdb, workdir

MB = 1024 * 1024
work = workdir()
# stack_churn: almost every 1 ms sample has a new 50-frame stack, about
# 0.7 MB of data a second; where perf events are refused the program's
# CPU-time timers fire at the kernel's tick (every 4 ms here, each sample
# weighted), far less often beside other work (about 1 MB in 12 s of CPU
# beside two busy loops).  So it runs until log.xml marks the limit, then
# 2 s more, 60 s at most (the mark's quotes: log.xml holds the command
# line too, with them escaped).
exp = os.path.join(work, "test.1.er")
out = run_gdb(["collector profile timer hi", "collector limit 1", "collector sample period 0.25", "collector enable",
               "break all_done", "run", "collector status", "continue"],
              [program("stack_churn"), "60", "2", "text", os.path.join(exp, "log.xml"), 'label="data_limit_reached"'],
              cwd=work)
print(out)
data_bytes = sum(os.path.getsize(os.path.join(exp, name)) for name in ("profile", "data.frameinfo"))
check(data_bytes <= 1 * MB, "data files within the 1 MB cap (%d bytes)" % data_bytes)
check(data_bytes >= 1 * MB - 2 * 65536, "data stopped near the cap, not far before it (%d bytes)" % data_bytes)
summary, funcs, raw = er_dump(exp)
print(raw)
check(summary.get("closed") == "yes", "the experiment was closed normally")
check(summary.get("missing_stacks") == "0" and summary.get("invalid_packets") == "0",
      "every recorded packet is whole and has its stack")
last_clock, end = float(summary["last_clock_seconds"]), float(summary["exit_seconds"])
check(last_clock < end - 1.0, "no profile data in the last second(s): last packet at %.2f s of %.2f" % (last_clock, end))
warnings = [l for l in raw.splitlines() if l.startswith("warning: id 14:")]
check(len(warnings) == 1, "log.xml records the limit once, as cwarn 14: %s" % warnings)
labels = [l.split(": ", 1)[1] for l in raw.splitlines() if l.startswith("sample ")]
times = [float(l.split(": ", 1)[1]) for l in raw.splitlines() if l.startswith("sample_time ")]
check("data_limit_reached" in labels, "a sample point marks the moment")
if "data_limit_reached" in labels:
    at = times[labels.index("data_limit_reached")]
    after = [label for label, t in zip(labels, times) if t > at + 0.5 and label == "periodic"]
    check(len(after) >= 3, "periodic samples go on after the limit (%d)" % len(after))
    check(abs(at - last_clock) < 0.5, "the limit sample (%.2f s) is where the data stops (%.2f s)" % (at, last_clock))
check("limit 1 MB; reached: profile data stopped" in out, "collector status shows the limit reached, live")
check("the data limit (1 MB) was reached: profile data stopped there (collector limit raises it)" in out,
      "GDB's closing line says the limit was reached")
log = open(os.path.join(exp, "log.xml")).read()
check("Periodic sampling every 0.250 s (the sample_period setting holds whole seconds: 1)" in log,
      "a period of 0.25 s is stated exactly in log.xml (its setting holds whole seconds)")
check("KB of data" in out or "MB of data" in out, "collector status shows the bytes so far")
header = subprocess.run(["gprofng", "display", "text", "-header", exp], capture_output=True, text=True).stdout
check("size limit exceeded" in header, "gprofng's header reports the size limit")

# The same program without a limit writes well past 1 MB (run until it has
# 1.6 MB, 60 s at most).
free = os.path.join(work, "test.2.er")
run_gdb(["collector profile timer hi", "collector limit unlimited", "collector enable", "run"],
        [program("stack_churn"), "60", "0", "bytes", free, str(int(1.6 * MB))], cwd=work)
free_bytes = sum(os.path.getsize(os.path.join(free, name)) for name in ("profile", "data.frameinfo"))
check(free_bytes > 1.5 * MB, "without a limit the same run writes more (%d bytes)" % free_bytes)
summary2, _, raw2 = er_dump(free)
check(not [l for l in raw2.splitlines() if l.startswith("warning: id 14:")], "no limit warning without a limit")

bad_limits = ("0", "-5", "1.5", "lots", "99999999999999999999999", "2147483648", "1e3")
errors = run_gdb(["collector limit", "collector limit 10 20"] + ["collector limit " + v for v in bad_limits] +
                 ["collector show"], ["/bin/true"], cwd=work)
print(errors)
check(errors.count("Usage: collector limit MEGABYTES") == 2, "a limit with no value or two values: the usage")
for value in bad_limits:
    check("The limit in megabytes must be a whole number from 1 to 2147483647, written with the digits 0-9 "
          "(for example 500); got \"%s\"; or none|unlimited" % value in errors, "limit %s is refused" % value)
check("Data limit:             2000 MB" in errors, "the default limit is 2000 MB")
cleanup(work)
finish()
