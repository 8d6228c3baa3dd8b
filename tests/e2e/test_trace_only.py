"""Trace-only experiments: with clock profiling off, each tracing kind
(synchronization waits, I/O, heap) and counter profiling records its data,
gprofng shows it, and GDB's closing line says what was recorded.  Before,
such an experiment held nothing ("0 samples") and gprofng showed an empty
<Total>: the sampler process, which writes every kind, was started only
for the clock and counters."""

import os
import re
import subprocess

from harness import (Background, attach_gdb, check, cleanup, er_dump, finish, perf_events_refused, program, run_gdb,
                     skip_part, stop_attach_target, wait_closed, wait_for_data, workdir)

work = workdir()


def gprofng_total(exp, metrics):
    """gprofng's <Total> row for METRICS, as numbers."""
    out = subprocess.run(["gprofng", "display", "text", "-metrics", metrics, "-functions", exp], capture_output=True,
                         text=True, timeout=120)
    print(out.stdout + out.stderr)
    m = re.search(r"^\s*((?:[0-9.]+\s+)+)<Total>", out.stdout, re.M)
    return [float(x) for x in m.group(1).split()] if m else None


def record(kind, args, name, cwd=work):
    out = run_gdb(["collector profile off", "collector %s on" % kind, "collector store experiment %s.er" % name,
                   "collector enable", "run"], args, cwd=cwd)
    print(out)
    exp = os.path.join(cwd, name + ".er")
    summary, _, _ = er_dump(exp)
    check(summary.get("clock_packets") == "0" and not os.path.exists(os.path.join(exp, "profile")),
          "%s: no clock profile" % kind)
    closing = re.search(r"closed \((.*)\)\.", out)
    return exp, summary, closing.group(1) if closing else ""


exp, summary, closing = record("synctrace", [program("sync_waits"), "0"], "sync")
total = gprofng_total(exp, "i.sync:i.syncn")
check(total is not None and total[1] == 4 and total[0] >= 1.0,
      "synctrace only: gprofng shows the 4 waits, 1.1 s (%s)" % (total,))
check("clock profiling off; 4 synchronization waits" in closing, "synctrace only: GDB says so: %s" % closing)

io_dir = os.path.join(work, "io")
os.makedirs(io_dir)
exp, summary, closing = record("iotrace", [program("io_activity")], "io", cwd=io_dir)  # it writes files there
total = gprofng_total(exp, "i.ioreadbytes:i.iowritebytes:i.ioreadcnt")
check(total is not None and total[0] == float(summary.get("io_read_bytes", -1)) and total[0] >= 16384 + 700 + 84,
      "iotrace only: gprofng shows the bytes read, as our reader (%s, %s)" % (total, summary.get("io_read_bytes")))
check("clock profiling off; %s I/O calls" % summary.get("io_calls") in closing,
      "iotrace only: GDB says how many calls: %s" % closing)

exp, summary, closing = record("heaptrace", [program("heap_known")], "heap")
truth = re.findall(r"truth: \w+ (\d+) \d+ (\d+) \d+", run_gdb(["run"], [program("heap_known")], cwd=work))
total = gprofng_total(exp, "i.heapleakbytes:i.heapleakcnt:i.heapallocbytes:i.heapalloccnt")
check(total is not None and total[1] == float(summary.get("heap_leaks", -1)) and
      total[1] >= sum(int(leaks) for _, leaks in truth) > 0,
      "heaptrace only: gprofng shows every leak the program made, as our reader (%s)" % (total,))
check("clock profiling off; %s allocations and frees" % summary.get("heap_events") in closing,
      "heaptrace only: GDB says how many events: %s" % closing)

# 20 000 fresh pages: as many page faults, 200 samples at the default 100.
if perf_events_refused():
    out = run_gdb(["collector profile off", "collector hwprofile on"], [program("counters")], cwd=work)
    print(out)
    check(re.search(r"cannot be recorded: .*perf events", out) is not None,
          "counters only, perf events refused: GDB refuses the counter when it is typed")
    skip_part("counters only: counters are perf events, which the kernel refuses here (GDB's refusal checked)")
else:
    exp, summary, closing = record("hwprofile", [program("counters"), "pages", "20000", "0.1"], "counters")
    total = gprofng_total(exp, "e.page-faults")
    check(total is not None and total[0] >= 20000,
          "counters only: gprofng shows the 20 000 page faults (%s)" % (total,))
    check(re.search(r"clock profiling off; \d+ counter overflow sample", closing) is not None,
          "counters only: GDB says how many samples: %s" % closing)
# After `gdb -p`: heap tracing alone, the experiment going on after the
# detach until the program ends (attach_target churns malloc in 2 threads).
# It runs until told to stop (SIGUSR1), once the experiment holds enough:
# beside two busy loops GDB's attach took most of a fixed 2 s run (52
# allocations recorded).  Paced, so that the experiment stays small.
attach_dir = os.path.join(work, "attached")
os.makedirs(attach_dir)
target = Background([program("attach_target"), "300", "paced"], cwd=attach_dir)
out = attach_gdb(target.pid, ["collector profile off", "collector heaptrace on", "collector enable", "detach"],
                 cwd=attach_dir)
print(out)
exp = os.path.join(attach_dir, "test.1.er")
check(wait_for_data(exp, lambda summary, funcs: int(summary.get("heap_allocations", 0) or 0) > 1000),
      "heaptrace only, after gdb -p: allocations recorded while the program runs")
stop_attach_target(target, busy=False)
wait_closed(exp)
summary, _, _ = er_dump(exp)
total = gprofng_total(exp, "i.heapalloccnt")
check(int(summary.get("heap_allocations", 0)) > 1000 and total is not None and
      total[0] == float(summary["heap_allocations"]),
      "heaptrace only, after gdb -p: the allocations traced, gprofng as our reader (%s, %s)"
      % (summary.get("heap_allocations"), total))
cleanup(work)
finish()
