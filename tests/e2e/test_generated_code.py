"""Code generated at run time, named with the Collector API
(collector_func_load / collector_func_unload, Oracle's signatures).
generated_code writes a loop's machine code into an anonymous page, makes
it executable, declares it as jit_burn (with a source file and a line
table), burns SECONDS of CPU in it, unloads it, then burns as long in a
compiled function.  gprofng, our reader and our report name jit_burn with
its time; gprofng disassembles it from the experiment's dyntext, with the
lines; map.xml has its function record and its unload.  Before, the API
had no such calls and the time was <static>@0x1000 (<anon>).  Sampled
from outside (the default) and from inside (the fallback)."""

import os
import re
import subprocess

from harness import (BUILD, check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, sampling_seconds,
                     workdir)

work = workdir()
for source in ("process", "timer"):
    out = run_gdb(["collector store experiment %s.er" % source, "collector enable", "run"],
                  [program("generated_code"), "0.5"], cwd=work, env={"GDBCOL_CLOCK_SOURCE": source})
    print(out)
    m = re.search(r"jit_cpu=([0-9.]+) compiled_cpu=([0-9.]+)", out)
    check(m is not None, "%s: the program ran its generated code" % source)
    if m is None:
        continue
    jit, compiled = float(m.group(1)), float(m.group(2))
    exp = os.path.join(work, source + ".er")
    mapxml = open(os.path.join(exp, "map.xml")).read()
    load = re.search(r'<event kind="map" object="function" tstamp="[0-9.]+" vaddr="(0x[0-9A-F]+)" size="11" '
                     r'name="jit_burn" />', mapxml)
    check(load is not None and '<event kind="unmap" tstamp="' in mapxml.split(load.group(0))[1] and
          'vaddr="%s"/>' % load.group(1) in mapxml.split(load.group(0))[1],
          "%s: map.xml has jit_burn's function record, then its unload" % source)
    bound = sampling_seconds(jit, 0.01)
    funcs, _, text = gprofng_functions(exp)
    print(text)
    _, ours, _ = er_dump(exp)
    report = subprocess.run([os.path.join(BUILD, "experiment", "gdbcol-report"), exp], capture_output=True,
                            text=True, timeout=120).stdout
    reported = {m.group(2): float(m.group(1))
                for m in re.finditer(r"^\s+([0-9.]+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+(\S+)$", report, re.M)}
    for label, seconds in (("gprofng", funcs.get("jit_burn", (0, 0))[0]), ("our reader", ours.get("jit_burn", (0, 0))[0]),
                           ("our report", reported.get("jit_burn", 0.0))):
        check(abs(seconds - jit) <= bound, "%s, %s: jit_burn has %.3f s (%.3f +- %.3f)" % (source, label, seconds, jit,
                                                                                      bound))
    check(abs(funcs.get("compiled_burn", (0, 0))[0] - compiled) <= sampling_seconds(compiled, 0.01),
          "%s, gprofng: compiled_burn has its %.3f s" % (source, compiled))
    disasm = subprocess.run(["gprofng", "display", "text", "-disasm", "jit_burn", exp], capture_output=True,
                            text=True, timeout=120).stdout
    print(disasm)
    check(re.search(r"\[11\]\s+2:\s+add\s+%rdi,%rax", disasm) is not None and "generated.jit" in disasm,
          "%s: gprofng disassembles jit_burn from dyntext, with its source file and lines" % source)
cleanup(work)
finish()
