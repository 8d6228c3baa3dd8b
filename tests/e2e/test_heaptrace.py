"""Heap tracing (collector heaptrace): a program makes known allocations,
each allocator in a function of its own (malloc, calloc, realloc that
moves and that stays, reallocarray, posix_memalign, aligned_alloc,
memalign, valloc, pvalloc, anonymous mmap), and leaks a known number of
blocks of known sizes from each.  Checked with gprofng (-leaks: every
leak with its stack, exact counts and bytes; -functions: allocations and
leaks per allocator) and with our reader (per allocating function): exact,
no false leak (gprofng's own collector shows every moved realloc as a
leak and misses posix_memalign and aligned_alloc).  Then: four threads
churning for 2 s (exact totals, no deadlock); malloc in a signal handler
and fork from a multithreaded state; `collector disable` while the only
thread is inside a traced call; a live two-thread malloc loop traced
after `gdb -p` and ended by `collector disable` from a second GDB
session; pause, the data limit, sampling from inside; and an ordinary
user."""

import os
import re
import subprocess
import time

from harness import (FRAME_END, Background, attach_gdb, check, check_recorded, cleanup, er_dump, finish, gprofng_leaks, program,
                     run_gdb, shared_workdir, unprivileged_prefix, workdir)

PROGRAM = program("heap_known")
# gprofng names the leaf frame after the allocator (its interposer is the
# runtime's wrapper, exported under the allocator's name), as its own
# collector does.
ALLOCATOR_OF = {"use_malloc": "malloc", "use_calloc": "calloc", "use_reallocarray": "reallocarray",
                "use_posix_memalign": "posix_memalign", "use_aligned_alloc": "aligned_alloc",
                "use_memalign": "memalign", "use_valloc": "valloc", "use_pvalloc": "pvalloc", "use_mmap": "mmap"}
work = workdir()


def truths(out):
    """The program's own account: {function: (allocs, bytes, leaks, leaked bytes)}."""
    return {m.group(1): tuple(int(v) for v in m.group(2, 3, 4, 5))
            for m in re.finditer(r"^truth: (\w+) (\d+) (\d+) (\d+) (\d+)$", out, re.M)}


def reader_sites(raw):
    sites, inside = {}, False
    for line in raw.splitlines():
        if line == "heap_sites:":
            inside = True
        elif inside:
            m = re.match(r"^(\d+) (\d+) (\d+) (\d+) (.+)$", line)
            if not m:
                break
            sites[m.group(5)] = tuple(int(v) for v in m.group(1, 2, 3, 4))
    return sites


def gprofng(path, *args):
    out = subprocess.run(["gprofng", "display", "text"] + list(args) + [path], capture_output=True, text=True,
                         timeout=120)
    return out.stdout + out.stderr


def gprofng_allocators(path):
    text = gprofng(path, "-metrics", "e.heapalloccnt:e.heapallocbytes:e.heapleakcnt:e.heapleakbytes", "-functions")
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S.*?)\s*$", line)
        if m:  # summed by name: two load objects can each have an mmap (libc's, named from its archived symbols)
            before = rows.get(m.group(5), (0, 0, 0, 0))
            rows[m.group(5)] = tuple(b + int(v) for b, v in zip(before, m.group(1, 2, 3, 4)))
    return rows, text


