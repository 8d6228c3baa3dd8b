"""The reader as a strict check: a recursive function's inclusive time is
the time spent under it, once per stack, as in gprofng (not once per
frame); counter packets (hwcounters) are counted as gprofng counts them;
er-dump --help prints its usage; a damaged log.xml is an error
naming the file and line, as in gprofng; damaged packets are counted and
make er-dump exit 3; and no damaged data file makes it crash."""

import os
import re
import shutil
import struct
import subprocess

from harness import ER_DUMP, check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, workdir

work = workdir()
out = run_gdb(["collector enable", "run"], [program("recursive"), "1.0"], cwd=work)
exp = os.path.join(work, "test.1.er")
summary, funcs, raw = er_dump(exp)
print(raw)
gfuncs, total, text = gprofng_functions(exp)
print(text)
ours = funcs.get("recurse", (0, 0))[1]
theirs = gfuncs.get("recurse", (0, 0))[1]
cpu = float(summary.get("cpu_seconds", 0))
check(0 < ours <= cpu, "recurse: inclusive %.3f s within the run's %.3f s" % (ours, cpu))
check(abs(ours - theirs) < 0.011, "recurse: our inclusive time (%.3f s) is gprofng's (%.3f s)" % (ours, theirs))
check(abs(funcs.get("main", (0, 0))[1] - gfuncs.get("main", (0, 0))[1]) < 0.011, "main: inclusive time as gprofng's")

r = subprocess.run([ER_DUMP, "--help"], capture_output=True, text=True)
check(r.returncode == 0 and r.stdout.startswith("usage: er-dump EXPERIMENT.er"), "er-dump --help prints usage")
r = subprocess.run([ER_DUMP, "--bogus"], capture_output=True, text=True)
check(r.returncode == 2 and "usage" in r.stderr, "er-dump with an unknown option: usage, exit 2")

# Counter packets (hwcounters, gprofng's shape in log.xml): one overflow of
# 100 page faults on each clock sample's stack, written the way the
# writer's data-kind table describes them; our reader counts what
# gprofng counts, in all and per function.
counted = os.path.join(work, "counted.er")
shutil.copytree(exp, counted)
with open(os.path.join(counted, "profile"), "rb") as f:
    clock = f.read()
packets, at = [], 0
while at + 56 <= len(clock):
    size, kind = struct.unpack_from("<HH", clock, at)
    if size == 0:
        at = (at // 16384 + 1) * 16384
        continue
    if kind == 8:
        lwpid, thrid, cpu = struct.unpack_from("<QQI", clock, at + 8)
        tstamp, frinfo = struct.unpack_from("<qQ", clock, at + 28)
        packets.append(struct.pack("<HHIQQIIqQIIQ", 64, 3, 0, lwpid, thrid, cpu, 0, tstamp, frinfo, 0, 0, 100))
    at += size
with open(os.path.join(counted, "hwcounters"), "wb") as f:
    f.write(b"".join(packets))
fields = [("LWPID", 8, "INT64"), ("THRID", 16, "INT64"), ("CPUID", 24, "INT32"), ("TSTAMP", 32, "INT64"),
          ("FRINFO", 40, "INT64"), ("HWCTAG", 48, "INT32"), ("HWCINT", 56, "INT64")]
with open(os.path.join(counted, "log.xml"), "a") as f:
    f.write('<profdata fname="hwcounters"/>\n<profpckt kind="3" uname="Hardware counter profiling data">\n' +
            "".join('  <field name="%s" offset="%d" type="%s"/>\n' % fld for fld in fields) + "</profpckt>\n" +
            '<profile name="hwcounter" cpuver="-1" hwcname="page-faults" int_name="page-faults" interval="100" '
            'tag="0" memop="0"/>\n')
summary, _, raw = er_dump(counted)
text = subprocess.run(["gprofng", "display", "text", "-metrics", "e.page-faults:i.page-faults", "-functions", counted],
                      capture_output=True, text=True).stdout
print(text)
theirs = {m.group(3): (int(m.group(1)), int(m.group(2)))
          for m in re.finditer(r"^\s*(\d+)\s+(\d+)\s+(\S.*?)\s*$", text, re.M)}
ours = {m.group(3): (int(m.group(1)), int(m.group(2)))
        for m in re.finditer(r"^page-faults (\d+) (\d+) (.+)$", raw, re.M)}
check(packets and summary.get("hwc_events page-faults") == str(100 * len(packets)) and
      theirs.get("<Total>", (0,))[0] == 100 * len(packets),
      "counters: %d overflows of 100 page faults, our reader and gprofng count %s and %s"
      % (len(packets), summary.get("hwc_events page-faults"), theirs.get("<Total>")))
check(ours.get("recurse") == theirs.get("recurse") and ours.get("main") == theirs.get("main") and ours.get("main"),
      "counters: per function as gprofng (recurse %s / %s, main %s / %s)"
      % (ours.get("recurse"), theirs.get("recurse"), ours.get("main"), theirs.get("main")))

broken = os.path.join(work, "broken.er")
shutil.copytree(exp, broken)
with open(os.path.join(broken, "log.xml"), "rb") as f:
    lines = f.read().split(b"\n")
lines[5] = lines[5][:len(lines[5]) // 2]  # a tag cut in half on line 6
with open(os.path.join(broken, "log.xml"), "wb") as f:
    f.write(b"\n".join(lines))
r = subprocess.run([ER_DUMP, broken], capture_output=True, text=True)
print(r.stderr)
# libxml2 notices the cut tag where the next line starts.
check(r.returncode == 1 and re.search(r"log.xml: XML parse error at line [67]:", r.stderr) is not None,
      "a cut tag in log.xml is an error at its line (exit %d)" % r.returncode)

# Every single-byte change of data.frameinfo's first 2 KB: never a crash;
# a change er-dump notices makes it exit 3.
damaged = os.path.join(work, "damaged.er")
shutil.copytree(exp, damaged)
frames = os.path.join(damaged, "data.frameinfo")
with open(frames, "rb") as f:
    original = f.read()
crashes, noticed = [], 0
for offset in range(0, min(len(original), 2048)):
    for value in (0x00, 0xFF):
        data = bytearray(original)
        if data[offset] == value:
            continue
        data[offset] = value
        with open(frames, "wb") as f:
            f.write(data)
        r = subprocess.run([ER_DUMP, damaged], capture_output=True, text=True)
        if r.returncode < 0 or r.returncode not in (0, 3):
            crashes.append((offset, value, r.returncode))
        noticed += r.returncode == 3
check(not crashes, "no single-byte change of data.frameinfo crashes er-dump (%s)" % crashes[:5])
check(noticed > 0, "damage is noticed and reported with exit 3 (%d changes)" % noticed)
cleanup(work)
finish()
