"""Exports (issue 30): offcpu_mix.c recorded with off-CPU time and
synchronization waits.

`collector report pprof FILE`: profile.proto (gzip) read back with the
wire format alone (pprof_decode.py), and by Go's own pprof (its total and
compute_phase's CPU): each sample type's total is the
experiment's own (CPU and off-CPU ticks by reason from er-dump, waits from
gprofng); the phases are in their functions' stacks with their time;
every location points at a mapping, every mapping is a load object with
the build id its file carries; an existing file is refused and left as it
was.

`collector report firefox FILE`: the Firefox Profiler's processed format
(version 66), checked table by table (every column as long as its table,
every index in range, stacks' prefixes before them, times in order): two
threads; the weights are the experiment's CPU and off-CPU ticks, the CPU
deltas its CPU time and nothing during waits (the profiler's CPU graph);
the phases in their functions' stacks with their ticks; markers for the
sample points and the synchronization waits, each of a declared type; the
program's library with its build id.  Then read by the Firefox Profiler's
own code (npm's @firefox-devtools/profiler-cli, fetched by
.ci/fetch-npm-readers): each thread's CPU time our reader's,
compute_phase's samples in its call tree the file's, named with its
library ("offcpu_mix!compute_phase").

`collector report folded FILE`: its samples are the experiment's CPU
ticks; speedscope's own web app (npm's speedscope, fetched by
.ci/fetch-npm-readers), opened on it in headless Chromium, shows each
function's total and self samples as the file has them."""

import base64
import html
import json
import os
import re
import shutil
import subprocess
import time

from harness import (SOURCE, check, cleanup, er_dump, finish, gprofng_rows, gprofng_text, offcpu_stacks_here,
                     perf_event_paranoid, program, run_gdb, skip_part, workdir)
import pprof_decode

PROGRAM = program("offcpu_mix")
work = workdir()
out = run_gdb(["collector profile offcpu on", "collector synctrace on", "collector synctrace threshold 0",
               "collector enable", "run"], [PROGRAM], work)
print(out)
exp = os.path.join(work, "test.1.er")
pb = os.path.join(work, "offcpu_mix.pb.gz")
report = run_gdb(["collector report %s pprof %s" % (exp, pb)], ["/bin/true"], work)
print(report)
check(os.path.exists(pb) and open(pb, "rb").read(2) == b"\x1f\x8b", "collector report pprof wrote a gzip file")
try:
    profile = pprof_decode.read_profile(pb)
    totals = pprof_decode.totals(profile)
except (OSError, ValueError) as error:
    check(False, "the file parses as profile.proto: %s" % error)
    profile, totals = None, {}
