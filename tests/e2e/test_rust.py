"""A threaded Rust program (tests/programs/rust_threads.rs, built here with
rustc -g -O): every sample's stack walks from the computing function to
the thread's start, with nothing under <Stack-unwind-failed> (issue 40:
every stack was one frame, the program's code segment taken for the
read-only one that shares its first file page), in gprofng and our
reader."""

import os
import shutil
import subprocess

from harness import SOURCE, check, cleanup, er_dump, finish, gprofng_functions, run_gdb, skip_test, workdir

rustc = shutil.which("rustc")
if rustc is None:
    skip_test("no rustc here (Debian's rustc package; .ci/install-deps installs it)")
work = workdir()
binary = os.path.join(work, "rust_threads")
built = subprocess.run([rustc, "-g", "-O", "-o", binary, os.path.join(SOURCE, "tests", "programs", "rust_threads.rs")],
                       capture_output=True, text=True)
if built.returncode != 0:
    print(built.stderr)
    skip_test("rustc could not build the test program here: %s" % (built.stderr.strip().splitlines() or ["?"])[-1])
out = run_gdb(["collector enable", "run"], [binary], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
funcs, total, text = gprofng_functions(exp)
print(text)
work_fn = next((name for name in funcs if name.endswith("::work")), None)
failed = funcs.get("<Stack-unwind-failed>", (0, 0))[1]
# The threads work for 0.5 s of wall time each (Instant): about 1 s of CPU
# idle, 0.28 s beside two CPU hogs.  Ten samples are enough to judge: the
# failure this guards against (every stack one frame, or unwind-failed)
# was in every sample.
check(total >= 0.1 and work_fn is not None and failed == 0,
      "gprofng: the threads' work recorded (at least 10 samples), nothing unwind-failed (%.3f s of %.3f s)"
      % (failed, total))
start = next((name for name in funcs if name.endswith("thread_start")), None)
check(work_fn is not None and start is not None and funcs[start][1] >= 0.95 * funcs[work_fn][1],
      "gprofng: the work's stacks reach the thread's start (%s %.3f s, %s %.3f s)"
      % (work_fn, funcs.get(work_fn, (0, 0))[1], start, funcs.get(start, (0, 0))[1]))
summary, ours, _ = er_dump(exp)
check("<Stack-unwind-failed>" not in ours or ours["<Stack-unwind-failed>"][1] == 0,
      "our reader: nothing unwind-failed either")
cleanup(work)
finish()
