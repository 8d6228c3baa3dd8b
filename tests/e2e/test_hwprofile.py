"""Counter overflow profiling (collector hwprofile) with the kernel's
software counters, which count in any VM (gprofng's collector counts
nothing here): a program touches a known number of fresh pages in one
function and computes in another; page-faults per function, from our
reader and from gprofng, within 5 % of the truth at interval 100, almost
nothing in the computing function; context switches of a function that
sleeps a known number of times; clock profiling beside the counters; and
as an ordinary user."""

import os
import re
import subprocess

from harness import (BUILD, Background, PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_TYPE_SOFTWARE, attach_gdb, check,
                     cleanup, counters_refused_here, er_dump, finish, kernel_counts, program, run_gdb, shared_workdir,
                     skip_part, skip_rest, unprivileged_prefix, wait_closed, workdir)

PROGRAM = program("counters")
PAGES = 20000
work = workdir()
if counters_refused_here("counters"):
    skip_rest("counter profiling: counters are perf events, which the kernel refuses here (GDB's refusal checked)")


def counter_rows(raw, counter):
    """er-dump's hwc_functions for COUNTER: {function: (exclusive, inclusive)}."""
    return {m.group(3): (int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r"^%s (\d+) (\d+) (.+)$" % re.escape(counter), raw, re.M)}


def gprofng_counter(path, counter):
    out = subprocess.run(["gprofng", "display", "text", "-metrics", "e.%s:i.%s" % (counter, counter), "-functions",
                          path], capture_output=True, text=True, timeout=120)
    text = out.stdout + out.stderr
    return {m.group(3): (int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r"^\s*(\d+)\s+(\d+)\s+(\S.*?)\s*$", text, re.M)}, text


def check_pages(mode, path, out):
    check("pages=%d" % PAGES in out and "exited normally" in out, "%s: the program ran to its end" % mode)
    summary, funcs, raw = er_dump(path)
    print(raw)
    rows = counter_rows(raw, "page-faults")
    touched = rows.get("touch_pages", (0, 0))[0]
    compute_name = next((k for k in funcs if k.startswith("compute")), "compute")  # gcc may clone it: compute.isra.0
    computed = rows.get(compute_name, (0, 0))[0]
    check(abs(touched - PAGES) <= 0.05 * PAGES, "%s: our reader: touch_pages %d page faults (truth %d)"
          % (mode, touched, PAGES))
    check(computed <= 0.01 * PAGES, "%s: our reader: compute %d page faults (nothing significant)" % (mode, computed))
    theirs, text = gprofng_counter(path, "page-faults")
    print(text)
    check(theirs.get("touch_pages", (0,))[0] == touched and theirs.get("<Total>", (0,))[0] ==
          int(summary.get("hwc_events page-faults", "-1")),
          "%s: gprofng: the same page faults per function and in all (%s, %s)"
          % (mode, theirs.get("touch_pages"), theirs.get("<Total>")))
    check(funcs.get(compute_name, (0, 0))[0] > 0.2, "%s: clock profiling beside the counters (%s %.3f s)"
          % (mode, compute_name, funcs.get(compute_name, (0, 0))[0]))
    check(re.search(r"Counters: page-faults every 100 event\(s\); .* (\d+) overflow\(s\) written, 0 not written", raw)
          is not None, "%s: log.xml says what was counted" % mode)


out = run_gdb(["collector profile on", "collector hwprofile counter page-faults,100", "collector hwprofile on",
               "collector show", "collector enable", "run"], [PROGRAM, "pages", str(PAGES), "0.5"], cwd=work)
print(out)
check("Counter overflow profiling: on, counters page-faults,100." in out and
      re.search(r"HW counter profiling:\s+on, counters page-faults,100", out), "GDB confirms and shows the counters")
check_pages("launch", os.path.join(work, "test.1.er"), out)

# Context switches happen in the kernel: counted where this user may count
# kernel mode (root here, or kernel.perf_event_paranoid <= 1).
CS_REFUSED = kernel_counts(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, exclude_kernel=False)
out = run_gdb(["collector hwprofile counter context-switches,10", "collector hwprofile on", "collector enable", "run"],
              [PROGRAM, "sleeps", "500"], cwd=work)
print(out)
summary, funcs, raw = er_dump(os.path.join(work, "test.2.er"))
naps = counter_rows(raw, "context-switches").get("nap", (0, 0))[1]
if CS_REFUSED:  # kernel-only events where this user may count user mode only
    skip_part("context switches counted (this user may count user mode only here: %s)" % os.strerror(CS_REFUSED))
    check('counter "context-switches" counts events inside the kernel only' in out,
          "context switches refused for this user, not counted as 0")
else:
    check("sleeps=500" in out and 450 <= naps <= 600, "context switches: nap's 500 sleeps counted (%d)" % naps)

# After gdb -p: the counter is opened on the threads the process has; the
# program touches its pages after the attach, every one counted.
target = Background([PROGRAM, "pages", str(PAGES), "0.3", "ready"], cwd=work)
out = attach_gdb(target.pid, ["collector hwprofile counter page-faults,100", "collector hwprofile on",
                              "collector enable", "detach"], cwd=work)
