"""Code pages patched in place: UCX's memory hooks (in every Open MPI or
MPICH rank built with UCX) make a page of the C library's code writable,
write a jump, and make it executable again, and the kernel reports the
page as a mapping of its own.  Taken as a new mapping, that page unmapped
the whole library: Open MPI 5's ranks on Debian 13 had every stack through
libc under <Stack-unwind-failed> and its functions <Unknown> in gprofng
(code_patcher: 0.99 of 1.0 s).  Checked, in gprofng and our reader: the
sorting's CPU under sort_for as the program measured it, the comparator
called through libc's frames, nothing unwind-failed or unknown."""

import os
import re

from harness import check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, workdir

SECONDS = 1.0
work = workdir()
out = run_gdb(["collector enable", "run"], [program("code_patcher"), str(SECONDS)], cwd=work)
print(out)
m = re.search(r"patched=(\d+) work_cpu=([0-9.]+)", out)
check(m is not None and m.group(1) == "6", "the program patched its 6 pages and measured its work")
if m:
    truth = float(m.group(2))
    exp = os.path.join(work, "test.1.er")
    funcs, total, text = gprofng_functions(exp)
    print(text)
    _, ours, _ = er_dump(exp)
    # 100 samples of 10 ms: within 5 samples' worth (the clocks read at
    # different moments, a period cut at each end)
    for who, table in (("gprofng", funcs), ("our reader", ours)):
        work_seen = table.get("sort_for", (0, 0))[1]
        check(abs(work_seen - truth) <= 0.05, "%s: sort_for %.3f s of the %.3f s measured" % (who, work_seen, truth))
        check(table.get("by_value", (0, 0))[0] > 0.05,
              "%s: the comparator, called through libc's qsort, has its time (%s)" % (who, table.get("by_value")))
        for lost in ("<Stack-unwind-failed>", "<Unknown>"):
            check(table.get(lost, (0, 0))[1] <= 0.011, "%s: %s %s" % (who, lost, table.get(lost)))
cleanup(work)
finish()
