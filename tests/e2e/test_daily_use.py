"""Daily use: the runtime's own libraries (libunwind, libdw, libelf and
their compression libraries) are neither listed as the program's load
objects nor archived, unless the program needs one itself; the end-of-run summary says what perf's does (samples, CPU
time and threads, bytes written and lost, how to look at it) and how many
call stacks the stack copy cut; `collector profile stack` sets the copy and
the cut share follows it; dbx's `timer high|low` and `collector show
CATEGORY`; `show` lists dbxsample; pause/resume/sample confirm what they
did; a second `disable` warns; messages never name the runtime's functions."""

import os
import re
import subprocess

from harness import check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, workdir

SPLIT = program("split_work")
CHURN = program("stack_churn")  # 48 levels of calls
work = workdir()

out = run_gdb(["collector enable", "run"], [SPLIT, "1", "1"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
m = re.search(r"closed \((\d+) samples; ([0-9.]+) s of CPU in (\d+) threads; (?:[0-9.]+ s off CPU; )?([0-9.]+) (KB|MB) "
              r"written, (\d+) lost[;)]", out)
check(m is not None, "end of run: samples, CPU time in threads, bytes written, lost")
if m:
    summary, _, _ = er_dump(exp)
    check(int(m.group(1)) == int(summary.get("clock_packets", "-1")) and m.group(3) == "2",
          "the summary's samples are the experiment's (%s, %s) and its 2 threads" % (m.group(1),
                                                                                   summary.get("clock_packets")))
    check(abs(float(m.group(2)) - float(summary.get("cpu_seconds", "0"))) <= 0.05,
          "the summary's CPU time is the experiment's (%s s, %s s)" % (m.group(2), summary.get("cpu_seconds")))
check("collector: to look at it: collector report (flamegraph FILE.svg, html FILE.html), or gprofng display text "
      "-functions %s" % exp in out, "end of run: how to look at it")

# The runtime's own libraries: not the program's load objects.
OWN = ("libunwind", "libdw", "libelf", "liblzma", "libbz2", "libz.so")
listed = open(os.path.join(exp, "map.xml")).read()
archived = open(os.path.join(exp, "archive.log")).read()
check("libcollector.so" in listed and not any(lib in listed for lib in OWN),
      "map.xml lists the runtime, not its libraries (%s)" % [lib for lib in OWN if lib in listed])
check(not any(lib in archived for lib in OWN), "archive.log leaves the runtime's libraries out")
# ... unless the program needs one itself: a program of its own with zlib.
with open(os.path.join(work, "zuser.c"), "w") as f:
    f.write("#include <zlib.h>\n#include <stdio.h>\nint main(void) { unsigned long c = 0; for (long i = 0; i < 30000000; "
            "i++) c = crc32(c, (const unsigned char *)&i, sizeof i); printf(\"%lu\\n\", c); return 0; }\n")
built = subprocess.run(["gcc", "-O2", "-o", os.path.join(work, "zuser"), os.path.join(work, "zuser.c"), "-lz"],
                       capture_output=True, text=True)
check(built.returncode == 0, "built a program that uses zlib %s" % built.stderr.strip())
out = run_gdb(["collector enable", "run"], [os.path.join(work, "zuser")], cwd=work)
zmap = open(os.path.join(work, "test.2.er", "map.xml")).read()
check("libz.so" in zmap and "libdw" not in zmap, "a library the program needs itself stays listed (libz)")
# ... or dlopens later: listed from its first sample, with the time it was
# mapped, so gprofng names its functions.
with open(os.path.join(work, "dlz.c"), "w") as f:
    f.write("#include <dlfcn.h>\n#include <stdio.h>\nint main(void) { void *h = dlopen(\"libz.so.1\", RTLD_NOW); "
            "unsigned long (*crc)(unsigned long, const unsigned char *, unsigned) = dlsym(h, \"crc32\"); "
            "unsigned long c = 0; for (long i = 0; i < 30000000; i++) c = crc(c, (const unsigned char *)&i, sizeof i); "
            "printf(\"%lu\\n\", c); return 0; }\n")
built = subprocess.run(["gcc", "-O2", "-o", os.path.join(work, "dlz"), os.path.join(work, "dlz.c"), "-ldl"],
                       capture_output=True, text=True)
out = run_gdb(["collector enable", "run"], [os.path.join(work, "dlz")], cwd=work)
dlmap = open(os.path.join(work, "test.3.er", "map.xml")).read()
theirs, total, _ = gprofng_functions(os.path.join(work, "test.3.er"))
crc = sum(v[0] for k, v in theirs.items() if k.startswith("crc32"))
check(built.returncode == 0 and "libz.so" in dlmap and "libdw" not in dlmap and total > 0 and crc >= 0.5 * total,
      "a runtime library the program dlopens is listed at its first sample: gprofng names crc32 (%.3f of %.3f s)"
      % (crc, total))

# The stack copy: 1 KiB cuts 48 levels of calls, and the summary says so;
# 16 KiB cuts none.
out = run_gdb(["collector profile stack 1k", "collector show profile", "collector enable", "run"],
              [CHURN, "0.5"], cwd=work)
print(out)
cut = re.search(r"; (\d+)% of call stacks cut at the stack copy's end \(collector profile stack raises it\)", out)
check("Stack copy per sample: 1 KiB (deeper call stacks are cut)." in out and cut and int(cut.group(1)) >= 50,
      "stack 1k: the summary says most call stacks were cut (%s)" % (cut and cut.group(1)))
check("Stack copy:             1 KiB per sample" in out and "Clock profiling:" in out and "Heap tracing" not in out,
      "collector show profile: the clock lines only")
out = run_gdb(["collector profile stack 16k", "collector enable", "run"], [CHURN, "0.5"], cwd=work)
check("closed (" in out and "call stacks cut" not in out, "stack 16k: no stack cut")
summary, funcs, _ = er_dump(os.path.join(work, "test.5.er"))
check("<Truncated-stack>" not in funcs, "stack 16k: no <Truncated-stack> in the experiment")

out = run_gdb(["collector profile stack 100", "collector profile stack lots", "collector profile stack 1m",
               "collector profile timer high", "collector profile timer low", "collector show", "collector show bogus",
               "collector profile stack default", "collector show profile"], ["/bin/true"], cwd=work)
print(out)
check("collector profile stack: 100 is out of range: from 1k to 64k" in out, "a stack copy too small: refused")
check('collector profile stack: "lots" is not a size' in out and '"1m" is not a size' in out,
      "a stack copy that is no size: refused")
check("Clock-profiling interval set to 0.997 ms." in out and "Clock-profiling interval set to 100.003 ms." in out,
      "timer high and low, as dbx spells them")
check("Sample points at GDB stops (dbxsample): on" in out, "collector show lists dbxsample")
check("collector show takes one of: all, profile" in out, "an unknown show category: refused")
check("Stack copy per sample: the default, 8 KiB." in out, "stack default")

# Tab completion: every subcommand's keywords.
out = run_gdb(["complete collector sample ", "complete collector dbxsample ", "complete collector show pro",
               "complete collector report fl", "complete collector profile stack ", "complete collector status "],
              ["/bin/true"], cwd=work)
print(out)
for expected in ("collector sample periodic", "collector sample record", "collector dbxsample off",
                 "collector show profile", "collector report flamegraph", "collector profile stack 32k"):
    check(expected in out, "completion offers \"%s\"" % expected)
check(not re.search(r"^collector status \S", out, re.M), "no completion for a command without arguments")

# Control commands say what they did; a second disable warns.
out = run_gdb(["break work_thirty", "collector enable", "run", "collector pause", "collector pause",
               "collector resume", "collector resume", "collector sample record here", "collector disable",
               "collector disable", "continue"], [SPLIT, "0.3"], cwd=work)
print(out)
check("Collector paused: experiment" in out and "Collector already paused: experiment" in out,
      "pause, and pause again")
check("Collector resumed: experiment" in out and "Collector is not paused: experiment" in out,
      "resume, and resume again")
check('Sample point "here" recorded in experiment' in out, "sample record confirms")
check(out.count("Collector disabled.") == 1 and
      "the collector is not enabled and no experiment is active; nothing to disable." in out,
      "a second disable warns and does nothing")
check("gdbcol_" not in out, "no message names the runtime's functions")
cleanup(work)
finish()