print(out)
status, rest = target.finish()
attached = os.path.join(work, "test.3.er")
wait_closed(attached)
rows = counter_rows(er_dump(attached)[2], "page-faults")
# (within 5 %: each CPU's event overflows on its own count, so a function
# that runs on both CPUs can be one overflow short per CPU)
check(status == 0 and "pages=%d" % PAGES in rest and abs(rows.get("touch_pages", (0,))[0] - PAGES) <= 0.05 * PAGES,
      "attach: the page faults after the attach counted in touch_pages (%s)" % (rows.get("touch_pages"),))

# Two counters in one experiment: each sample says whose it is (its
# event's id); the page faults stay exact beside the other counter.
out = run_gdb(["collector hwprofile counter page-faults,100,context-switches,1", "collector hwprofile on",
               "collector enable", "run"], [PROGRAM, "pages", str(PAGES), "0.3"], cwd=work)
both = os.path.join(work, "test.4.er")
summary, _, raw = er_dump(both)
theirs, text = gprofng_counter(both, "context-switches")
if not CS_REFUSED:
    check(abs(counter_rows(raw, "page-faults").get("touch_pages", (0,))[0] - PAGES) <= 0.05 * PAGES and
          int(summary.get("hwc_events context-switches", "0")) > 0 and
          theirs.get("<Total>", (0,))[0] == int(summary.get("hwc_events context-switches", "-1")),
          "two counters: page faults within 5 %% beside context switches, gprofng agrees (%s, %s)"
          % (summary.get("hwc_events page-faults"), summary.get("hwc_events context-switches")))

# What this version cannot count yet is refused when enabling, plainly.
out = run_gdb(["collector hwprofile counter +page-faults", "collector hwprofile on", "collector enable"],
              ["/bin/true"], cwd=work)
check("backtracking (+), attributes (~) and registers (/) need hardware counters" in out,
      "backtracking on a software counter: refused plainly")

# Counters asked for without clock profiling: clock profiling is off for
# that experiment (as documented); the counters are recorded all the same.
out = run_gdb(["collector hwprofile counter page-faults,100", "collector hwprofile on", "collector show",
               "collector enable", "run"], [PROGRAM, "pages", str(PAGES), "0.3"], cwd=work)
print(out)
alone = os.path.join(work, "test.5.er")
summary, _, raw = er_dump(alone)
check("off in the next experiment: counters were asked for without it" in out and
      summary.get("clock_packets") == "0" and not os.path.exists(os.path.join(alone, "profile")) and
      abs(counter_rows(raw, "page-faults").get("touch_pages", (0,))[0] - PAGES) <= 0.05 * PAGES and
      "Clock profiling off:" in raw,
      "counters alone: no clock data, the page faults counted (%s)" % summary.get("hwc_events page-faults"))
# The report of a counters-only experiment: the counter is its metric.
report = subprocess.run([os.path.join(BUILD, "experiment", "gdbcol-report"), alone], capture_output=True, text=True)
print(report.stdout + report.stderr)
row = re.search(r"^\s*(\d+)\s+[0-9.]+\s+\d+\s+[0-9.]+\s+touch_pages$", report.stdout, re.M)
check("events of page-faults in" in report.stdout and row and abs(int(row.group(1)) - PAGES) <= 0.05 * PAGES,
      "collector report of counters alone: page faults per function (touch_pages %s)" % (row and row.group(1)))

# Threads shorter than one interval: 1000 threads of 50 page faults each at
# interval 100 would give no sample at all (each inherited event counts
# from zero); their counts, read by the kernel at each thread's end, are
# sampled as the clock's tails are, at the function the thread started in.
THREADS, PER_THREAD = 1000, 50
out = run_gdb(["collector hwprofile counter page-faults,100", "collector hwprofile on", "collector enable", "run"],
              [PROGRAM, "threads", str(THREADS), str(PER_THREAD)], cwd=work)
short = os.path.join(work, "test.6.er")
summary, _, raw = er_dump(short)
print(raw)
faults = counter_rows(raw, "page-faults").get("short_lived", (0, 0))[1]
theirs, text = gprofng_counter(short, "page-faults")
print(text)
from_tails = re.search(r"(\d+) of them for threads' tails", raw)
check("threads=%d" % THREADS in out and abs(faults - THREADS * PER_THREAD) <= 0.05 * THREADS * PER_THREAD and
      theirs.get("short_lived", (0, 0))[1] == faults and from_tails is not None and int(from_tails.group(1)) >= 450,
      "short threads: their page faults counted in short_lived within 5 %% (%d of %d), gprofng agrees (%s)"
      % (faults, THREADS * PER_THREAD, theirs.get("short_lived")))

out = run_gdb(["collector hwprofile list"], ["/bin/true"], cwd=work)
check("Default counters: page-faults,on" in out or "Default counters: cycles,on,insts,on" in out,
      "hwprofile list names the default counters")
cleanup(work)

prefix = unprivileged_prefix()
if prefix:
    work = shared_workdir()
    out = run_gdb(["collector profile on", "collector hwprofile counter page-faults,100", "collector hwprofile on",
                   "collector enable", "run"], [PROGRAM, "pages", str(PAGES), "0.5"], cwd=work, prefix=prefix)
    print(out)
    check_pages("ordinary user", os.path.join(work, "test.1.er"), out)
    cleanup(work)
finish()
