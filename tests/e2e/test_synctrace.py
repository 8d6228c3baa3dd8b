"""Synchronization-wait tracing (collector synctrace): a program with four
known waits (a mutex held 400 ms, a condition 250 ms, a semaphore 150 ms,
a join 300 ms; it measures each itself) and 100 000 lock/unlock pairs no
one waits in.  Checked with gprofng (Sync Wait Time and Count per
function) and with our reader: each wait within 10 % of what the program
measured, exactly 4 events with the threshold calibrated and with 0 (a
lock that does not wait is never an event), none above a threshold longer
than every wait; the same after `gdb -p`, and as an unprivileged user.
A recursive mutex two threads contend for, and a signal handler that locks
and posts while the main thread waits: no deadlock, no recursion, the
program's output unchanged, waits recorded."""

import os
import re
import subprocess

from harness import (Background, attach_gdb, check, check_recorded, cleanup, er_dump, finish, program, run_gdb,
                     shared_workdir, unprivileged_prefix, wait_closed, workdir)

PROGRAM = program("sync_waits")
WAITS = ("wait_for_mutex", "wait_for_condition", "wait_for_semaphore", "wait_for_join")
work = workdir()


def measured(output):
    return {name: float(value) for name, value in re.findall(r"(wait_for_\w+)=([0-9.]+)", output)}


def gprofng_sync(path):
    out = subprocess.run(["gprofng", "display", "text", "-metrics", "i.sync:i.syncn", "-functions", path],
                         capture_output=True, text=True, timeout=120)
    rows = {}
    for line in (out.stdout + out.stderr).splitlines():
        m = re.match(r"^\s*([0-9.]+)\s+(\d+)\s+(.+?)\s*$", line)
        if m:
            rows[m.group(3)] = (float(m.group(1)), int(m.group(2)))
    return rows, out.stdout + out.stderr


def reader_sync(path):
    summary, funcs, raw = er_dump(path)
    waits, in_section = {}, False
    for line in raw.splitlines():
        if line == "sync_functions:":
            in_section = True
        elif in_section:
            seconds, name = line.split(" ", 1)
            waits[name] = float(seconds)
    return summary, waits, raw


def check_run(mode, path, truth, events=4):
    rows, text = gprofng_sync(path)
    print(text)
    summary, waits, raw = reader_sync(path)
    print(raw)
    check(len(truth) == 4, "%s: the program measured its four waits (%s)" % (mode, truth))
    total = rows.get("<Total>", (0, 0))
    check(total[1] == events, "%s: gprofng counts %d sync events (%s)" % (mode, events, total[1]))
    check(summary.get("sync_waits") == str(events), "%s: our reader reads %d waits (%s)"
          % (mode, events, summary.get("sync_waits")))
    for name, seconds in truth.items():
        got = rows.get(name, (0, 0))[0]
        check(abs(got - seconds) <= 0.1 * seconds, "%s: gprofng: %s waited %.3f s (the program measured %.3f)"
              % (mode, name, got, seconds))
        got = waits.get(name, 0)
        check(abs(got - seconds) <= 0.1 * seconds, "%s: our reader: %s waited %.3f s" % (mode, name, got))


out = run_gdb(["collector synctrace on", "collector enable", "run"], [PROGRAM], cwd=work)
print(out)
check("Synchronization-wait tracing: on, threshold calibrate." in out, "GDB confirms the setting")
check_run("calibrated", os.path.join(work, "test.1.er"), measured(out))
summary, funcs, raw = er_dump(os.path.join(work, "test.1.er"))
check(summary.get("sync_threshold_us") == "-1" and "threshold calibrated to" in raw,
      "calibrated: log.xml says calibrated (-1) and the comment gives the value")

out = run_gdb(["collector synctrace on", "collector synctrace threshold 0", "collector enable", "run"], [PROGRAM],
              cwd=work)
print(out)
check_run("threshold 0", os.path.join(work, "test.2.er"), measured(out))

# Longer than any wait: nothing is recorded, the file is there and empty.
out = run_gdb(["collector synctrace on", "collector synctrace threshold 2000000", "collector enable", "run"],
              [PROGRAM], cwd=work)
print(out)
summary, waits, raw = reader_sync(os.path.join(work, "test.3.er"))
check(summary.get("sync_waits") == "0" and summary.get("sync_threshold_us") == "2000000",
      "threshold 2 s: no wait recorded (%s)" % summary.get("sync_waits"))

out = run_gdb(["collector enable", "run"], [PROGRAM], cwd=work)
check_recorded(os.path.join(work, "test.4.er"), "synctrace off")
check("sync_waits" not in er_dump(os.path.join(work, "test.4.er"))[2] and
      not os.path.exists(os.path.join(work, "test.4.er", "synctrace")), "synctrace off: no synctrace file")

# After gdb -p: the waits after the attach are traced.
target = Background([PROGRAM, "100000", "ready"], cwd=work)
out = attach_gdb(target.pid, ["collector synctrace on", "collector enable", "detach"], cwd=work)
print(out)
status, rest = target.finish()
print(rest)
check(status == 0 and "wait_for_join=" in rest, "attach: the program ends normally, its output unchanged")
attached = os.path.join(work, "test.5.er")
wait_closed(attached)
check_run("attach", attached, measured(rest))