def check_known(mode, path, out):
    truth = truths(out)
    check(len(truth) == 11 and "reallocs_moved=20" in out and "reallocs_stayed=20" in out,
          "%s: the program made its known allocations, reallocs that moved and that stayed" % mode)
    check("warning:" not in out, "%s: every block aligned as asked, every call succeeded" % mode)
    summary, _, raw = er_dump(path)
    print(raw)
    sites = reader_sites(raw)
    for name, expected in truth.items():
        check(sites.get(name) == expected, "%s: our reader: %s allocations, bytes, leaks, leaked bytes %s (%s)"
              % (mode, name, expected, sites.get(name)))
    check(summary.get("damaged_packets") == "0" and summary.get("missing_stacks") == "0",
          "%s: our reader: no damaged packet, every stack there" % mode)
    leaks, total, text = gprofng_leaks(path)
    print(text[:6000])
    for name, (_, _, leak_count, leaked) in truth.items():
        got = leaks.get(name, (0, 0))
        check(got == (leak_count, leaked), "%s: gprofng -leaks: %s leaked %d block(s), %d bytes (%s)"
              % (mode, name, leak_count, leaked, got))
    # Beyond the program's own: what libc allocated for it (stdout's buffer).
    stacks = re.findall(r"Leak #\d+.*?\n((?:\s+\S+.*\n)+)", text)
    check(stacks and all(re.search(r"^\s+main \+", s, re.M) and re.search(r"^\s+_start \+", s, re.M) for s in stacks),
          "%s: gprofng -leaks: every leak's stack is whole, from the allocator to _start" % mode)
    others = {k: v for k, v in leaks.items() if k not in truth}
    check(all(k.startswith("_IO_") for k in others), "%s: gprofng -leaks: no other leak than stdio's own buffer "
          "(%s)" % (mode, others))
    rows, text = gprofng_allocators(path)
    print(text)
    for caller, allocator in ALLOCATOR_OF.items():
        allocs, nbytes, leak_count, leaked = truth[caller]
        got = rows.get(allocator)
        if allocator == "malloc":  # realloc's test blocks and stdio's buffer come from malloc too
            continue
        check(got == (allocs, nbytes, leak_count, leaked), "%s: gprofng -functions: %s %s (%s)"
              % (mode, allocator, (allocs, nbytes, leak_count, leaked), got))


out = run_gdb(["collector heaptrace on", "collector show", "collector enable", "run"], [PROGRAM], cwd=work)
print(out)
check("Heap tracing: on." in out and re.search(r"Heap tracing:\s+on", out), "GDB confirms and shows the setting")
check("exited normally" in out, "launch: the program ends normally")
check_known("launch", os.path.join(work, "test.1.er"), out)

out = run_gdb(["collector enable", "run"], [PROGRAM], cwd=work)
check_recorded(os.path.join(work, "test.2.er"), "heaptrace off")
check(not os.path.exists(os.path.join(work, "test.2.er", "heaptrace")), "heaptrace off: no heaptrace file")

# Sampling from inside the program: tracing needs the sampler process, and
# log.xml and GDB's closing line say so instead of an empty trace.
out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=timer", "collector heaptrace on", "collector enable", "run"],
              [PROGRAM], cwd=work)
inside = os.path.join(work, "test.3.er")
check_recorded(inside, "sampling from inside")
check("exited normally" in out and not os.path.exists(os.path.join(inside, "heaptrace")) and
      "Heap tracing was asked for but needs the sampler process" in er_dump(inside)[2],
      "sampling from inside: no heaptrace file, and log.xml says why")
check("heap tracing not recorded: the program sampled itself" in out,
      "sampling from inside: GDB's closing line says heap tracing was not recorded")

# `collector disable` while the only thread is inside a traced call (what
# a second GDB met when every thread of a tight allocation loop waited for
# the trace ring to drain; here a breakpoint in the runtime puts it there):
# GDB runs the thread out of the call, then closes the experiment.
out = run_gdb(["collector heaptrace on", "collector store experiment in_call.er", "collector enable",
               "set breakpoint pending on", "break col_trace_reserve", "run", "collector disable", "continue"],
              [PROGRAM], cwd=work)
print(out)
in_call = os.path.join(work, "in_call.er")
check(re.search(r"experiment \S*in_call.er closed \(.* 1 allocation or free", out) is not None and
      "could safely run a call" not in out and "exited normally" in out,
      "a thread inside a traced call: run out of it, the experiment closed with its one allocation")
check(er_dump(in_call)[0].get("closed") == "yes", "a thread inside a traced call: the experiment reads closed")