if profile is not None:
    types = [t for t, _ in profile["sample_types"]]
    print(types, totals)
    check(types[:2] == ["samples", "cpu"] and {"wait-cpu", "sleep", "io-wait", "lock-wait", "blocked", "sync-wait",
                                               "sync-waits"} <= set(types) and profile["default_sample_type"] == "cpu"
          and profile["period_type"] == ("cpu", "nanoseconds"),
          "its sample types: samples, cpu (the default), off-CPU time by reason, synchronization waits (%s)" % types)
    summary, _, _ = er_dump(exp)
    period = int(summary["ptimer_us"]) * 1000
    # Source lines from the program's debug info: main's file, and a line
    # for each location whose innermost function is main (pprof -lines).
    main_ids = [fid for fid, name in profile["functions"].items() if name == "main"]
    main_lines = [lines[0] for lid, lines in profile["location_lines"].items()
                  if lines and profile["locations"][lid][2][:1] == main_ids[:1]]
    check(len(main_ids) == 1 and (profile["function_files"].get(main_ids[0]) or "").endswith("offcpu_mix.c") and
          main_lines and all(line > 0 for line in main_lines),
          "pprof: main's source file and lines (%s, lines %s)"
          % (main_ids and profile["function_files"].get(main_ids[0]), main_lines[:5]))
    # Each sample in its thread (a "tid" label): each thread's CPU as our
    # reader counts it.
    tid_key = profile["strings"].index("tid") if "tid" in profile["strings"] else -1
    cpu_at = [t for t, _ in profile["sample_types"]].index("cpu")
    per_tid = {}
    for (ids, values), labels in zip(profile["samples"], profile["sample_labels"]):
        per_tid[labels.get(tid_key)] = per_tid.get(labels.get(tid_key), 0) + values[cpu_at]
    _, _, dumped = er_dump(exp)
    ours = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^thread (\d+): \d+ samples ([0-9.]+) s$",
                                                                    dumped, re.M)}
    check(len(per_tid) >= 2 and None not in per_tid and
          all(abs(per_tid.get(tid, 0) / 1e9 - seconds) < 0.0015 for tid, seconds in ours.items() if seconds > 0),
          "pprof: each sample's thread as a tid label, each thread's CPU as our reader's (%s; %s)"
          % ({k: v / 1e9 for k, v in per_tid.items()}, ours))
    # (the run's wall-clock start and its length, to its exit)
    made_ns = os.stat(os.path.join(exp, "log.xml")).st_mtime * 1e9
    check(made_ns - 3600e9 <= profile["time_nanos"] <= made_ns + 1e9 and
          abs(profile["duration_nanos"] / 1e9 - float(summary.get("exit_seconds", -1))) < 0.001,
          "pprof: time_nanos the run's start, duration_nanos its length (%d, %.3f s; exit at %s s)"
          % (profile["time_nanos"], profile["duration_nanos"] / 1e9, summary.get("exit_seconds")))
    check(profile["period"] == period and totals["samples"] == int(summary["ticks"]) and
          totals["cpu"] == int(summary["ticks"]) * period,
          "CPU: %d samples, %d ns: the experiment's %s ticks of %d ns" % (totals["samples"], totals["cpu"],
                                                                       summary["ticks"], period))
    # Read back by Go's own pprof (golang-go): its total CPU and
    # compute_phase's are the file's.
    go = shutil.which("go")
    if go is None:
        skip_part("the pprof file read by Go's pprof (golang-go is not installed: .ci/install-deps installs it)")
    else:
        done = subprocess.run([go, "tool", "pprof", "-sample_index=cpu", "-top", "-unit=ms", pb], capture_output=True,
                              text=True, timeout=120, env=dict(os.environ, HOME=work), stdin=subprocess.DEVNULL)
        top = done.stdout + done.stderr
        print(top)
        total = re.search(r"Total samples = ([0-9.]+)ms", top)
        compute = re.search(r"^\s*[0-9.]+ms\s+[0-9.]+%\s+[0-9.]+%\s+([0-9.]+)ms\s+[0-9.]+%\s+compute_phase\s*$", top, re.M)
        ours_compute = pprof_decode.inclusive(profile, "compute_phase", "cpu") / 1e6
        check(done.returncode == 0 and total is not None and abs(float(total.group(1)) - totals["cpu"] / 1e6) < 0.01
              and compute is not None and abs(float(compute.group(1)) - ours_compute) < 0.01,
              "Go's pprof reads the file: its CPU total %s ms and compute_phase's %s ms, the file's (%.2f, %.2f)"
              % (total.group(1) if total else None, compute.group(1) if compute else None, totals["cpu"] / 1e6,
                 ours_compute))
    reasons = {"wait-cpu": "waiting for a CPU", "sleep": "sleeping", "io-wait": "in I/O", "lock-wait": "waiting on a lock",
               "blocked": "blocked (other)"}
    off_ok = all(totals[t] == int(summary["offcpu_ticks " + title]) * period for t, title in reasons.items())
    check(off_ok, "off-CPU time by reason: the experiment's ticks (%s)"
          % ", ".join("%s %d" % (t, totals[t] // period) for t in reasons))
    sync = gprofng_rows(gprofng_text(exp, "-metrics", "e.sync:e.syncn", "-functions")).get("<Total>", [0, 0])
    check(abs(totals["sync-wait"] / 1e9 - sync[0]) <= 0.0011 and totals["sync-waits"] == sync[1],
          "synchronization waits: %.4f s in %d waits, gprofng's %.3f s in %d" % (totals["sync-wait"] / 1e9,
                                                                                totals["sync-waits"], sync[0], sync[1]))
    truth = re.search(r"cpu=([0-9.]+) sleep=([0-9.]+) pipe=([0-9.]+) lock=([0-9.]+)", out)
    with_stacks = offcpu_stacks_here()
    if not with_stacks:
        skip_part("each wait under its function (no stacks at switches for this user: kernel.perf_event_paranoid "
                  "is %d); checked instead: all of it blocked, as the experiment holds it" % perf_event_paranoid())
        check(totals["blocked"] > 0 and all(totals[t] == 0 for t in ("sleep", "io-wait", "lock-wait")),
              "without stacks the waits are blocked time (%d ns)" % totals["blocked"])
    if truth:
        cpu, slept, piped, locked = (float(x) for x in truth.groups())
        got = {name: pprof_decode.inclusive(profile, name, t) / 1e9 for name, t in
               (("compute_phase", "cpu"), ("sleep_phase", "sleep"), ("pipe_phase", "io-wait"),
                ("lock_phase", "lock-wait"))}
        near = lambda v, t: abs(v - t) <= 0.1 * t + 0.02
        check(near(got["compute_phase"], cpu) and (not with_stacks or near(got["sleep_phase"], slept) and
                                                   near(got["pipe_phase"], piped) and near(got["lock_phase"], locked)),
              "each phase under its function with its time (%s; the program's %.3f %.3f %.3f %.3f)"
              % (got, cpu, slept, piped, locked))
    locations_ok = all(lid in profile["locations"] for ids, _ in profile["samples"] for lid in ids)
    mapped = all(m == 0 or m in profile["mappings"] for m, _, _ in profile["locations"].values())
    named = all(fid in profile["functions"] and profile["functions"][fid] for _, _, fids in
                profile["locations"].values() for fid in fids)
    check(locations_ok and mapped and named, "every sample's locations, their mappings and functions exist")
    ours = [m for m in profile["mappings"].values() if m["file"] == PROGRAM]
    notes = subprocess.run(["readelf", "-n", PROGRAM], capture_output=True, text=True).stdout
    build_id = re.search(r"Build ID: ([0-9a-f]+)", notes)
    check(len(ours) == 1 and build_id is not None and ours[0]["build_id"] == build_id.group(1) and
          ours[0]["start"] < ours[0]["limit"],
          "the program's mapping, with the build id its file carries (%s)" % (ours[0] if ours else None))



def check_table(table, columns, label):
    """Every column of TABLE holds `length` entries."""
    n = table.get("length", -1)
    bad = [c for c in columns if len(table.get(c, [])) != n]
    check(n >= 0 and not bad, "firefox: %s: %d rows, every column as long (%s)" % (label, n, bad or "ok"))
    return n


ff = os.path.join(work, "offcpu_mix.json")
report = run_gdb(["collector report %s firefox %s" % (exp, ff)], ["/bin/true"], work)
print(report)
try:
    doc = json.load(open(ff, encoding="utf-8"))
except (OSError, ValueError) as error:
    check(False, "firefox: the file is JSON: %s" % error)
    doc = None
if doc is not None:
    meta, shared, threads = doc["meta"], doc["shared"], doc["threads"]
    check(meta["preprocessedProfileVersion"] == 66 and any(c["color"] == "grey" for c in meta["categories"]) and
          meta["sampleUnits"]["threadCPUDelta"] == "\u00b5s",
          "firefox: processed format 66, a grey category, CPU deltas in microseconds")
    # (the run's wall-clock start: the experiment was made minutes ago)
    made = os.stat(os.path.join(exp, "log.xml")).st_mtime * 1000.0
    check(made - 3600e3 <= meta["startTime"] <= made + 1e3,
          "firefox: meta.startTime is the run's start (%.0f ms, log.xml written at %.0f)" % (meta["startTime"], made))
    strings = shared["stringArray"]
    funcs = check_table(shared["funcTable"], ["name", "isJS", "relevantForJS", "resource", "source", "lineNumber",
                                              "columnNumber", "originalLocation"], "functions")
    frames = check_table(shared["frameTable"], ["func", "category", "subcategory", "line", "column", "address",
                                                "nativeSymbol", "inlineDepth", "innerWindowID", "originalLocation"],
                         "frames")
    stacks = check_table(shared["stackTable"], ["prefixOffset", "frame"], "stacks")
    st = shared["stackTable"]
    check(all(0 <= x < len(strings) for x in shared["funcTable"]["name"]) and
          all(0 <= x < funcs for x in shared["frameTable"]["func"]) and
          all(0 <= x < frames for x in st["frame"]) and
          all(off == 0 or 0 < off <= i for i, off in enumerate(st["prefixOffset"])),
          "firefox: names, functions and frames in range; each stack's prefix before it")

    def names_of(stack):
        out = set()
        while True:
            out.add(strings[shared["funcTable"]["name"][shared["frameTable"]["func"][st["frame"][stack]]]])
            off = st["prefixOffset"][stack]
            if off == 0:
                return out
            stack -= off

    summary, _, _ = er_dump(exp)
    off_ticks = sum(int(v) for k, v in summary.items() if k.startswith("offcpu_ticks "))
    weights = cpu_us = 0
    in_function = dict.fromkeys(("compute_phase", "sleep_phase", "pipe_phase", "lock_phase"), 0)
    cpu_in_compute = 0
    ordered = True
    marker_types = {m["name"] for m in meta["markerSchema"]}
    sample_points = waits = 0
    pipe_leaves = {}
    for t in threads:
        samples = t["samples"]
        check_table(samples, ["stack", "timeDeltas", "weight", "threadCPUDelta"], "thread %s's samples" % t["tid"])
        ordered &= all(d >= 0 for d in samples["timeDeltas"][1:]) and all(0 <= s < stacks for s in samples["stack"])
        weights += sum(samples["weight"])
        cpu_us += sum(samples["threadCPUDelta"])
        for s, w, c in zip(samples["stack"], samples["weight"], samples["threadCPUDelta"]):
            for name in names_of(s) & set(in_function):
                in_function[name] += w
            leaf_frame = st["frame"][s]
            leaf = strings[shared["funcTable"]["name"][shared["frameTable"]["func"][leaf_frame]]]
            if "pipe_phase" in names_of(s) and c == 0:
                pipe_leaves[(leaf, shared["frameTable"]["category"][leaf_frame])] = \
                    pipe_leaves.get((leaf, shared["frameTable"]["category"][leaf_frame]), 0) + w
            cpu_in_compute += c if "compute_phase" in names_of(s) else 0
        markers = t["markers"]
        check_table(markers, ["category", "data", "endTime", "name", "phase", "startTime"],
                    "thread %s's markers" % t["tid"])
        ordered &= all(d["type"] in marker_types for d in markers["data"])
        sample_points += sum(1 for d in markers["data"] if d["type"] == "Sample point")
        waits += sum(1 for d in markers["data"] if d["type"] == "Synchronization wait")
    check(len(threads) == 2 and ordered, "firefox: two threads, their samples in time order with valid stacks, "
          "their markers of declared types")
    # The helper named itself (pthread_setname_np): its track has that
    # name; the main thread's is the program's.
    names = sorted(t["name"] for t in threads)
    check(names == ["offcpu_mix", "pipe-writer"], "firefox: the threads named by their names (%s)" % names)
    ticks = int(summary["ticks"])
    check(weights == ticks + off_ticks and cpu_us == ticks * int(summary["ptimer_us"]),
          "firefox: weights %d = the experiment's %d CPU + %d off-CPU ticks; CPU deltas %d us = its CPU time"
          % (weights, ticks, off_ticks, cpu_us))
    # A loaded machine adds time waiting for a CPU to any phase (the
    # computation's most): the computation is checked by its CPU time.
    period_us = int(summary["ptimer_us"])
    check(90 <= cpu_in_compute / period_us <= 110 and
          (not with_stacks or all(90 <= in_function[name] <= 115 for name in ("sleep_phase", "pipe_phase", "lock_phase"))),
          "firefox: the computation's CPU about 100 ticks (%.0f), each wait under its function about 100 ticks (%s)"
          % (cpu_in_compute / period_us, in_function))
    # The pipe reader's time off CPU ends in a frame naming it, in the
    # Off-CPU category (it showed as running in read()).
    in_io = pipe_leaves.get(("<Off-CPU: in I/O>", 2), 0)
    check(in_io >= 0.8 * sum(pipe_leaves.values()) > 0,
          "firefox: the pipe reader's waits end in <Off-CPU: in I/O>, category Off-CPU (%s)" % pipe_leaves)
    # Libraries: the program's with the build id its file carries, as the
    # profiler's symbolication keys want it.
    notes = subprocess.run(["readelf", "-n", PROGRAM], capture_output=True, text=True).stdout
    build = re.search(r"Build ID: ([0-9a-f]+)", notes)
    program_libs = [lib for lib in doc.get("libs", []) if lib.get("path") == PROGRAM]
    check(build is not None and len(program_libs) == 1 and program_libs[0]["codeId"] == build.group(1) and
          len(program_libs[0]["breakpadId"]) == 33 and program_libs[0]["name"] == "offcpu_mix",
          "firefox: the program's library, with its build id as code id and breakpad id (%s)" % program_libs)
    check(sample_points == int(summary["sample_events"]) and waits == int(sync[1]),
          "firefox: a marker per sample point (%d) and per synchronization wait (%d)" % (sample_points, waits))



def profiler_cli(*args):
    """The Firefox Profiler's own reader (npm's @firefox-devtools/profiler-cli:
    its import and call-tree code), its sessions under the work directory."""
    done = subprocess.run([PROFILER_CLI] + list(args), capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, HOME=work), stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout + done.stderr


PROFILER_CLI = os.path.join(SOURCE, "third_party", "firefox-profiler-cli", "node_modules", ".bin", "profiler-cli")
if doc is None:
    pass
elif not os.access(PROFILER_CLI, os.X_OK):
    skip_part("the Firefox file read by the Firefox Profiler's own code (.ci/fetch-npm-readers fetches its "
              "command-line reader from npm; not fetched here)")
else:
    # It loads the file; each thread's CPU time is our reader's; each
    # phase's samples in its call tree are the file's (its stacks read as
    # we wrote them); functions carry their library's name.
    rc, loaded = profiler_cli("load", ff)
    print(loaded)
    deadline = time.monotonic() + 60
    starting = rc != 0 and "did not become ready" in loaded
    while starting and rc != 0 and time.monotonic() < deadline:
        time.sleep(0.5)  # (its daemon gives itself 500 ms to start; a loaded machine takes longer)
        rc, loaded = profiler_cli("status")
    try:
        listed = json.loads(profiler_cli("thread", "list", "--json")[1])["threads"]
    except (ValueError, KeyError):
        listed = []
    cpu_ms = {int(t["tid"]): t["cpuMs"] for t in listed}
    thread_cpu = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^thread (\d+): \d+ samples ([0-9.]+) s$",
                                                                          er_dump(exp)[2], re.M)}
    check(rc == 0 and len(cpu_ms) == 2 and
          all(abs(cpu_ms.get(tid, 0) - seconds * 1000) < 1.5 for tid, seconds in thread_cpu.items()),
          "the Firefox Profiler's reader loads the file: two threads, each thread's CPU as our reader's (%s ms; %s s)"
          % (cpu_ms, thread_cpu))
    check(sorted(t["name"] for t in listed) == ["offcpu_mix", "pipe-writer"],
          "the Firefox Profiler's reader names the threads (%s)" % [t["name"] for t in listed])
    busiest = max(listed, key=lambda t: t["cpuMs"])["threadHandle"] if listed else "t-0"
    try:
        found = json.loads(profiler_cli("thread", "functions", "--thread", busiest, "--search", "compute_phase",
                                        "--json")[1])["functions"]
    except (ValueError, KeyError):
        found = []
    compute = [f for f in found if f["name"] == "compute_phase"]
    check(len(compute) == 1 and compute[0]["totalSamples"] == in_function["compute_phase"] and
          compute[0]["nameWithLibrary"] == "offcpu_mix!compute_phase",
          "the Firefox Profiler's call tree: compute_phase's samples as the file's (%s; %d), named with its library"
          % (compute, in_function["compute_phase"]))
    profiler_cli("stop", "--all")  # (its daemon outlives nothing of the test)

# Folded stacks read by speedscope's own web app, in headless Chromium,
# as speedscope's command opens a file (a script that hands the file to
# speedscope.loadFileFromBase64, named in the page's address): its
# sandwich view's table (each function's total and self) against the
# file's lines, and the whole against our reader's CPU ticks.
folded = os.path.join(work, "offcpu_mix.folded")
report = run_gdb(["collector report %s folded %s" % (exp, folded)], ["/bin/true"], work)
print(report)
stacks = []
for line in open(folded, encoding="utf-8", errors="replace") if os.path.exists(folded) else []:
    frames, _, count = line.rstrip("\n").rpartition(" ")
    stacks.append((frames.split(";"), int(count)))
file_self, file_total = {}, {}
for frames, count in stacks:
    file_self[frames[-1]] = file_self.get(frames[-1], 0) + count
    for name in set(frames):
        file_total[name] = file_total.get(name, 0) + count
check(sum(c for _, c in stacks) == int(er_dump(exp)[0]["ticks"]),
      "folded: the file's samples are the experiment's CPU ticks (%d; %s)"
      % (sum(c for _, c in stacks), er_dump(exp)[0]["ticks"]))
SPEEDSCOPE = os.path.join(SOURCE, "third_party", "speedscope", "node_modules", "speedscope", "dist", "release",
                          "index.html")
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not os.path.exists(SPEEDSCOPE):
    skip_part("the folded file read by speedscope's own code (.ci/fetch-npm-readers fetches it from npm; not "
              "fetched here)")
elif not chromium:
    check(False, "headless Chromium is not installed (.ci/install-deps installs it)")
else:
    loader = os.path.join(work, "speedscope-load.js")
    with open(loader, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" % (
            json.dumps("offcpu_mix.folded"), json.dumps(base64.b64encode(open(folded, "rb").read()).decode())))
    page = "file://%s#localProfilePath=%s&view=sandwich" % (SPEEDSCOPE, loader)
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                          "--allow-file-access-from-files", "--virtual-time-budget=10000",
                          "--user-data-dir=" + os.path.join(work, "chromium-speedscope"), "--dump-dom", page],
                         capture_output=True, text=True, timeout=120).stdout
    cells = [html.unescape(c) for c in re.findall(r">([^<>]+)<", dom)]
    shown = {}  # function: (total, self), as speedscope's table shows them
    for i in range(len(cells) - 2):
        total, own = (re.match(r"^(\d+) \(", c) for c in cells[i:i + 2])
        if total and own:
            shown[cells[i + 2]] = (int(total.group(1)), int(own.group(1)))
    print("speedscope's sandwich table: %s" % shown)
    expected = {name: (file_total[name], file_self.get(name, 0)) for name in file_total}
    check(len(shown) > 0 and shown == expected,
          "speedscope reads the folded file: each function's total and self samples as the file's (%d functions; "
          "differing: %s)" % (len(shown), {k: (shown.get(k), expected.get(k)) for k in set(shown) | set(expected)
                                           if shown.get(k) != expected.get(k)}))

# Our report names the helper thread too (its off-CPU time: the pipe it
# wrote after a sleep, the lock it held).
threads_report = run_gdb(["collector report %s threads metric offcpu" % exp], ["/bin/true"], work)
print(threads_report)
check(re.search(r"^\s*[0-9.]+\s+[0-9.]+\s+\d+\s+\d+ \(pipe-writer\)$", threads_report, re.M) is not None,
      "collector report threads: the helper thread by its name (pipe-writer)")

before = open(pb, "rb").read()
again = run_gdb(["collector report %s pprof %s" % (exp, pb)], ["/bin/true"], work)
print(again)
check("File exists" in again and open(pb, "rb").read() == before, "an existing file is refused and left as it was")
cleanup(work)
finish()
