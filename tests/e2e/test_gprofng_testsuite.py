"""gprofng's own testsuite (binutils' gprofng/testsuite, fetched from
Debian's source package by .ci/fetch-gprofng-testsuite) under `collector
enable` at default settings.  Its programs measure their own time per
function (synprog: 20 kinds of work, signal handlers, a 500-deep
recursion, shared objects loaded and unloaded; mttest: 37 threads on
locks, condition variables, semaphores, cache-line sharing) and write it to
an account file; its own check_results.pl and acct.pm compare gprofng's
function list of our experiment with that account, row by row, as
gprofng's testsuite does for gprofng's own collector.  Every row must
pass, and no more than 1 % of the CPU time may sit under
<Stack-unwind-failed>.  Before: synprog's rows failed at the default 8 KiB
stack copy (2.9 s under <Truncated-stack> below main, whose locals are
about 5 KB) and every sample in its signal handlers ended at libc's signal
trampoline (3.3 s unwind failed)."""

import os
import re
import shutil
import subprocess

from harness import SOURCE, check, cleanup, finish, gprofng_functions, run_gdb, skip_test, workdir

SUITE = os.path.join(SOURCE, "third_party", "gprofng-testsuite")
DISPLAY = os.path.join(SUITE, "gprofng.display")
if not os.path.isfile(os.path.join(DISPLAY, "synprog", "check_results.pl")):
    skip_test("gprofng's testsuite is not in third_party/gprofng-testsuite (.ci/fetch-gprofng-testsuite fetches it "
              "from binutils' source package; .ci/install-deps runs it)")
if shutil.which("perl") is None or shutil.which("make") is None:
    skip_test("gprofng's testsuite needs perl and make")

# synprog and mttest send themselves these (GDB would stop at each and,
# in batch mode, end the program there); a user running them under GDB
# says the same.
PASS_SIGNALS = "handle SIGHUP SIGPROF SIGALRM SIGCHLD SIGUSR1 SIGUSR2 nostop noprint pass"


def names_sharing_an_address(exp):
    """The functions gprofng lists under one address with more than one
    name (before: pthread_mutex_trylock twice in mttest, once from the
    dynamic symbols, once from the debug info folded into the copy)."""
    listing = subprocess.run(["gprofng", "display", "text", "-metrics", "name:address", "-func", exp],
                             capture_output=True, text=True).stdout
    names = {}
    for line in listing.splitlines():
        m = re.match(r"\s*(.+?)\s+(\d+:0x[0-9a-f]+)\s*$", line)
        if m and not m.group(1).startswith("<"):
            names.setdefault(m.group(2), []).append(m.group(1))
    return {address: n for address, n in names.items() if len(n) > 1}


def run_program(name):
    """Builds NAME as the testsuite's Makefile does (gcc -g -O0, as its
    x86_64 table), records it under GDB at default settings, lists its
    functions with gprofng as the testsuite does and judges that list with
    its check_results.pl.  Returns (passed, the judgement, gprofng's function
    list with its total, the names that share an address)."""
    source = os.path.join(DISPLAY, name)
    work = workdir()
    built = subprocess.run(["make", "-s", "-f", os.path.join(source, "Makefile"), "srcdir=" + source, "CC=gcc",
                            "CFLAGS=-g -O0", "./" + name if name == "mttest" else name],
                           cwd=work, capture_output=True, text=True)
    if built.returncode != 0:
        print(built.stdout, built.stderr)
        check(False, "%s builds with its Makefile" % name)
        return False, "", ({}, 0.0, "")
    with open(os.path.join(work, "rules.txt"), "w") as rules:  # the testsuite's rule for "-p on": CPU time
        rules.write("Cpu, 2, 0\n")
    out = run_gdb([PASS_SIGNALS, "collector store experiment test.er", "collector enable", "run"],
                  [os.path.join(work, name)], cwd=work, timeout=600)
    closing = re.search(r"collector: experiment .* closed \((.*)\)\.", out)
    print(closing.group(0) if closing else out[-3000:])
    exp = os.path.join(work, "test.er")
    listing = subprocess.run(["gprofng", "display", "text", "-metrics", "i.totalcpu", "-func", exp],
                             capture_output=True, text=True).stdout
    with open(os.path.join(work, "display.log"), "w") as log:
        log.write(listing)
    judged = subprocess.run(["perl", "-I", os.path.join(SUITE, "lib"), os.path.join(source, "check_results.pl"),
                             name + ".acct", "display.log"], cwd=work, capture_output=True, text=True)
    verdict = ""
    if os.path.exists(os.path.join(work, "diff.out")):
        verdict = open(os.path.join(work, "diff.out")).read()
    print(verdict)
    functions = gprofng_functions(exp)
    shared = names_sharing_an_address(exp)
    passed = judged.returncode == 0
    if passed:
        cleanup(work)
    else:
        print("experiment left for inspection in", work)
    return passed, verdict, functions, shared


for name in ("synprog", "mttest"):
    passed, verdict, (funcs, total, _), shared = run_program(name)
    failing = [line for line in verdict.splitlines() if line.startswith("X|") and "Compare" not in line]
    check(passed, "%s: every row of gprofng's own check passes (%s)" % (name, "; ".join(failing) or "all rows"))
    failed = funcs.get("<Stack-unwind-failed>", (0, 0))[1]
    check(total > 0 and failed <= 0.01 * total, "%s: <Stack-unwind-failed> holds %.3f s of %.3f s (at most 1 %%)"
          % (name, failed, total))
    check(not shared, "%s: gprofng lists each function once, under one name (%s)" % (name, shared or "so"))
finish()