# Four threads churning malloc/free for 2 s: every allocation recorded, no
# leak (each thread frees what it holds), no deadlock.
out = run_gdb(["collector heaptrace on", "collector enable", "run"], [PROGRAM, "churn", "2"], cwd=work, timeout=240)
print(out)
m = re.search(r"churn_allocs=(\d+)", out)
summary, _, raw = er_dump(os.path.join(work, "test.4.er"))
sites = reader_sites(raw)
check(m is not None and "exited normally" in out, "churn: the program ends normally")
if m:
    made = int(m.group(1))
    churn = sites.get("churn", (0, 0, -1, -1))
    check(churn[0] == made and churn[2:] == (0, 0), "churn: all %d allocations recorded, no leak (%s)"
          % (made, churn))
    # Besides: stdout's buffer, and each thread's TLS block (glibc keeps it with the thread's cached stack).
    others = {k: v for k, v in sites.items() if k != "churn"}
    m = re.search(r"Tracing: (\d+) event stack\(s\) walked on the program's own threads .*?, (\d+) unwound here",
                  raw)
    check(m is not None and int(m.group(1)) > 0.99 * 2 * made,
          "churn: nearly every stack walked on the program's threads (%s)" % (m.group(0) if m else None))
    check(sum(v[2] for v in others.values()) == 5 and
          all(k == "_IO_file_doallocate" or "ld-linux" in k for k in others),
          "churn: the only other blocks still held are stdio's buffer and the 4 threads' TLS (%s)" % others)

# malloc in the program's own signal handler, and fork while three threads
# allocate: no hang, no recursion, the output unchanged.
out = run_gdb(["collector heaptrace on", "collector enable", "run"], [PROGRAM, "hostile"], cwd=work, timeout=240)
print(out)
check(re.search(r"handler_allocs=\d+ child_status=0", out) is not None and "child allocated" in out and
      "exited normally" in out, "hostile: handler allocations and a fork from threads, no hang")
summary = er_dump(os.path.join(work, "test.5.er"))[0]
check(summary.get("damaged_packets") == "0" and int(summary.get("heap_allocations", "0")) > 300,
      "hostile: the events are recorded, none damaged")

# After gdb -p, on a two-thread tight malloc/free loop (where heaptrack
# records nothing): the slow leaks made while the experiment ran appear
# with their stack; a second GDB session's `collector disable` ends it and
# restores the GOT slots; the program runs on to its normal end.
stop = os.path.join(work, "stop")
target = Background([PROGRAM, "attach", stop], cwd=work)
out = attach_gdb(target.pid, ["collector heaptrace on", "collector enable", "detach"], cwd=work)
print(out)
time.sleep(1.5)
out2 = attach_gdb(target.pid, ["collector disable", "detach"], cwd=work)
print(out2)
open(stop, "w").close()
status, rest = target.finish()
print(rest)
attached = os.path.join(work, "test.6.er")
check(status == 0 and "leaked_slowly=" in rest, "attach: the program ends normally after the disable")
check("closed" in out2, "attach: a second GDB session's collector disable closes the experiment")
summary, _, raw = er_dump(attached)
sites = reader_sites(raw)
slow = sites.get("leak_slowly", (0, 0, 0, 0))
loop = sites.get("tight_loop", (0, 0, 0, 0))
made = re.search(r"leaked_slowly=(\d+)", rest)
made = int(made.group(1)) if made else 0
# between the two sessions (1.5 s of sleep, more under load): at least
# 50 of the blocks the program made, never more, each a leak of 48 bytes
check(50 <= slow[2] <= made and slow[3] == 48 * slow[2] and slow[0] == slow[2],
      "attach: leak_slowly's blocks made while recording are all leaks of 48 bytes (%s of %d made)" % (slow, made))
