"""The sampler process's rings follow the locked memory the process may
use (RLIMIT_MEMLOCK).  Each wake-up of the sampler costs more than a
sample's unwinding, and a ring woken at half full of 8 KiB stack copies
woke it 62 times a second at 1 ms with two threads: where the limit leaves
room the samples ring grows (up to 2 MiB); where it is tight it keeps the
size the kernel allows every user (perf_event_mlock_kb).  Either way
nothing is lost and every thread's CPU is recorded, as root and as an
ordinary user (whose rings the kernel charges to that limit beyond the
allowance every user has)."""

import os
import re
import resource
import subprocess

from harness import (check, cleanup, er_dump, finish, perf_events_refused, program, run_gdb, shared_workdir,
                     skip_part, skip_test, unprivileged_prefix)

if perf_events_refused():
    skip_test("the sampler process's rings are perf events' rings, which the kernel refuses here")

work = shared_workdir()
PAGE = os.sysconf("SC_PAGESIZE")
CPUS = int(subprocess.run(["getconf", "_NPROCESSORS_CONF"], capture_output=True, text=True).stdout)


def allowance_kib():
    """The ring every user may lock per CPU: the largest power of two of
    pages that, with its header page, fits perf_event_mlock_kb."""
    with open("/proc/sys/kernel/perf_event_mlock_kb") as f:
        kb = int(f.read())
    pages = 1
    while (pages * 2 + 1) * PAGE <= kb * 1024 and pages < 1024:
        pages *= 2
    return pages * PAGE // 1024


def record(name, limit_bytes, prefix=()):
    """One run of split_work (1 s of CPU in each of 3 threads, at 1 ms)
    under GDB, with RLIMIT_MEMLOCK set to LIMIT_BYTES (None: as it is):
    (the samples ring's KiB, er-dump's summary, GDB's output)."""
    limit = [] if limit_bytes is None else ["prlimit", "--memlock=%d:%d" % (limit_bytes, limit_bytes)]
    out = run_gdb(["collector store experiment %s" % name, "collector profile timer hi", "collector enable", "run"],
                  [program("split_work"), "1", "2"], cwd=work, prefix=list(prefix) + limit)
    print(out)
    summary, _, _ = er_dump(os.path.join(work, name))
    rings = [re.search(r"ring\(s\) of (\d+) KiB for samples", c) for c in summary["comments"]]
    rings = [int(m.group(1)) for m in rings if m]
    return (rings[0] if rings else None), summary, out


def check_whole(label, summary, out):
    """Nothing lost, each of the 3 threads' 1 s of CPU recorded (2 s of
    the program's 3 s at least: the bound is far from what sampling at
    1 ms would miss, ~3 % at 3000 samples)."""
    check(re.search(r"written, 0 lost[;)]", out) is not None, "%s: GDB says nothing was lost" % label)
    check(int(summary.get("threads", 0)) == 3 and float(summary.get("cpu_seconds", 0)) > 2.0,
          "%s: the 3 threads' CPU recorded (%s threads, %s s)" % (label, summary.get("threads"),
                                                                  summary.get("cpu_seconds")))


base = allowance_kib()
soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
runs = [("root" if os.geteuid() == 0 else "this user", ())]
user = unprivileged_prefix()
if user:
    runs.append(("an ordinary user", user))
for who, prefix in runs:
    tag = "user" if prefix else "self"
    # As it is: 8 MiB (Debian's default) over 4 CPUs or fewer leaves room.
    kib, summary, out = record("%s_default.er" % tag, None, prefix)
    check_whole("%s, locked memory as it is" % who, summary, out)
    room = soft == resource.RLIM_INFINITY or soft >= 8 << 20
    if room and CPUS <= 4:
        check(kib is not None and kib > base,
              "%s: with %s of locked memory and %d CPU(s), the samples ring grew beyond %d KiB (%s KiB)"
              % (who, "no limit" if soft == resource.RLIM_INFINITY else "%d KiB" % (soft // 1024), CPUS, base, kib))
    else:
        skip_part("%s: the samples ring's growth (%d CPUs and a locked-memory limit of %s leave it no room)"
                  % (who, CPUS, "%d KiB" % (soft // 1024) if soft != resource.RLIM_INFINITY else "none"))
    # A tight limit, 1 MiB a CPU: the size every user gets.  (Each CPU's
    # rings then fit the limit even where the user's allowance is taken by
    # another profiler of the same user: a test beside this one.)
    kib, summary, out = record("%s_tight.er" % tag, CPUS << 20, prefix)
    check(kib == base, "%s: with 1 MiB of locked memory a CPU the samples ring is the %d KiB every user may lock "
          "(%s KiB)" % (who, base, kib))
    check_whole("%s, 1 MiB of locked memory a CPU" % who, summary, out)
cleanup(work)
finish()
