"""The cost of a `continue`: `collector report since last-stop` at a
breakpoint shows only what the program did since GDB's previous stop, and
`collector report between N M` what ran between two sample points (each
GDB stop is one, labelled with the breakpoint, function and line:
dbxsample).  phases runs phase_one (0.3 s of CPU),
stops at marker_one, runs phase_two (0.5 s), stops at marker_two, then
phase_three (0.2 s); its own clocks are the truth.  At marker_one the span
is the run so far (phase_one); at marker_two only phase_two, none of
phase_one; after the run, between the two stops' sample points again
phase_two alone, in another view (threads) as well, in the folded
stacks, pprof, Firefox and HTML exports of the span, and in gprofng's
samples N+1 to M.  Where the program samples itself (its runtime's
thread writes, stopped with it), the report at a stop is current too.  Bad input is
refused with the accepted forms; the table's hint for more rows names
GDB's syntax (limit N)."""

import json
import os
import re

from harness import check, cleanup, finish, gprofng_text, program, run_gdb, workdir
import pprof_decode

work = workdir()
out = run_gdb(["break marker_one", "break marker_two", "collector enable", "run",
               "collector report since last-stop",
               "echo ==== second stop\\n", "continue",
               "collector report since last-stop",
               "echo ==== the end\\n", "continue",
               "collector report between 2 1",
               "collector report since yesterday"],
              [program("phases")], cwd=work)
print(out)
# The two stops' sample points, as log.xml numbers them (periodic points
# come between), then the span between them read again after the run.
exp = os.path.join(work, "test.1.er")
points = re.findall(r'<event kind="sample" tstamp="[0-9.]+" id="(\d+)" label="(gdb_stop[^"]*)"',
                    open(os.path.join(exp, "log.xml")).read())
stops = [point for point, _ in points]
labels = [label for _, label in points]
check(len(points) == 2 and re.match(r"gdb_stop breakpoint 1 in marker_one at phases\.c:\d+$", labels[0]) and
      re.match(r"gdb_stop breakpoint 2 in marker_two at phases\.c:\d+$", labels[1]),
      "each stop is a sample point, labelled with the breakpoint, function and line (%s)" % points)
later = run_gdb(["collector report %s between %s %s" % (exp, stops[0], stops[1]),
                 "echo ==== threads\\n",
                 "collector report %s threads between %s %s" % (exp, stops[0], stops[1]),
                 "echo ==== limit\\n",
                 "collector report %s limit 2" % exp,
                 "collector report %s folded %s between %s %s" % (exp, os.path.join(work, "span.folded"), stops[0],
                                                                 stops[1]),
                 "collector report %s pprof %s between %s %s" % (exp, os.path.join(work, "span.pb.gz"), stops[0],
                                                                stops[1]),
                 "collector report %s firefox %s between %s %s" % (exp, os.path.join(work, "span.json"), stops[0],
                                                                  stops[1]),
                 "collector report %s html %s between %s %s" % (exp, os.path.join(work, "span.html"), stops[0],
                                                               stops[1])],
                [program("phases")], cwd=work) if len(stops) == 2 else ""
print(later)
truth = re.search(r"phase_one=([0-9.]+) phase_two=([0-9.]+) phase_three=([0-9.]+)", out)
check(truth is not None, "the program ran its three phases")
first, second, end = (out.split("==== second stop") + ["", ""])[:2] + [out.split("==== the end")[-1]]
second = second.split("==== the end")[0]


def seconds(text, function):
    """The inclusive seconds of FUNCTION in a functions view in TEXT."""
    m = re.search(r"^\s*[0-9.]+\s+[0-9.]+\s+([0-9.]+)\s+[0-9.]+\s+%s\s*$" % re.escape(function), text, re.M)
    return float(m.group(1)) if m else 0.0