check(loop[0] > 1000 and loop[2] <= 2, "attach: the tight loop's allocations recorded (%d), at most one in "
      "flight per thread at the end (%d)" % (loop[0], loop[2]))
leaks, total, text = gprofng_leaks(attached)
check(leaks.get("leak_slowly", (0, 0))[0] == slow[2], "attach: gprofng -leaks agrees (%s)" % (leaks.get("leak_slowly"),))
m = re.search(r"\((?:[^()]*)allocations, frees, exec, spawn, thread start\) were put in (\d+) GOT slot", raw)
check(m is not None and int(m.group(1)) > 0, "attach: log.xml says heap tracing started by attach (GOT slots)")

# C++: operator new and new[] show with their callers; leaks exact.
out = run_gdb(["collector heaptrace on", "collector enable", "run"], [program("heap_cpp")], cwd=work)
m = re.search(r"cpp_truth: make_nodes 10 1 (\d+) make_array 1 1 (\d+)", out)
node_size, array_size = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
cpp = os.path.join(work, "test.7.er")
sites = reader_sites(er_dump(cpp)[2])
nodes = next((v for k, v in sites.items() if "make_nodes" in k), None)
array = next((v for k, v in sites.items() if "make_array" in k), None)
check(m is not None and nodes == (10, 10 * node_size, 1, node_size) and array == (1, array_size, 1, array_size),
      "C++: our reader charges operator new's blocks to their callers, leaks exact (%s, %s)" % (nodes, array))
text = gprofng(cpp, "-leaks")
check(re.search(r"Bytes Leaked = %d\n\s+malloc" % node_size + FRAME_END + r"\s+operator new\(unsigned long\)" +
                FRAME_END + r"\s+make_nodes", text) is not None and
      # new[] ends in a tail call of operator new: that frame stands for both
      re.search(r"Bytes Leaked = %d\n\s+malloc" % array_size + FRAME_END +
                r"\s+operator new(?:\[\])?\(unsigned long\)" + FRAME_END + r"\s+make_array", text) is not None,
      "C++: gprofng -leaks shows each leak through operator new / new[] to its caller")
print(text)

# collector pause / resume: nothing recorded while paused.
# (Named: an earlier run's numbering cannot make this read another experiment.)
out = run_gdb(["collector heaptrace on", "collector store experiment paused.er", "collector enable",
               "break use_calloc", "run", "collector pause", "break use_realloc_stays", "continue", "collector resume",
               "continue"], [PROGRAM], cwd=work)
print(out)
sites = reader_sites(er_dump(os.path.join(work, "paused.er"))[2])
check("exited normally" in out and "use_calloc" not in sites and "use_realloc_moves" not in sites and
      sites.get("use_malloc", (0,))[0] == 100 and sites.get("use_mmap", (0,))[0] == 4,
      "pause: what was allocated while paused is not recorded, the rest is (%s)" % sorted(sites))

# collector limit: 4 x 2 s of churn (millions of events) under 1 MB stop
# near it; the program runs to its end.
out = run_gdb(["collector heaptrace on", "collector limit 1", "collector store experiment limited.er",
               "collector enable", "run"], [PROGRAM, "churn", "1"], cwd=work, timeout=240)
limited = os.path.join(work, "limited.er")
summary, _, raw = er_dump(limited)
size = os.path.getsize(os.path.join(limited, "heaptrace"))
check("churn_allocs=" in out and "exited normally" in out, "limit: the program runs to its end")
check(0 < size <= 1100000 and summary.get("damaged_packets") == "0" and "warning: id 14:" in raw,
      "limit: the trace stops near 1 MB (%d bytes), log.xml says so" % size)
cleanup(work)

prefix = unprivileged_prefix()
if prefix:
    work = shared_workdir()
    out = run_gdb(["collector heaptrace on", "collector enable", "run"], [PROGRAM], cwd=work, prefix=prefix)
    print(out)
    check_known("ordinary user", os.path.join(work, "test.1.er"), out)
    cleanup(work)
finish()
