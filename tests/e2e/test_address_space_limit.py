"""A program under an address-space limit (ulimit -v), traced (issue 25).

Tracing maps the trace ring (about 10 MB) into the program, and that
counts against its RLIMIT_AS.  Before, nothing said so; and where the
program had less room left than the ring, heap tracing recorded 0 events
with no reason anywhere.  Now:
- room left: the program can allocate about the ring's size less (it
  measures that itself), and GDB's closing line and log.xml say why;
- no room left: GDB's closing line and log.xml say that tracing recorded
  nothing, because the ring could not be mapped, and by how much to raise
  the limit; the clock profile is recorded as usual and gprofng reads it.
Runs as whoever runs the suite (no root needed)."""

import os
import re

from harness import (Background, attach_gdb, check, cleanup, er_dump, finish, gprofng_functions, perf_events_refused,
                     program, skip_part, workdir)

work = workdir()
LIMIT_MB = 1024


def record(name, commands, spare_mb):
    """Attaches to address_space_limit LIMIT_MB SPARE_MB, enables with
    COMMANDS and lets it run to its end (0.6 s of its CPU time): (GDB's
    output, the program's room_mb)."""
    target = Background([program("address_space_limit"), str(LIMIT_MB), str(spare_mb)], cwd=work)
    out = attach_gdb(target.pid, ["collector store experiment " + name] + commands + ["collector enable", "continue"],
                     cwd=work)
    status, rest = target.finish()
    print(out, rest)
    m = re.search(r"room_mb=(\d+)", rest)
    check(status == 0 and m is not None, "%s: the program ran to its end (%s)" % (name, status))
    return out, int(m.group(1)) if m else -1


# The truth the note states: the same program, room measured with the
# clock only and with heap tracing.
# Where perf events are refused the ring is mapped for the clock's samples
# too: the clock alone takes the same room, and says so.
NO_PERF = perf_events_refused()
clock_out, room_clock = record("clock.er", [], 0)
out, room_traced = record("traced.er", ["collector heaptrace on"], 0)
if NO_PERF:
    check(abs(room_clock - room_traced) <= 2 and "the trace ring (" in clock_out and
          "counts against its address-space limit" in clock_out,
          "perf events refused: the clock alone maps the ring (its samples come through it), said (%d MB vs %d MB)"
          % (room_traced, room_clock))
else:
    check(5 <= room_clock - room_traced <= 16,
          "tracing takes about the ring's size from the program's room (%d MB vs %d MB)" % (room_traced, room_clock))
check("the trace ring (" in out and "counts against its address-space limit (ulimit -v: %d MB)" % LIMIT_MB in out,
      "GDB's closing line says the ring counts against the limit")
summary, _, raw = er_dump(os.path.join(work, "traced.er"))
check(int(summary.get("heap_events", 0) or 0) > 0, "heap events recorded (%s)" % summary.get("heap_events"))
check("counts against its address-space limit" in raw, "log.xml says it too")

# 12 MB left when GDB attaches: the runtime loads (with its libraries and
# static tables it takes about 8 MB of address space), the 10 MB ring does
# not fit.
out, _ = record("no_room.er", ["collector heaptrace on"], 12)
LOST = "heap tracing and clock profiling" if NO_PERF else "heap tracing"
check(LOST + " recorded nothing: the program could not map the trace ring" in out and
      "Cannot allocate memory (its address-space limit, ulimit -v, is %d MB: raise it by" % LIMIT_MB in out,
      "GDB's closing line says tracing recorded nothing, why, and what to raise")
exp = os.path.join(work, "no_room.er")
summary, funcs, raw = er_dump(exp)
check(LOST.capitalize() + " recorded nothing" in raw, "log.xml says it too")
if NO_PERF:  # the program's clock samples come through the ring it could not map
    skip_part("the clock profile recorded without the trace ring (perf events refused: the program's samples come "
              "through the ring)")
else:
    check(float(summary.get("cpu_seconds", 0)) > 0 and funcs.get("compute", (0, 0))[1] > 0,
          "the clock profile is recorded as usual (%s s)" % summary.get("cpu_seconds"))
_, total, _ = gprofng_functions(exp)
check(abs(total - float(summary.get("cpu_seconds", 0))) < 0.011, "gprofng reads it (%.3f s)" % total)
cleanup(work)
finish()
