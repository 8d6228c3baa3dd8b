"""A library unloaded and another loaded at its address keep their own
names.  reload_same_address burns 0.5 s of CPU in liba.so's burn_a,
dlcloses it, then 0.5 s in libb.so's burn_b (the same size: the loader puts
it where liba was, and the program says whether it did).  map.xml closes
liba's segment before libb's opens (an unmap record), so gprofng, our
reader and our report each give 0.5 s to each function.  Before, gprofng
gave burn_a all of it ("Segment <libb.so> loaded with same address") and
our reader burn_b all of it.  Each dlclose is recorded as an unload at its
time, libb's too (before, only a later mapping at the address said so).
The same in a loop (300 cycles of liba then libb, 4 ms each: 1.2 s in each): the sampler
takes a dlclose's word after the kernel's record of the next library's
mapping at the address, now and then; that late word must not close the
new library (before, issue 40: gprofng charged most of the CPU to one
function, with "loaded with same address" warnings).  Where perf events
are refused (no kernel record of a mapping) the same: each dlclose waits
for the sampler to read the mappings while its object is there, and a
mapping read is stamped from the previous reading on (before, skipped:
a library that came and went between two readings took the next one's
name).""" 

import os
import re
import subprocess

from harness import (BUILD, PROGRAMS, check, cleanup, er_dump, finish, gprofng_functions, perf_events_refused, program,
                     run_gdb, sampling_seconds, skip_part, skip_test, workdir)

work = workdir()
out = run_gdb(["collector enable", "run"], [program("reload_same_address"), PROGRAMS, "0.5"], cwd=work)
print(out)
m = re.search(r"same_address=(\d)", out)
check(m is not None, "the program ran both libraries")
if m is not None and m.group(1) != "1":
    skip_test("the loader put libb.so elsewhere than liba.so here, so no address was reused: %s" % m.group(0))
exp = os.path.join(work, "test.1.er")
mapxml = open(os.path.join(exp, "map.xml")).read()
check(re.search(r'<event kind="unmap" [^>]*/>\n<event kind="map" object="segment" [^>]*libburn_b\.so', mapxml)
      is not None, "map.xml unmaps liba's segment just before libb's takes its address")
# Each dlclose is an unload at its time (the runtime's dlclose wrapper): libb's
# too, though nothing takes its place.
code = re.search(r'<event kind="map" object="segment" [^>]*vaddr="(0x[0-9A-F]+)"[^>]*modes="0x005"[^>]*libburn_b\.so',
                 mapxml)
unmaps = re.findall(r'<event kind="unmap" tstamp="([0-9.]+)" vaddr="%s"/>' % code.group(1), mapxml) if code else []
check(len(unmaps) == 2, "map.xml unloads liba and libb, each at its dlclose (%s)" % unmaps)
bound = sampling_seconds(0.5, 0.01)
funcs, total, text = gprofng_functions(exp)
print(text)
check("loaded with same address" not in text, "gprofng does not warn of a segment at the same address")
_, ours, _ = er_dump(exp)
report = subprocess.run([os.path.join(BUILD, "experiment", "gdbcol-report"), exp], capture_output=True, text=True,
                        timeout=120).stdout
print(report)
reported = {m.group(2): float(m.group(1)) for m in re.finditer(r"^\s+([0-9.]+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+(\S+)$",
                                                                report, re.M)}
for name in ("burn_a", "burn_b"):
    for label, seconds in (("gprofng", funcs.get(name, (0, 0))[0]), ("our reader", ours.get(name, (0, 0))[0]),
                           ("our report", reported.get(name, 0.0))):
        check(abs(seconds - 0.5) <= bound, "%s: %s has %.3f s (0.5 +- %.3f)" % (label, name, seconds, bound))

out = run_gdb(["collector enable", "run"], [program("reload_same_address"), PROGRAMS, "1.2", "300"], cwd=work)
print(out)
m = re.search(r"cycles=(\d+) same_address_cycles=(\d+)", out)
check(m is not None and int(m.group(2)) > 0, "the loop ran, and the loader reused the address (%s)"
      % (m.group(0) if m else None))
exp = os.path.join(work, "test.2.er")
funcs, total, text = gprofng_functions(exp)
print(text)
check("loaded with same address" not in text, "loop: gprofng does not warn of a segment at the same address")
_, ours, _ = er_dump(exp)
bound = sampling_seconds(1.2, 0.01) + 0.02  # (600 edges: the samples on them go to either side)
for name in ("burn_a", "burn_b"):
    for label, seconds in (("gprofng", funcs.get(name, (0, 0))[0]), ("our reader", ours.get(name, (0, 0))[0])):
        check(abs(seconds - 1.2) <= bound, "loop: %s: %s has %.3f s (1.2 +- %.3f)" % (label, name, seconds, bound))
cleanup(work)
finish()
