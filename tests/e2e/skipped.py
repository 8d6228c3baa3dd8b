"""The suite's list of what it skipped and why: `skipped.py clear LOG`
before the tests, `skipped.py list LOG` after them (CTestCustom.cmake runs
both).  Tests add to LOG through harness.skip_part and skip_test."""

import os
import sys

action, log = sys.argv[1], sys.argv[2]
if action == "clear":
    if os.path.exists(log):
        os.unlink(log)
elif os.path.exists(log):
    lines = sorted(set(open(log).read().splitlines()))
    print("Skipped on this machine (%d), and why:" % len(lines))
    for line in lines:
        print("  " + line)
else:
    print("Skipped on this machine: nothing.")
