"""Experiment control from GDB: a scripted session stops at breakpoints,
records a labelled sample at each, pauses over one region and resumes.
gprofng shows the labels and the pause; no clock packet is stamped inside
the pause; the paused work is missing from the profile.  Plus the
commands' warnings and errors.
    test_control.py [process]    process: sampled from outside the program"""

import os
import re
import subprocess
import sys

from harness import boundary_seconds, check, cleanup, er_dump, finish, program, run_gdb, sampled_every_s, workdir

work = workdir()
# split_work 2.0: ten slices of work_fifty (0.1 s), work_thirty (0.06 s),
# work_twenty (0.04 s).  Paused: slice 0's work_thirty and work_twenty.
source = ["set environment GDBCOL_CLOCK_SOURCE=process"] if sys.argv[1:] == ["process"] else []
out = run_gdb(source + ["collector pause", "collector sample record too_early", "collector sample period 0.25",
               "collector enable", "break work_thirty", "run", "collector sample record first_stop",
               "collector pause", "collector pause", "delete", "tbreak work_fifty", "continue",
               "collector resume", "collector sample record after_resume", "continue"],
              [program("split_work"), "2.0", "0"], cwd=work)
print(out)
check('no experiment is active; "collector pause" ignored' in out, "pause with no experiment warns")
check('no experiment is active; "collector sample" ignored' in out, "sample record with no experiment warns")
check(out.count("Collector paused") == 1, "pausing twice is silently ignored")
check("Collector resumed" in out, "resume")
exp = os.path.join(work, "test.1.er")
summary, funcs, raw = er_dump(exp)
print(raw)
labels = [line.split(": ", 1)[1] for line in raw.splitlines() if line.startswith("sample ")]
# Each GDB stop (dbxsample, on by default) adds a point labelled gdb_stop,
# where it stopped after it ("gdb_stop breakpoint 1 in work_thirty at
# split_work.c:33"): two stops here.
stops = [label for label in labels if label.startswith("gdb_stop")]
check(len(stops) == 2 and all(re.match(r"gdb_stop breakpoint \d+ in work_\w+ at split_work\.c:\d+$", label)
                              for label in stops), "a sample at each of the 2 GDB stops, saying where (%s)" % stops)
requested = [label for label in labels if label != "periodic" and not label.startswith("gdb_stop")]  # anywhere
check(requested == ["collector_open_experiment", "first_stop", "collector_pause(collector pause)",
                    "collector_resume", "after_resume", "collector_close_experiment"],
      "sample labels in order: %s" % requested)
periodic = labels.count("periodic")
# Periodic samples follow the wall clock: a 2 s (CPU) run lasts at least 2 s,
# longer on a loaded machine; at the 1 s default there would be about 2.
check(periodic >= 6, "periodic samples every 0.25 s over a run of at least 2 s (%d)" % periodic)
check(summary.get("pauses") == "1" and summary.get("packets_in_pauses") == "0",
      "no clock packet inside the pause (%s)" % summary.get("packets_in_pauses"))
thirty = funcs.get("work_thirty", (0, 0))[1]
fifty = funcs.get("work_fifty", (0, 0))[1]
# Each function is entered and left 20 times: its edges' samples set the
# bounds (at least 0.04 s); the pause takes exactly 0.06 s of work_thirty.
edges = max(0.04, boundary_seconds(20, sampled_every_s(summary, 0.010)))
check(abs(thirty - 0.54) <= edges, "work_thirty lost its paused 0.06 s: %.3f s of 0.6 (0.54 +- %.3f)" % (thirty, edges))
check(abs(fifty - 1.0) <= edges, "work_fifty, never paused, has its 1.0 s (%.3f +- %.3f)" % (fifty, edges))
header = subprocess.run(["gprofng", "display", "text", "-header", exp], capture_output=True, text=True).stdout
check("Pause (collector pause)" in header and "Resume" in header, "gprofng -header shows the pause and resume")
detail = subprocess.run(["gprofng", "display", "text", "-sample_detail", exp], capture_output=True, text=True).stdout
check("first_stop" in detail and "after_resume" in detail, "gprofng -sample_detail shows the labels")

errors = run_gdb(["collector sample", "collector sample period abc", "collector sample period 0",
                  "collector sample period inf", "collector sample period 1e99", "collector sample period nan",
                  "collector sample period 100000",
                  "collector sample sometimes", "collector sample manual now", "collector pause now",
                  "collector sample manual", "collector show", "collector dbxsample maybe",
                  "echo gdb-still-works\\n"], ["/bin/true"], cwd=work)
print(errors)
check("collector sample needs an argument" in errors, "sample without argument: error naming the forms")
for value in ("abc", "0", "inf", "1e99", "nan", "100000"):
    check("must be a number from 0.001 to 86400, written with the digits 0-9 and at most one decimal point "
          "(for example 0.5); got \"%s\"" % value in errors, "sample period %s: error naming the accepted forms" % value)
check('Unknown collector sample argument "sometimes"' in errors, "unknown sample argument: error")
check("takes no value" in errors, "sample manual with a value: error")
check("collector pause takes no arguments" in errors, "pause with an argument: error")
check("Sample points:          manual" in errors, "collector show reports manual sampling")
check('collector dbxsample takes on or off (got "maybe")' in errors, "dbxsample with a bad value: error")
check("gdb-still-works" in errors, "GDB goes on after every error")

# dbxsample off: stops add no sample.
out = run_gdb(["collector dbxsample off", "collector enable", "break work_thirty", "run", "delete", "continue"],
              [program("split_work"), "0.3", "0"], cwd=work)
summary, funcs, raw = er_dump(os.path.join(work, "test.2.er"))
labels = [l.split(": ", 1)[1] for l in raw.splitlines() if l.startswith("sample ")]
check(summary.get("closed") == "yes" and int(summary.get("ticks", 0)) > 0 and
      labels[:1] == ["collector_open_experiment"] and labels[-1:] == ["collector_close_experiment"],
      "dbxsample off: the run was recorded (%s ticks, sample points %s)" % (summary.get("ticks"), labels))
check("Breakpoint 1, " in out and "gdb_stop" not in raw, "dbxsample off: it stopped, and no sample at the stop")
cleanup(work)
finish()
