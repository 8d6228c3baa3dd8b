"""What the tracing benchmarks (sync_cost.py, io_cost.py) share: the
environment without our settings, and the experiment's bytes per traced
event, for gdb-collector and for gprofng, from the same run."""

import os
import re
import shutil
import subprocess


def env():
    return {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_")}


def callgrind_refs(argv, extra_env=None, cwd=None):
    """Instructions the whole run of ARGV executes under callgrind (exact,
    where this VM's timings of a few ns vary by more); None without
    valgrind."""
    if shutil.which("valgrind") is None:
        return None
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + list(argv),
                         capture_output=True, text=True, cwd=cwd, env=dict(env(), **(extra_env or {}))).stderr
    m = re.search(r"refs:\s+([0-9,]+)", out)
    return int(m.group(1).replace(",", "")) if m else None


def callgrind_per_unit(refs_of, low, high, units):
    """Instructions per unit of work: REFS_OF(N) (a run of N rounds under
    callgrind) at HIGH less at LOW, so that start-up cancels out, over the
    UNITS the extra rounds make; None without valgrind."""
    a, b = refs_of(low), refs_of(high)
    return None if a is None or b is None else (b - a) / float(units)


def bytes_per_event(exp, data_file, metrics):
    """(bytes of DATA_FILE + data.frameinfo per event, events): the events
    are the sum of gprofng's <Total> of METRICS (its counts)."""
    size = sum(os.path.getsize(os.path.join(exp, f)) for f in (data_file, "data.frameinfo")
               if os.path.exists(os.path.join(exp, f)))
    out = subprocess.run(["gprofng", "display", "text", "-metrics", metrics, "-functions", exp],
                         capture_output=True, text=True).stdout
    m = re.search(r"^\s*((?:\d+\s+)+)<Total>", out, re.M)
    events = sum(int(v) for v in m.group(1).split()) if m else 0
    return size / events if events else float("nan"), events


def print_bytes_per_event(ours, gprofng_exp, data_file, metrics):
    """Ours (the last traced experiment, or None) beside gprofng's."""
    label = "bytes per event (%s + data.frameinfo / events):" % data_file
    if ours is not None:
        print("%s gdb-collector %.1f (%d events)" % ((label,) + bytes_per_event(ours, data_file, metrics)))
    if os.path.isdir(gprofng_exp):
        print("%s gprofng       %.1f (%d events)" % ((" " * len(label),) + bytes_per_event(gprofng_exp, data_file,
                                                                                            metrics)))
