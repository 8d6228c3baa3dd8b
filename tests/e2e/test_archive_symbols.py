"""Names for gprofng too: a stripped library whose symbols live in separate
debug info (objcopy --only-keep-debug, strip, a debug link) is archived
with those symbols folded into its copy in archives/, so `gprofng display
text` names its static function (it reads no separate debug info itself);
archive.log says where the debug info was found.  The same for Debian's
libc by build id where libc6-dbg is installed: gprofng names
msort_with_tmp.  A library without debug info is left as it was."""

import glob
import os
import re
import subprocess

from harness import (check, cleanup, finish, gprofng_functions, program, run_gdb, skip_part, workdir)

SORT = program("sort_work")
work = workdir()

LIB = r"""
#include <time.h>
static volatile double sink;
__attribute__((noinline)) static void hidden_spin(double seconds)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  double end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds;
  do {
    for (int i = 0; i < 20000; i++)
      sink += i * 0.25;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  } while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}
void lib_work(double seconds) { hidden_spin(seconds); __asm__ volatile("" ::: "memory"); }
"""
MAIN = r"""
void lib_work(double seconds);
int main(void) { lib_work(0.6); return 0; }
"""


def build(path, source, *args):
    src = path + ".c"
    with open(src, "w") as f:
        f.write(source)
    done = subprocess.run(["gcc", "-O2", "-g", "-o", path, src] + list(args), capture_output=True, text=True)
    check(done.returncode == 0, "built %s %s" % (os.path.basename(path), done.stderr.strip()))


lib = os.path.join(work, "libhidden.so")
build(lib, LIB, "-shared", "-fPIC")
for step in (["objcopy", "--only-keep-debug", lib, lib + ".debug"], ["strip", "--strip-all", lib],
             ["objcopy", "--add-gnu-debuglink=" + lib + ".debug", lib]):
    subprocess.run(step, cwd=work, check=True)
nm = subprocess.run(["nm", lib], capture_output=True, text=True)
check("hidden_spin" not in nm.stdout, "the library is stripped (nm: %s)" % (nm.stdout.strip() or nm.stderr.strip()))
main = os.path.join(work, "uses_hidden")
build(main, MAIN, "-L" + work, "-lhidden", "-Wl,-rpath," + work)

out = run_gdb(["collector enable", "run"], [main], cwd=work)
print(out)
exp = os.path.join(work, "test.1.er")
log = open(os.path.join(exp, "archive.log")).read() if os.path.exists(os.path.join(exp, "archive.log")) else ""
print(log)
check("# debug info of %s: %s.debug (its symbols are in the copy)" % (lib, lib) in log and
      re.search(r"^copied .* path=%s$" % re.escape(lib), log, re.M),
      "archive.log: the debug info found by its link, the library copied with its symbols")
funcs, total, raw = gprofng_functions(exp)
print(raw)
check(funcs.get("hidden_spin", (0, 0))[0] > 0.3 * total and total > 0,
      "gprofng names the stripped library's static function from the archived copy (%s of %.3f s)"
      % (funcs.get("hidden_spin"), total))
plain = [line for line in log.splitlines() if "libc.so.6" in line and line.startswith("copied")]

# libc, by build id, where its debug info is installed.
out = run_gdb(["collector enable", "run"], [SORT, "0.8"], cwd=work)
funcs, total, raw = gprofng_functions(os.path.join(work, "test.2.er"))
if glob.glob("/usr/lib/debug/.build-id/*/*.debug"):
    check(any(k.startswith("msort_with_tmp") for k in funcs), "gprofng names libc's msort_with_tmp (libc6-dbg's symbols in the copy)")
else:
    skip_part("libc's internal names in gprofng (no separate debug info: install libc6-dbg)")
    check(not plain, "without debug info, libc is not copied in \"on\" mode")
cleanup(work)
finish()
