"""`collector report` and gdbcol-report: in GDB, on the experiment just
recorded, the top functions and their shares match `gprofng display text`
within 1 percentage point, callers and callees match the program's
structure (spin called by work_fifty/thirty/twenty in 50/30/20); the
threads and processes views; a libc internal (msort_with_tmp, through
qsort) named from libc's separate debug info (gprofng 2.40 reads none; it
names it from the archived copy test_archive_symbols checks); folded stacks that sum to the samples; a flame graph SVG
that parses as XML; an HTML page that headless Chromium renders with the
functions in its DOM and its script run; bad input refused plainly."""

import glob
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

from harness import (BUILD, check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, skip_part, workdir)

REPORT = os.path.join(BUILD, "experiment", "gdbcol-report")
SPLIT = program("split_work")
SORT = program("sort_work")
work = workdir()


def our_rows(text):
    """The function table: {name: (excl, excl%, incl, incl%)}."""
    rows = {}
    for m in re.finditer(r"^\s*([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s{3}(.+)$", text, re.M):
        rows[m.group(5)] = tuple(float(m.group(k)) for k in range(1, 5))
    return rows


def neighbour_rows(text):
    return {m.group(3): float(m.group(2)) for m in re.finditer(r"^\s*([0-9.]+)\s+([0-9.]+)\s{3}(.+)$", text, re.M)}


