"""Counters named through libpfm4 and PAPI (collector hwprofile): a libpfm4
name (perf::PERF_COUNT_SW_CONTEXT_SWITCHES) is encoded by libpfm4 and
counted end to end (nap's 500 sleeps, our reader and gprofng); `hwprofile
list` states PAPI's and libpfm4's view of this machine; a PAPI preset is
refused with PAPI's own reason where PAPI cannot count, a derived preset
and an unknown name are refused plainly.  Hardware counters (a table name
and a PAPI preset) are recorded where the machine has a PMU, and skipped
with the reason printed where it has none."""

import ctypes
import os
import re
import subprocess

from harness import (COUNTERS_REFUSED_SAID, PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_TYPE_HARDWARE,
                     PERF_TYPE_SOFTWARE, check, cleanup, er_dump, finish, kernel_counts, perf_events_refused,
                     program, run_gdb, skip_part, workdir)

PROGRAM = program("counters")
work = workdir()
experiments = iter("test.%d.er" % n for n in range(1, 100))


def counter_rows(raw, counter):
    """er-dump's hwc_functions for COUNTER: {function: (exclusive, inclusive)}."""
    return {m.group(3): (int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r"^%s (\d+) (\d+) (.+)$" % re.escape(counter), raw, re.M)}


def papi_cpu_component():
    """(disabled, reason) of PAPI's perf_event component, asked of PAPI
    itself (not of our code), or None when PAPI does not initialize."""
    papi = ctypes.CDLL("libpapi.so")

    class ComponentInfo(ctypes.Structure):  # the leading fields of PAPI_component_info_t (papi.h, PAPI 7)
        _fields_ = [("name", ctypes.c_char * 128), ("short_name", ctypes.c_char * 64),
                    ("description", ctypes.c_char * 128), ("version", ctypes.c_char * 64),
                    ("support_version", ctypes.c_char * 64), ("kernel_version", ctypes.c_char * 64),
                    ("disabled_reason", ctypes.c_char * 1024), ("disabled", ctypes.c_int)]

    papi.PAPI_get_component_info.restype = ctypes.POINTER(ComponentInfo)
    # PAPI_library_init takes the version the caller was built for, major
    # and minor (PAPI_VER_CURRENT), and refuses any other at once (EINVAL)
    # without initializing: the installed one's is found by asking (7.0 in
    # Debian 12, 7.1 in Debian 13).
    versions = [(major << 24) | (minor << 16) for major in (7, 8, 6) for minor in range(16)]
    if not any(papi.PAPI_library_init(v) == v for v in versions):
        return None
    for c in range(papi.PAPI_num_components()):
        info = papi.PAPI_get_component_info(c).contents
        if info.name == b"perf_event":
            return info.disabled != 0, info.disabled_reason.decode()
    return None


# A libpfm4 name, encoded by libpfm4 into the kernel's context-switch
# event: nap's 500 sleeps counted, under that name in log.xml and gprofng.
NAME = "perf::PERF_COUNT_SW_CONTEXT_SWITCHES"
METRIC = "perf.PERF_COUNT_SW_CONTEXT_SWITCHES"  # gprofng splits -metrics at ':'; its raw names use '.' 
out = run_gdb(["collector hwprofile counter %s,10" % NAME, "collector hwprofile on", "collector enable", "run"],
              [PROGRAM, "sleeps", "500"], cwd=work)
print(out)
path = os.path.join(work, next(experiments))
summary, _, raw = er_dump(path)
print(raw)
naps = counter_rows(raw, METRIC).get("nap", (0, 0))[1]
cs_refused = kernel_counts(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, exclude_kernel=False)
if perf_events_refused():
    skip_part("a libpfm4 name counted (counters are perf events, which the kernel refuses here)")
    check(COUNTERS_REFUSED_SAID in out, "libpfm4 name refused when typed where perf events are, with the reason")
elif cs_refused:  # a kernel-only event where this user may count user mode only
    skip_part("a libpfm4 name counted (this user may not count context switches here: %s)" % os.strerror(cs_refused))
    check('counter "%s" counts events inside the kernel only' % NAME in out,
          "libpfm4 name of context switches refused for this user, not counted as 0")
if not cs_refused:
    check("sleeps=500" in out and 450 <= naps <= 600, "libpfm4 name: nap's 500 sleeps counted (%d)" % naps)
gp = subprocess.run(["gprofng", "display", "text", "-metrics", "e.%s:i.%s" % (METRIC, METRIC), "-functions", path],
                    capture_output=True, text=True, timeout=120)
print(gp.stdout + gp.stderr)
theirs = re.search(r"^\s*(\d+)\s+(\d+)\s+nap\s*$", gp.stdout, re.M)
if not cs_refused:
    check("Functions sorted by metric: Exclusive %s Events" % METRIC in gp.stdout and theirs is not None and int(theirs.group(2)) == naps,
          "libpfm4 name: gprofng shows the counter as %s, with nap's count (%s)" % (METRIC, theirs and theirs.group(2)))

