"""A Go program (tests/programs/go_work.go, built here with Debian's Go):
its goroutines' stacks walk from main.leafWork through main.middle to the
goroutine's function, nothing under <Stack-unwind-failed>, in gprofng and
our reader (issue 40: every sample was unwind-failed, as Go's linker
writes no .eh_frame: the unwinder reads .debug_frame).  Built stripped
(-ldflags=-s -w: no call frame information, no symbols), its stacks are
walked by frame pointers, and GDB says its functions have no names.
Where perf events are refused the program must sample itself, which a
static program (Go's) cannot: GDB says why nothing was recorded."""

import os
import shutil
import subprocess

from harness import (SOURCE, check, cleanup, er_dump, finish, gprofng_functions, perf_events_refused, run_gdb,
                     skip_rest, skip_test, workdir)

go = shutil.which("go")
if go is None:
    skip_test("no Go here (Debian's golang-go package; .ci/install-deps installs it)")
work = workdir()
env = dict(os.environ, GOCACHE=os.path.join(work, "gocache"), GOPATH=os.path.join(work, "gopath"),
           GOFLAGS="", CGO_ENABLED="0")


def build(name, *flags):
    path = os.path.join(work, name)
    done = subprocess.run([go, "build", *flags, "-o", path, os.path.join(SOURCE, "tests", "programs", "go_work.go")],
                          capture_output=True, text=True, env=env, cwd=work)
    if done.returncode != 0:
        print(done.stderr)
        skip_test("go build failed here: %s" % (done.stderr.strip().splitlines() or ["?"])[-1])
    return path


full, stripped = build("go_work"), build("go_work_stripped", "-ldflags=-s -w")

if perf_events_refused():
    out = run_gdb(["collector enable", "run"], [full], cwd=work)
    print(out)
    check("go_work is statically linked: the collector's runtime, which only the dynamic loader can load, was not "
          "in it" in out and "no experiment was recorded: the collector's runtime never started in the program "
          "(perf events are refused here" in out and "exec did not happen" not in out,
          "perf events refused: GDB says a static Go program records nothing, and why")
    cleanup(work)
    skip_rest("a Go program is statically linked: where perf events are refused nothing can sample it (GDB's "
              "words checked)")

out = run_gdb(["collector enable", "run"], [full], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
funcs, total, text = gprofng_functions(exp)
print(text)
leaf, middle = funcs.get("main.leafWork", (0, 0)), funcs.get("main.middle", (0, 0))
failed = funcs.get("<Stack-unwind-failed>", (0, 0))[1]
# 0.8 s of the process's CPU at 10 ms: 80 samples, nearly all in leafWork
check(total > 0.6 and leaf[0] >= 0.8 * total, "gprofng: main.leafWork's own time %.3f s of %.3f s" % (leaf[0], total))
check(middle[1] >= 0.95 * leaf[1] and failed <= 0.02 * total,
      "gprofng: its stacks go through main.middle (%.3f s), %.3f s unwind-failed" % (middle[1], failed))
check(any(name.startswith("main.main.func") and incl >= 0.95 * leaf[1] for name, (excl, incl) in funcs.items()),
      "gprofng: and reach the goroutine's function")
summary, ours, _ = er_dump(exp)
check(ours.get("main.middle", (0, 0))[1] >= 0.95 * ours.get("main.leafWork", (0, 0))[1] > 0 and
      ours.get("<Stack-unwind-failed>", (0, 0))[1] <= 0.02 * total, "our reader: the same stacks")
cleanup(exp)

out = run_gdb(["collector enable", "run"], [stripped], cwd=work)
print(out)
check("go_work_stripped has no symbol table (stripped): its functions have no names" in out,
      "stripped: GDB says its functions have no names, and how to get them")
summary, _, raw = er_dump(exp)
walked = [c for c in summary["comments"] if c.startswith("Unwinding:") or "chain of frame pointers" in c]
print(walked)
funcs, total, text = gprofng_functions(exp)
failed = funcs.get("<Stack-unwind-failed>", (0, 0))[1]
# A sample of the runtime's own threads (sysmon) walks up to runtime.mstart,
# which keeps no frame pointer: its chain leaves the stack there, the end of
# the walk (2 of 80 samples were unwind-failed in one run in four before).
check(total > 0.6 and failed < 0.015,
      "stripped: its stacks walked by frame pointers (%.3f s of %.3f s unwind-failed; at most one 10 ms sample)" %
      (failed, total))
cleanup(work)
finish()
