"""pprof export (issue 30, `collector report pprof FILE`): offcpu_mix.c
recorded with off-CPU time and synchronization waits, written as
profile.proto (gzip) and read back with the wire format alone
(pprof_decode.py): each sample type's total is the experiment's own (CPU
and off-CPU ticks by reason from er-dump, waits from gprofng); the phases
are in their functions' stacks with their time; every location points at
a mapping, every mapping is a load object with the build id its file
carries; an existing file is refused and left as it was."""

import os
import re
import subprocess

from harness import (check, cleanup, er_dump, finish, gprofng_rows, gprofng_text, program, run_gdb, workdir)
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
    check(profile["period"] == period and totals["samples"] == int(summary["ticks"]) and
          totals["cpu"] == int(summary["ticks"]) * period,
          "CPU: %d samples, %d ns: the experiment's %s ticks of %d ns" % (totals["samples"], totals["cpu"],
                                                                       summary["ticks"], period))
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
    if truth:
        cpu, slept, piped, locked = (float(x) for x in truth.groups())
        got = {name: pprof_decode.inclusive(profile, name, t) / 1e9 for name, t in
               (("compute_phase", "cpu"), ("sleep_phase", "sleep"), ("pipe_phase", "io-wait"),
                ("lock_phase", "lock-wait"))}
        near = lambda v, t: abs(v - t) <= 0.1 * t + 0.02
        check(near(got["compute_phase"], cpu) and near(got["sleep_phase"], slept) and
              near(got["pipe_phase"], piped) and near(got["lock_phase"], locked),
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

before = open(pb, "rb").read()
again = run_gdb(["collector report %s pprof %s" % (exp, pb)], ["/bin/true"], work)
print(again)
check("File exists" in again and open(pb, "rb").read() == before, "an existing file is refused and left as it was")
cleanup(work)
finish()
