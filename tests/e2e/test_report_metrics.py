"""Every traced kind in `collector report`: `metric` takes heap,
heap.allocations, heap.leaks (heaptrace), sync (synctrace), io and
io.bytes (iotrace), wall and offcpu (off-CPU time), and every view sums
it (before, the report knew CPU and counters only: "no metric heap ... it
has: cpu").  Checked inside GDB against the programs' own truths, per
function: heap_known's allocations, bytes and leaked bytes per allocating
function, exactly, and gprofng's inclusive allocations beside; sync_waits'
four waits as it timed them; io_activity's bytes written per function;
the threads view and folded stacks of a traced metric summing to its
total; a metric the experiment lacks refused with those it has; the
runtime's wrapper named as gprofng names it (malloc, not an inlined
helper of ours)."""

import os
import re

from harness import check, cleanup, finish, gprofng_text, program, run_gdb, workdir


def inclusive(out, name):
    m = re.search(r"^\s*[0-9.]+\s+[0-9.]+\s+([0-9.]+)\s+[0-9.]+\s+%s$" % re.escape(name), out, re.M)
    return float(m.group(1)) if m else None


def block(out, start, end):
    """The text of OUT from the line holding START to the one holding END."""
    at = out.find(start)
    return out[at:out.find(end, at + 1)] if at >= 0 else ""


work = workdir()

# Heap: exact, per allocating function.
folded = os.path.join(work, "heap.folded")
out = run_gdb(["collector heaptrace on", "collector enable", "run",
               "echo ==== bytes\\n", "collector report metric heap limit 100",
               "echo ==== allocations\\n", "collector report metric heap.allocations limit 100",
               "echo ==== leaks\\n", "collector report metric heap.leaks limit 100",
               "echo ==== threads\\n", "collector report threads metric heap",
               "collector report folded %s metric heap.leaks" % folded,
               "echo ==== missing\\n", "collector report metric sync"],
              [program("heap_known")], cwd=work)
print(out)
truth = {m.group(1): tuple(int(x) for x in m.group(2, 3, 4, 5))
         for m in re.finditer(r"truth: (\w+) (\d+) (\d+) (\d+) (\d+)", out)}
check(len(truth) == 11, "heap_known printed its 11 functions' truths (%d)" % len(truth))
sections = {name: block(out, "==== " + name, "====") for name in ("bytes", "allocations", "leaks", "threads", "missing")}
for name, (allocs, nbytes, _, leaked) in sorted(truth.items()):
    got = (inclusive(sections["allocations"], name), inclusive(sections["bytes"], name),
           inclusive(sections["leaks"], name) or 0)
    check(got == (allocs, nbytes, leaked), "%s: allocations, bytes, leaked bytes %s (truth %s)"
          % (name, got, (allocs, nbytes, leaked)))
theirs = gprofng_text(os.path.join(work, "test.1.er"), "-metrics", "i.heapalloccnt:i.heapallocbytes:i.heapleakbytes",
                      "-functions")
m = re.search(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+<Total>$", theirs, re.M)
totals = tuple(int(x) for x in m.groups()) if m else None  # (the program's stdout buffer is one more)
check(totals is not None and re.search(r": +%d Allocations in %d events$" % (totals[0], totals[0]),
                                       sections["allocations"], re.M) is not None,
      "the header counts every allocation, as gprofng's total (%s)" % (totals,))
check("heap_idle" not in out and inclusive(sections["bytes"], "malloc") is not None,
      "the runtime's wrapper is named malloc, as gprofng names it")
for name in ("use_malloc", "use_calloc", "use_mmap"):
    m = re.search(r"^\s*(\d+)\s+\d+\s+\d+\s+%s$" % name, theirs, re.M)
    check(m is not None and int(m.group(1)) == truth.get(name, (None,))[0],
          "gprofng's inclusive allocations of %s the same (%s)" % (name, m and m.group(1)))
m = re.search(r"^\s*(\d+)\s+100\.00\s+(\d+)\s+\d+$", sections["threads"], re.M)
check(m is not None and totals is not None and int(m.group(1)) == totals[1],
      "threads view of the heap metric: one thread with every byte, as gprofng's total (%s)" % (m and m.group(0)))
lines = open(folded).read().splitlines() if os.path.exists(folded) else []
check(totals is not None and sum(int(l.rsplit(" ", 1)[1]) for l in lines) == totals[2],
      "folded stacks of heap.leaks: the leaked bytes, as gprofng's total (%d lines)" % len(lines))
m = re.search(r'no metric "sync" in this experiment; it has: cpu (.*)$', sections["missing"], re.M)
check(m is not None and "heap heap.allocations heap.leaks" in m.group(1) and "sync" not in m.group(1),
      "a metric the experiment lacks is refused with those it has (%s)" % (m and m.group(0)))

# Sync waits: each as the program timed it.
out = run_gdb(["collector synctrace on", "collector synctrace threshold 0", "collector enable", "run",
               "collector report metric sync limit 100"], [program("sync_waits")], cwd=work)
print(out)
waits = {m.group(1): float(m.group(2)) for m in re.finditer(r"(wait_for_\w+)=([0-9.]+)", out)}
check(len(waits) == 4, "sync_waits timed its four waits (%s)" % waits)
for name, seconds in waits.items():
    got = inclusive(out, name)
    # (the wrapper's clock reads are inside the program's, within a millisecond)
    check(got is not None and abs(got - seconds) <= 0.002, "sync: %s %s s, timed %.4f" % (name, got, seconds))

# I/O: the bytes each function wrote.
out = run_gdb(["collector iotrace on", "collector enable", "run", "collector report metric io.bytes limit 100"],
              [program("io_activity")], cwd=work)
print(out)
for name, written in (("write_alpha", 12288), ("write_beta", 1750)):
    check(inclusive(out, name) == written, "io.bytes: %s %s bytes, it wrote %d" % (name, inclusive(out, name), written))
cleanup(work)
finish()
