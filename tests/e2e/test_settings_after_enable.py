"""Every setting reaches the next experiment whenever it is typed while no
experiment is active (dbx's rule): before `collector enable`, after it,
and between two runs.  The three experiments must have the same shape
(data files, the settings and data kinds log.xml declares, archives or
none), and not the default one's; sync_waits's 4 waits are in each.
Before, settings typed after `enable` showed in `collector show` and were
lost: the experiment held the clock profile only."""

import os
import re

from harness import check, cleanup, er_dump, finish, perf_events_refused, program, run_gdb, skip_part, workdir

work = workdir()
# (where perf events are refused, counters are refused when typed: the
# counter settings are left out, and so is their data file)
COUNTERS = [] if perf_events_refused() else ["collector hwprofile counter page-faults,on", "collector hwprofile on"]
if perf_events_refused():
    skip_part("a counter setting typed after enable (counters are perf events, which the kernel refuses here)")
SETTINGS = ["collector synctrace on", "collector synctrace threshold 0", "collector iotrace on",
            "collector heaptrace on"] + COUNTERS + ["collector profile on",
            "collector profile timer hi", "collector profile stack 16k", "collector limit 7",
            "collector archive off", "collector sample period 2", "collector descendants off"]
ARGS = [program("sync_waits"), "0"]


def shape(exp):
    """What the settings decide in an experiment: its data files, the
    <setting> and <profile> lines of log.xml (attributes as written), and
    whether it has archives."""
    log = open(os.path.join(exp, "log.xml")).read()
    declared = sorted(set(re.findall(r"<setting [^>]*>|<profile name=[^>]*>", log)))
    files = sorted(n for n in os.listdir(exp) if n not in ("log.xml", "map.xml", "overview", "data.frameinfo"))
    return files, declared


# Each setting alone (one typed after enable must not ride on another's
# refresh of the program's environment), then all of them between two runs.
QUICK = [program("split_work"), "0.05", "0"]
for n, setting in enumerate(SETTINGS):
    before = run_gdb([setting, "collector store experiment b%d.er" % n, "collector enable", "run"], QUICK, cwd=work)
    after = run_gdb(["collector store experiment a%d.er" % n, "collector enable", setting, "run"], QUICK, cwd=work)
    want, got = shape(os.path.join(work, "b%d.er" % n)), shape(os.path.join(work, "a%d.er" % n))
    check(got == want and "an experiment is active" not in after,
          "%s typed after enable: the same experiment as typed before it%s"
          % (setting, "" if got == want else ": %s, not %s" % (got, want)))
before = run_gdb(SETTINGS + ["collector store experiment before.er", "collector enable", "run"], ARGS, cwd=work)
between = run_gdb(["collector enable", "run"] + SETTINGS + ["collector store experiment between.er", "run"], ARGS,
                  cwd=work)
print(before + between)
want = shape(os.path.join(work, "before.er"))
print("settings typed before enable:", want)
check("synctrace" in want[0] and "iotrace" in want[0] and "heaptrace" in want[0] and
      ("hwcounters" in want[0]) == (COUNTERS != []) and
      "archives" not in want[0] and '<setting limit="7"/>' in want[1] and
      any('ptimer="997"' in line for line in want[1]),
      "typed before enable, the settings are in the experiment (data files, limit, 1 ms, no archives)")
first = sorted(n for n in os.listdir(work) if re.fullmatch(r"test\.\d+\.er", n))[-1]  # the first run of "between"
check(shape(os.path.join(work, first)) != want, "the experiment before them differs: %s" % (shape(os.path.join(work, first)),))
got = shape(os.path.join(work, "between.er"))
check(got == want, "typed between two runs: the same experiment as typed before enable%s"
      % ("" if got == want else ": %s" % (got,)))
for name in ("before", "between"):
    summary, _, _ = er_dump(os.path.join(work, name + ".er"))
    check(summary.get("sync_waits") == "4", "%s: the 4 waits traced (%s)" % (name, summary.get("sync_waits")))
cleanup(work)
finish()
