"""Programs built with AddressSanitizer or ThreadSanitizer (gcc
-fsanitize=address|thread), among the most common programs debugged in
GDB, run and are profiled as without the collector.  alloc_crossing makes
blocks before the attach, frees and grows them after, and leaks LEAKS
blocks after it.
- Launch: AddressSanitizer refuses to start unless its runtime comes first
  among the loaded objects ("ASan runtime does not come first in initial
  library list"): the runtime is preloaded after it.  The exit status is
  the one GDB alone gives (LeakSanitizer does not run under ptrace), the
  CPU profile holds the program's work; heap tracing, which its
  allocator (first) keeps from ours, says so instead of a silent zero.
- Attach (`gdb -p`, collector enable, detach): heap tracing off, the
  program's malloc and free stay untouched; on, the wrappers call the
  sanitizer's allocator (they called glibc's: "munmap_chunk(): invalid
  pointer", or LeakSanitizer's report vanished and the exit status went
  from 1 to 0).  Exit status, output and LeakSanitizer's report as in the
  bare run; with heap tracing, the leaks exact in gprofng's -leaks."""

import os
import re
import subprocess

from harness import (SOURCE, attach_then_go, check, cleanup, er_dump, finish, gprofng_leaks, run_gdb,
                     shared_workdir, skip_part, wait_closed)

LEAKS, LEAK_SIZE = 100, 777  # tests/programs/alloc_crossing.c
work = shared_workdir()


def build(sanitizer):
    path = os.path.join(work, "alloc_crossing_" + sanitizer)
    programs = os.path.join(SOURCE, "tests", "programs")
    done = subprocess.run(["gcc", "-O1", "-g", "-fsanitize=" + sanitizer, "-pthread", "-I", programs, "-o", path,
                           os.path.join(programs, "alloc_crossing.c")], capture_output=True, text=True)
    if done.returncode != 0:
        skip_part("-fsanitize=%s: gcc cannot build with it here (%s)" % (sanitizer, done.stderr.strip()[-200:]))
        return None
    return path


def leak_summary(text):
    m = re.search(r"SUMMARY: AddressSanitizer: \d+ byte\(s\) leaked in \d+ allocation\(s\)", text)
    return m.group(0) if m else None


def check_profile(label, exp):
    summary, funcs, raw = er_dump(exp)
    check(summary.get("closed") == "yes" and summary.get("damaged_packets") == "0",
          "%s: the experiment is closed and undamaged" % label)
    # churn runs 0.5 s of CPU: at 10 ms, 50 samples, each from a CPU-time
    # clock (not lost to steal); inside the sanitizer's runtime too (a
    # sample its sigaction held back to its own safe points was cut there:
    # 0.05-0.28 s)
    if not check(funcs.get("churn", (0, 0))[1] >= 0.4, "%s: the CPU profile holds churn (%s s)"
                 % (label, funcs.get("churn", (0, 0))[1])):
        print(raw)


def attach_run(sanitizer, prog, heap, truth):
    label = "%s, attach, heaptrace %s" % (sanitizer, heap)
    target, out, _ = attach_then_go([prog], ["collector heaptrace %s" % heap, "collector enable"], work,
                                    go_name="go-%s-%s" % (sanitizer, heap))
    status, output = target.finish()
    exp = os.path.join(work, "test.1.er")
    check("recording %s" % exp in out, "%s: enabled" % label)
    check(status == truth[0], "%s: exit status %d as bare (%d)" % (label, truth[0], status))
    check(leak_summary(output) == leak_summary(truth[1]), "%s: LeakSanitizer's report as bare (%s)"
          % (label, leak_summary(output)))
    check("alloc_crossing: done" in output or "alloc_crossing: done" not in truth[1], "%s: output as bare" % label)
    check("invalid pointer" not in output and "attempting free" not in output, "%s: no allocator mixed" % label)
    wait_closed(exp)
    check_profile(label, exp)
    if heap == "on":
        leaks, _, text = gprofng_leaks(exp)
        got = leaks.get("make_leaks", (0, 0))
        if not check(got == (LEAKS, LEAKS * LEAK_SIZE), "%s: gprofng -leaks: make_leaks left %d blocks (%s)"
                     % (label, LEAKS, got)):
            print(text[:4000])
    cleanup(exp)


def launch_run(sanitizer, prog):
    label = "%s, launch" % sanitizer
    alone = run_gdb(["run"], [prog], work)
    out = run_gdb(["collector heaptrace on", "collector enable", "run"], [prog], work)
    print(out)
    check("does not come first" not in out, "%s: the sanitizer's runtime comes first" % label)
    exited = re.search(r"exited (?:normally|with code \d+)", alone)
    check(exited is not None and exited.group(0) in out, "%s: the exit status GDB alone gives (%s)"
          % (label, exited.group(0) if exited else alone[-500:]))
    if sanitizer == "address":  # its allocator comes first: nothing reaches ours, and GDB says so
        check("no allocation traced: the program's malloc is libasan" in out,
              "%s: heap tracing says the program's malloc is AddressSanitizer's" % label)
    exp = os.path.join(work, "test.1.er")
    check_profile(label, exp)
    cleanup(exp)


for sanitizer in ("address", "thread"):
    prog = build(sanitizer)
    if prog is None:
        continue
    bare = subprocess.run([prog], cwd=work, capture_output=True, text=True, timeout=120)
    truth = (bare.returncode, bare.stdout + bare.stderr)
    print("%s: bare run: status %d, %s" % (sanitizer, truth[0], leak_summary(truth[1])))
    if sanitizer == "address":
        check(truth[0] == 1 and leak_summary(truth[1]) == "SUMMARY: AddressSanitizer: %d byte(s) leaked in %d "
              "allocation(s)" % (LEAKS * LEAK_SIZE, LEAKS), "address: the bare run reports its leaks and exits 1")
    else:
        check(truth[0] == 7, "thread: the bare run exits 7")
    launch_run(sanitizer, prog)
    for heap in ("off", "on"):
        attach_run(sanitizer, prog, heap, truth)
finish()