if truth:
    one, two = float(truth.group(1)), float(truth.group(2))
    # 10 ms samples: 30 and 50 of them; a phase within 4 samples' worth
    check("Only what ran since the experiment began" in first and abs(seconds(first, "phase_one") - one) <= 0.04
          and seconds(first, "phase_two") == 0,
          "first stop: the run so far, phase_one %.3f s of %.3f" % (seconds(first, "phase_one"), one))
    check("Only what ran since the last stop" in second and abs(seconds(second, "phase_two") - two) <= 0.05 and
          seconds(second, "phase_one") <= 0.01,
          "second stop: since the first, phase_two %.3f s of %.3f, phase_one %.3f s"
          % (seconds(second, "phase_two"), two, seconds(second, "phase_one")))
    functions, threads = (later.split("==== threads") + [""])[:2]
    # gprofng numbers the spans between points: its samples N+1 to M are
    # ours between points N and M
    theirs = gprofng_text(exp, "-sample_select", "%d-%s" % (int(stops[0]) + 1, stops[1]), "-metrics", "i.totalcpu",
                          "-functions") if len(stops) == 2 else ""
    m = re.search(r"^\s*([0-9.]+)\s+phase_two\s*$", theirs, re.M)
    before = re.search(r"^\s*([0-9.]+)\s+phase_one\s*$", theirs, re.M)
    # (within 2 samples: where a sample near a point falls, by its time
    # stamp, gprofng and our reader may decide apart: 0.490 against 0.510
    # in one run under the filter, and one sample of phase_one in another)
    check(m is not None and abs(float(m.group(1)) - seconds(functions, "phase_two")) <= 0.0205 and
          (before is None or float(before.group(1)) <= 0.0105),
          "gprofng's samples %s+1 to %s hold the same span (phase_two %s s, phase_one %s)"
          % (stops[0] if stops else "?", stops[1] if stops else "?", m.group(1) if m else None,
             before.group(1) if before else 0))
    folded = os.path.join(work, "span.folded")
    lines = open(folded).read().splitlines() if os.path.exists(folded) else []
    ticks = sum(int(line.rsplit(" ", 1)[1]) for line in lines if " " in line)
    check(lines and all(";" in line or line.count(" ") == 1 for line in lines) and
          abs(ticks * 0.01 - seconds(functions, "phase_two")) <= 0.011 and not any("phase_one" in l for l in lines),
          "folded stacks of the span: %d ticks, only folded lines, none of phase_one" % ticks)
    # pprof and the Firefox Profiler's format take the span too: their CPU
    # is the span's, none of it phase_one's.
    span_total = seconds(functions, "<Total>")
    try:
        profile = pprof_decode.read_profile(os.path.join(work, "span.pb.gz"))
        pprof_cpu = pprof_decode.totals(profile)["cpu"] / 1e9
        pprof_one = pprof_decode.inclusive(profile, "phase_one", "cpu")
    except (OSError, ValueError, KeyError) as error:
        pprof_cpu, pprof_one = None, str(error)
    check(pprof_cpu is not None and abs(pprof_cpu - span_total) <= 0.0015 and pprof_one == 0,
          "pprof of the span: its CPU the span's (%s s of %.3f), none of phase_one (%s)"
          % (pprof_cpu, span_total, pprof_one))
    try:
        doc = json.load(open(os.path.join(work, "span.json")))
        ff_cpu = sum(sum(t["samples"]["threadCPUDelta"]) for t in doc["threads"]) / 1e6
        ff_names = set(doc["shared"]["stringArray"]) if "shared" in doc else set()
    except (OSError, ValueError, KeyError) as error:
        ff_cpu, ff_names = None, {str(error)}
    check(ff_cpu is not None and abs(ff_cpu - span_total) <= 0.0015 and "phase_one" not in ff_names,
          "Firefox file of the span: its CPU the span's (%s s of %.3f), phase_one not named in it"
          % (ff_cpu, span_total))
    page = open(os.path.join(work, "span.html"), errors="replace").read() if os.path.exists(
        os.path.join(work, "span.html")) else ""
    check("phase_two" in page and "phase_one" not in page, "the HTML page of the span: phase_two, no phase_one")
    limited = (later.split("==== limit") + [""])[1]
    check(re.search(r"\(\d+ more function\(s\); collector report limit N shows more\)", limited) is not None,
          "inside GDB the hint names GDB's syntax (limit N, not --limit)")
    check("(gdb_stop" in functions and abs(seconds(functions, "phase_two") - two) <= 0.05 and
          seconds(functions, "phase_one") <= 0.01 and seconds(functions, "phase_three") == 0,
          "after the run: between the two stops' points, phase_two alone (%.3f s)" % seconds(functions, "phase_two"))
    total = re.search(r"^\s*([0-9.]+)\s+[0-9.]+\s+\d+\s+\d+\s*$", threads, re.M)  # (one thread: its row)
    check("Only what ran between sample points" in threads and total is not None and
          abs(float(total.group(1)) - two) <= 0.05,
          "the threads view takes the span too (%s)" % (total.group(1) if total else threads[-300:]))
check("the first must come before the second" in out, "between 2 1: refused, saying why")

# Where the program samples itself, its runtime's thread writes every 50
# ms, and it is stopped with the program: the report at a stop has it
# write first (before: the stop's point not yet logged, 0.48 s of a 0.50 s
# span).
inside = os.path.join(work, "inside")
os.makedirs(inside)
inside_out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=inside", "break marker_one", "break marker_two",
                      "collector enable", "run", "continue", "collector report since last-stop",
                      "shell grep -c 'label=\"gdb_stop' test.1.er/log.xml", "continue"],
                     [program("phases")], cwd=inside)
print(inside_out)
# (the shell's count may come before GDB's report in the output: GDB 16
# writes its own later; phase_two's time is not compared with its clock:
# sampled from inside as an ordinary user, the kernel's share of it is not
# recorded, as GDB's end line says)
logged = re.search(r"^(\d+)$", inside_out.split("hit Breakpoint 2")[-1].split("Breakpoint 2,")[-1], re.M)
check(logged is not None and logged.group(1) == "2" and seconds(inside_out, "phase_two") > 0 and
      seconds(inside_out, "phase_one") == 0,
      "the program sampling itself: at the second stop the report is current (its point logged: %s of 2; "
      "phase_two %.3f s, phase_one %.3f s)" % (logged.group(1) if logged else None, seconds(inside_out, "phase_two"),
                                                seconds(inside_out, "phase_one")))
check("since: takes last-stop" in out, "since yesterday: refused with the accepted form")
cleanup(work)
finish()