# collector disable puts every patched GOT slot back: the program's slots
# for pthread_mutex_lock and sem_wait, read before enable, during, after.
# (Lazy binding: a slot not yet used holds its PLT stub; put back, it
# holds the stub or, equally, the function the stub would resolve to.)
def slot_addresses(pid):
    relocs = subprocess.run(["readelf", "-r", "-W", PROGRAM], capture_output=True, text=True).stdout
    offsets = {m.group(2): int(m.group(1), 16) for m in
               re.finditer(r"^([0-9a-f]+)\s+\S+\s+R_X86_64_JUMP_SLOT\s+\S+\s+(pthread_mutex_lock|sem_wait)@",
                           relocs, re.M)}
    real = os.path.realpath(PROGRAM)
    with open("/proc/%d/maps" % pid) as f:
        base = min(int(line.split("-")[0], 16) for line in f if line.rstrip().endswith(real))
    return {name: base + off for name, off in offsets.items()}


def read_slots(tag):
    return ["python v = int(gdb.parse_and_eval('*(unsigned long *)%d')); print('%s %s %%#x %%s' %% (v, "
            "gdb.execute('info symbol %%d' %% v, to_string=True).strip()))" % (address, tag, name)
            for name, address in sorted(slots.items())]


target = Background([PROGRAM, "100000", "ready"], cwd=work)
slots = slot_addresses(target.pid)
out = attach_gdb(target.pid, read_slots("before") + ["collector synctrace on", "collector enable"] +
                 read_slots("during") + ["collector disable"] + read_slots("after") + ["detach"], cwd=work)
print(out)
try:  # the runtime's mapping, while the process still runs
    with open("/proc/%d/maps" % target.pid) as f:
        runtime_ranges = [tuple(int(x, 16) for x in line.split()[0].split("-")) for line in f
                          if line.rstrip().endswith("libcollector.so")]
except OSError:
    runtime_ranges = []
status, rest = target.finish()
seen = {(m.group(1), m.group(2)): (m.group(3), m.group(4)) for m in
        re.finditer(r"^(before|during|after) (\w+) (0x[0-9a-f]+) (.*)$", out, re.M)}
check(len(slots) == 2 and len(seen) == 6, "GOT slots: both found and read three times (%s)" % sorted(seen))
for name in sorted(slots):
    before, during, after = (seen.get((tag, name), ("?", "")) for tag in ("before", "during", "after"))
    in_runtime = during[0] != "?" and any(lo <= int(during[0], 16) < hi for lo, hi in runtime_ranges)
    check(during[0] != before[0] and in_runtime,
          "GOT slots: %s redirected to the runtime while collecting (%s)" % (name, during[0]))
    check(after[0] == before[0] or (after[1].startswith(name) and "libc.so" in after[1]),
          "GOT slots: collector disable put %s back (before %s, after %s)" % (name, before, after))
check(status == 0 and "wait_for_join=" in rest, "GOT slots: the program ends normally after the disable")

# Descendants: a forked child and a program the shell of system() runs
# record their own waits in their own sub-experiments.
out = run_gdb(["collector synctrace on", "collector enable", "run"], [PROGRAM, "100000", "fork"], cwd=work)
print(out)
founder = os.path.join(work, "test.7.er")
runs = re.split(r"(?=wait_for_mutex=)", out)
truths = [measured(r) for r in runs if "wait_for_join=" in r]
check(len(truths) == 2, "descendants: both the child and the system() program ran their waits")
subs = sorted(n for n in os.listdir(founder) if n.startswith("_") and n.endswith(".er"))
print(subs)
check(er_dump(founder)[0].get("sync_waits") == "0", "descendants: the founder waited in nothing (0 waits)")
if len(truths) == 2:
    check_run("descendants: forked child", os.path.join(founder, "_f1.er"), truths[0])
    leaf = [n for n in subs if n.startswith("_x1_") and n.endswith("_x1.er")]
    check(len(leaf) == 1, "descendants: the program system() ran is one sub-experiment (%s)" % leaf)
    if leaf:
        check_run("descendants: under system()", os.path.join(founder, leaf[0]), truths[1])

# Hostile: recursive mutex, waits in and around signal handlers (threshold 0).
out = run_gdb(["collector synctrace on", "collector synctrace threshold 0", "collector enable", "run"],
              [program("sync_hostile")], cwd=work, timeout=60)
print(out)
check("hostile done recursive=40 waits=200" in out and "exited normally" in out,
      "hostile: the program ends normally, its output unchanged")
summary, waits, raw = reader_sync(os.path.join(work, "test.8.er"))
print(raw)
# (a semaphore posted before the main thread waits is taken by the try:
# no wait; most of the 200 do wait)
check(int(summary.get("sync_waits", "0")) >= 100 and summary.get("closed") == "yes",
      "hostile: its waits are recorded (%s)" % summary.get("sync_waits"))
cleanup(work)

# As an ordinary user.
prefix = unprivileged_prefix()
if prefix:
    work = shared_workdir()
    out = run_gdb(["collector synctrace on", "collector enable", "run"], [PROGRAM], cwd=work, prefix=prefix)
    print(out)
    check_run("ordinary user", os.path.join(work, "test.1.er"), measured(out))
    cleanup(work)
finish()