# In GDB, right after the run: the experiment this session recorded.
out = run_gdb(["collector enable", "run", "collector report", "collector report callers spin",
               "collector report callees do_split", "collector report threads"], [SPLIT, "2", "1"], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
ours = our_rows(out)
theirs, total, raw = gprofng_functions(exp)
print(raw)
check("Experiment %s:" % exp in out and "<Total>" in ours, "collector report prints the table of the last experiment")
compared = 0
for name in ("spin", "work_fifty", "work_thirty", "work_twenty", "worker", "main"):
    if name in ours and name in theirs and total > 0:
        compared += 1
        excl_theirs, incl_theirs = 100 * theirs[name][0] / total, 100 * theirs[name][1] / total
        check(abs(ours[name][1] - excl_theirs) <= 1.0 and abs(ours[name][3] - incl_theirs) <= 1.0,
              "%s: ours %.2f%% / %.2f%%, gprofng %.2f%% / %.2f%% (exclusive / inclusive)"
              % (name, ours[name][1], ours[name][3], excl_theirs, incl_theirs))
check(compared == 6, "the six functions of the program are in both tables (%d)" % compared)
callers = neighbour_rows(out.split("Callers of spin")[1].split("Callees of")[0]) if "Callers of spin" in out else {}
share = {k: v for k, v in callers.items() if k.startswith("work_")}
check(set(share) == {"work_fifty", "work_thirty", "work_twenty"} and
      abs(share["work_fifty"] - 50) <= 5 and abs(share["work_thirty"] - 30) <= 5 and abs(share["work_twenty"] - 20) <= 5,
      "callers of spin: work_fifty/thirty/twenty about 50/30/20 %% (%s)" % share)
# do_split is inlined into main and worker: the debug info makes it a frame.
callees = neighbour_rows(out.split("Callees of do_split")[1].split("Threads by")[0]) \
    if "Callees of do_split" in out else {}
check(set(k for k in callees if k.startswith("work_")) == {"work_fifty", "work_thirty", "work_twenty"},
      "callees of do_split (inlined in main and worker, a frame from the debug info): the three work functions (%s)"
      % sorted(callees))
threads = re.findall(r"^\s*[0-9.]+\s+[0-9.]+\s+\d+\s+(\d+)$", out, re.M)
check(len(threads) == 2, "threads view: the program's two threads (%s)" % threads)

# Outside GDB, the same code: folded stacks sum to the samples.
summary, _, _ = er_dump(exp)
folded = subprocess.run([REPORT, "--folded", "-", exp], capture_output=True, text=True).stdout
counts = [int(line.rsplit(" ", 1)[1]) for line in folded.splitlines() if line.strip()]
check(sum(counts) == int(summary.get("ticks", "-1")) and any(line.startswith("_start;") for line in folded.splitlines()),
      "folded stacks: %d counts for %s clock ticks, root first" % (sum(counts), summary.get("ticks")))
paths = [line.rsplit(" ", 1)[0] for line in folded.splitlines() if line.strip()]
check(len(paths) == len(set(paths)), "folded stacks: one line per distinct stack (%d lines, %d stacks)"
      % (len(paths), len(set(paths))))

# A flame graph and an HTML page, from GDB.
svg, page = os.path.join(work, "flame.svg"), os.path.join(work, "report.html")
out = run_gdb(["collector report %s flamegraph %s" % (exp, svg), "collector report %s html %s" % (exp, page),
               "collector report %s flamegraph %s" % (exp, svg)], ["/bin/true"], cwd=work)
print(out)
try:
    root = ET.parse(svg).getroot()
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
except (OSError, ET.ParseError) as e:
    titles = []
    print("SVG: %s" % e)
check(any(t.startswith("spin (") for t in titles) and any(t.startswith("work_fifty (") for t in titles),
      "flame graph: valid XML, frames titled with name, value and share (%d frames)" % len(titles))
check("Wrote %s" % svg in out and "cannot create %s: File exists (remove it or name another file)" % svg in out,
      "flame graph: written once, never over an existing file")

chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    shot = os.path.join(work, "shot.png")
    base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--user-data-dir=" + os.path.join(work, "chromium-profile")]
    dom = subprocess.run(base + ["--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120).stdout
    subprocess.run(base + ["--screenshot=" + shot, "--window-size=1300,900", "file://" + page], capture_output=True,
                   timeout=120)
    # The frames' labels are written by the page's script: a label in the
    # DOM means it ran.
    check("<td class=\"name\">work_fifty</td>" in dom and re.search(r"<text [^>]*>work_fifty</text>", dom),
          "HTML in headless Chromium: the table and the flame graph's labels (its script ran)")
    check(os.path.exists(shot) and os.path.getsize(shot) > 10000,
          "HTML in headless Chromium: a screenshot (%d bytes)" % (os.path.getsize(shot) if os.path.exists(shot) else 0))
else:
    check(False, "headless Chromium is not installed (.ci/install-deps installs it)")

# A libc internal through qsort: named from libc6-dbg's debug info.
out = run_gdb(["collector enable", "run", "collector report limit 40"], [SORT, "1"], cwd=work)
print(out)
libc_debug = glob.glob("/usr/lib/debug/.build-id/*/*.debug")
gp = gprofng_functions(os.path.join(work, "test.2.er"))[2]
if libc_debug:
    check(re.search(r"^\s*[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s{3}msort_with_tmp", out, re.M) is not None,
          "msort_with_tmp (libc's static merge sort) named from the debug info")
    check("msort_with_tmp" in gp, "gprofng names it too, from the archived copy with the debug symbols folded in")
else:
    skip_part("libc's internal names (no separate debug info: install libc6-dbg)")

# Processes: the experiment and its descendants' (3 children of 200 ms).
out = run_gdb(["collector enable", "run", "collector report processes"], [program("descendants"), "forks", "3", "200"],
              cwd=work)
print(out)
children = re.findall(r"^\s*([0-9.]+) sec\.\s+\d+ samples\s+ _f\d+\.er$", out, re.M)
check(len(children) == 3 and all(0.1 <= float(c) <= 0.4 for c in children),
      "processes view: the three descendants' experiments with their CPU time (%s)" % children)

# The running experiment, as recorded so far (stopped at a breakpoint).
out = run_gdb(["break work_twenty", "collector enable", "run", "continue 5", "collector report limit 3"],
              [SPLIT, "1"], cwd=work)
print(out)
check("(still recording, or ended without its exit event: as recorded so far)" in out and
      re.search(r"^\s*[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s{3}spin$", out, re.M),
      "the running experiment, as recorded so far")

# Bad input: refused plainly, GDB goes on.
out = run_gdb(["collector report callers", "collector report bogus", "collector report %s callers no_such" % exp,
               "collector report %s metric page-faults" % exp, "collector report %s limit 0" % exp,
               "collector report /nonexistent.er", "collector version"], ["/bin/true"], cwd=work)
print(out)
check("collector report callers: needs a function name." in out, "a view without its argument: refused")
check('"bogus" is neither a view nor an experiment directory' in out, "an unknown word: refused")
check('no function "no_such" in this profile' in out, "an unknown function: refused")
check('no metric "page-faults" in this experiment; it has: cpu' in out, "an unknown metric: the experiment's named")
check("--limit takes a positive number" in out or "limit takes a positive number" in out, "limit 0: refused")
check("/nonexistent.er is not an experiment directory" in out and "gdb-collector" in out,
      "a missing experiment: refused, GDB goes on")
out = run_gdb(["collector report"], ["/bin/true"], cwd=work)
check("this session has recorded no experiment yet" in out, "no experiment yet: says how to name one")
cleanup(work)
finish()