# What PAPI and libpfm4 see here, in the list.
out = run_gdb(["collector hwprofile list"], ["/bin/true"], cwd=work)
print(out)
component = papi_cpu_component()
check(component is not None, "PAPI initializes (libpapi.so)")
if component is not None:
    disabled, reason = component
    state = "perf_event component disabled (%s)" % reason if disabled else "perf_event component active"
    check(re.search(r"Hardware counters by PAPI preset or libpfm4 name \(PAPI [0-9.]+: %s; libpfm4 PMUs:" % re.escape(state),
                    out) is not None,
          "hwprofile list states PAPI's view: %s" % state)

# A PAPI preset: accepted where the kernel counts the CPU's cycles, else
# refused with why.  What this machine can count is asked of the kernel (a
# perf_event_open of the cycles event), not of PAPI's component flags: PAPI
# calls its perf_event component active where libpfm4 knows the CPU model,
# in virtual machines whose kernel exposes no PMU too.
cycles_errno = kernel_counts(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, exclude_kernel=True)
print("the kernel %s the CPU's cycles event%s" % ("opens" if cycles_errno == 0 else "refuses",
                                                 "" if cycles_errno == 0 else " (%s)" % os.strerror(cycles_errno)))
if cycles_errno != 0:
    check("(no PAPI preset can be sampled here)" in out, "hwprofile list: no preset offered where the kernel counts no cycles")
out = run_gdb(["collector hwprofile counter PAPI_TOT_CYC"], ["/bin/true"], cwd=work)
print(out)
if cycles_errno != 0:
    check(re.search(r"PAPI preset PAPI_TOT_CYC cannot count on this machine: \S", out) is not None,
          "PAPI preset refused, saying why, where the kernel counts no cycles")
else:
    check("Counters: PAPI_TOT_CYC,on." in out, "PAPI preset accepted where the kernel counts cycles")

out = run_gdb(["collector hwprofile counter PAPI_FP_OPS", "collector hwprofile counter PAPI_NO_SUCH",
               "collector hwprofile counter no_such_event"], ["/bin/true"], cwd=work)
print(out)
check(re.search(r"PAPI preset PAPI_FP_OPS (cannot count on this machine|is derived from \d+ counters)", out) or
      "Counters: PAPI_FP_OPS,on." in out, "a derived or uncountable preset: refused with why (or counted)")
check('unknown PAPI preset "PAPI_NO_SUCH"' in out, "an unknown preset: refused")
check('unknown counter "no_such_event" on this machine (libpfm4: ' in out and
      '"collector hwprofile list" shows the counters it offers' in out,
      "an unknown name: refused, naming how to list the counters")

if not perf_events_refused():  # (else refused when typed, checked above)
    # (page faults: an ordinary user counts them too; context switches are
    # the kernel's own events, refused to one where kernel.perf_event_paranoid
    # is 2, as GDB says)
    out = run_gdb(["collector hwprofile counter page-faults,5"], ["/bin/true"], cwd=work)
    print(out)
    check("Counters: page-faults,5. Counter overflow profiling is off: \"collector hwprofile on\" records them." in out,
          "a counter set while counter profiling is off: said, with how to turn it on")

# Hardware counters: where there is a PMU, the computing function has the
# cycles, by the table's name and by PAPI's.
if cycles_errno != 0:
    skip_part("hardware counters recorded (the kernel refuses the cycles event: %s)" % os.strerror(cycles_errno))
    out = run_gdb(["collector hwprofile counter cycles"], ["/bin/true"], cwd=work)
    check('unknown counter "cycles"' in out or "no hardware PMU" in out,
          "cycles refused on a machine without a PMU, saying so")
    if not os.path.exists("/sys/bus/event_source/devices/cpu"):
        # dbx's aliases are hardware counters too: refused the same way, and
        # a script goes on after it (a limit of the machine is no error).
        script = os.path.join(work, "counters.gdb")
        with open(script, "w") as f:
            f.write("collector hwprofile counter insts\ncollector hwprofile counter dcm\n"
                    "collector hwprofile counter dtlbm\necho script-went-on\\n\n")
        out = run_gdb(["source " + script], ["/bin/true"], cwd=work)
        print(out)
        check(all('counter "%s" is a hardware event and this machine has no hardware PMU' % alias in out
                  for alias in ("insts", "dcm", "dtlbm")) and "event not found" not in out and
              "script-went-on" in out, "dbx's aliases refused as hardware counters without a PMU, the script going on")
else:
    for counter in ("cycles", "PAPI_TOT_CYC"):
        out = run_gdb(["collector hwprofile counter %s" % counter, "collector hwprofile on", "collector enable",
                       "run"], [PROGRAM, "pages", "100", "0.5"], cwd=work)
        summary, funcs, raw = er_dump(os.path.join(work, next(experiments)))
        rows = counter_rows(raw, counter)
        total = int(summary.get("hwc_events %s" % counter, "0"))
        computed = sum(v[0] for k, v in rows.items() if k.startswith("compute"))
        check(total > 0 and computed >= 0.8 * total, "hardware %s: compute has %d of %d" % (counter, computed, total))
cleanup(work)
finish()
