"""Work before main: a library's constructor, which the dynamic loader calls
from its entry code (`_dl_start_user` -> `_dl_init` -> call_init), assembly
with no unwind information.  A walk reaching it ended under
<Stack-unwind-failed> (a Rust program's first sample, in the runtime's own
constructor, failed a clean-clone CI run); an object's entry code is the
outermost frame.  Checked: the constructor's CPU is recorded under
library_constructor, as the program measured it (the work function is
called from main too), and nothing unwind-failed, in gprofng and our
reader.  Perf events refused, the experiment starts in the runtime's
constructor, which the loader may run after the library's: said."""

import os
import re

from harness import (check, cleanup, er_dump, finish, gprofng_functions, perf_events_refused, program, run_gdb,
                     skip_part, workdir)

work = workdir()
out = run_gdb(["collector enable", "run"], [program("constructor_work")], cwd=work, env={"LD_BIND_NOW": "1"})
print(out)
m = re.search(r"constructor_cpu=([0-9.]+) main_cpu=([0-9.]+)", out)
check(m is not None, "the program ran and measured its constructor")
if m:
    truth = float(m.group(1))
    exp = os.path.join(work, "test.1.er")
    funcs, total, text = gprofng_functions(exp)
    print(text)
    failed = funcs.get("<Stack-unwind-failed>", (0, 0))[1]
    got = funcs.get("library_constructor", (0, 0))[1]
    # 30 samples of 10 ms: within 4 samples' worth, and the loader's first
    # moments (before the sampler reads the program) may take one more
    if perf_events_refused() and got == 0:
        # (the program samples itself from the runtime's own constructor
        # on, which the loader may run after the library's)
        skip_part("a library constructor's CPU: perf events refused, the experiment starts in the runtime's "
                  "constructor, which the loader ran after the library's here")
    else:
        check(abs(got - truth) <= 0.05, "gprofng: library_constructor %.3f s of the constructor's %.3f s"
              % (got, truth))
    check(failed == 0, "gprofng: nothing under <Stack-unwind-failed> (%.3f s)" % failed)
    _, ours, _ = er_dump(exp)
    check(ours.get("<Stack-unwind-failed>", (0, 0))[1] == 0 and abs(ours.get("library_constructor", (0, 0))[1] - got) < 0.011,
          "our reader: the same (%s)" % (ours.get("library_constructor"),))
cleanup(work)
finish()
