"""`collector status` at a breakpoint is current: the sampler process drains
its rings before it answers (GDB asks through the control page and waits
for the answer's number in the status file).  split_work 2.0: at `exit`
all its work is done, so status must show the samples the end-of-run line
reports (within 10 %); at its first work_twenty, 0.16 s of CPU (fifty and
thirty's first slices) within what sampling allows.  Before, status read
a file up to a second old: 43 or 73 of 100 samples, once 0."""

import re

from harness import check, cleanup, finish, program, run_gdb, sampling_seconds, workdir

work = workdir()
for _ in range(2):
    out = run_gdb(["collector enable", "break work_twenty", "run", "collector status", "delete", "break exit",
                   "continue", "collector status", "delete", "continue"], [program("split_work"), "2.0", "0"], cwd=work)
    print(out)
    status = [int(n) for n in re.findall(r"^\s+(\d+) profile samples", out, re.M)]
    end = re.search(r"closed \((\d+) samples;", out)
    check(len(status) == 2 and end is not None, "status at both stops, and the end line")
    if len(status) != 2 or end is None:
        continue
    total = int(end.group(1))
    check(abs(status[1] - total) <= 0.1 * total,
          "at exit: status says %d profile samples, the end %d (within 10 %%)" % (status[1], total))
    bound = sampling_seconds(0.16, 0.01) / 0.01
    check(abs(status[0] - 16) <= bound,
          "at the first work_twenty (0.16 s of CPU): %d samples (16 +- %.0f)" % (status[0], bound))
cleanup(work)
finish()
