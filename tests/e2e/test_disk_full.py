"""A full disk: the experiment's directory on a small tmpfs (mounted by
the test; skipped with the reason where it cannot mount one).

- filled during the run (a 320 KB file system, 1 ms sampling of ever-new
  stacks until it is full): the program's output and exit status are unchanged; the data
  stops on a whole record (overview a whole number of 504-byte records,
  log.xml whole lines, no invalid packet); log.xml says why (cwarn);
  gprofng reads it; the sample count GDB prints is what the file holds,
  and GDB says how many captured samples were not written and why;
- partly filled before the run: the same;
- no room at all: GDB says plainly that nothing could be written, and no
  half-made experiment is left behind."""

import os
import re
import subprocess

from harness import (check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, shared_workdir,
                     skip_test, unprivileged_prefix)

work = shared_workdir()
mnt = os.path.join(work, "small")
os.mkdir(mnt)


def mount(size_kb):
    subprocess.run(["umount", mnt], capture_output=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk,mode=1777" % size_kb, "tmpfs", mnt], capture_output=True,
                       text=True)
    return r.returncode == 0, r.stderr.strip()


ok, why = mount(320)
if not ok:
    skip_test("cannot mount a small tmpfs here (%s); run as root to test a full disk" % why)


def fill(kb):
    with open(os.path.join(mnt, "filler"), "wb") as f:
        try:
            f.write(b"\0" * (kb * 1024))
        except OSError:
            pass


def profile_into_small_disk(label, prefix=()):
    # (until the disk is full, then 0.3 s more: where perf events are refused
    # the kernel's CPU-time timers sample it, several times less often
    # beside other work, and 2 s did not always fill it)
    out = run_gdb(["collector profile timer hi", "collector store directory " + mnt, "collector enable", "run"],
                  [program("stack_churn"), "30", "0.3", "full", mnt], cwd=work, prefix=prefix)
    print(out)
    check("done" in out and "exited normally" in out, "%s: the program's output and exit status unchanged" % label)
    exp = os.path.join(mnt, "test.1.er")
    summary, funcs, raw = er_dump(exp)
    print(raw)
    check(summary.get("closed") == "yes", "%s: the experiment is closed" % label)
    overview = os.path.getsize(os.path.join(exp, "overview"))
    check(overview > 0 and overview % 504 == 0, "%s: overview holds whole records (%d bytes)" % (label, overview))
    check(summary.get("overview_records") == summary.get("sample_events"),
          "%s: one overview record per sample event (%s, %s)" % (label, summary.get("overview_records"),
                                                                  summary.get("sample_events")))
    for name in ("log.xml", "map.xml"):
        with open(os.path.join(exp, name), "rb") as f:
            text = f.read()
        check(text.endswith(b"\n"), "%s: %s ends with a whole line" % (label, name))
    check(summary.get("invalid_packets") == "0" and summary.get("missing_stacks") == "0",
          "%s: no invalid packet, no missing stack" % label)
    check(any("refused a write (No space left on device)" in w for w in raw.splitlines() if w.startswith("warning:")),
          "%s: log.xml says the disk was full" % label)
    m = re.search(r"closed \((\d+) samples written; (\d+) captured sample\(s\) not written: No space left on device",
                  out)
    check(m is not None and m.group(1) == summary.get("clock_packets"),
          "%s: GDB's count (%s) is what the file holds (%s), and says samples were not written" %
          (label, m and m.group(1), summary.get("clock_packets")))
    check(m is not None and int(m.group(2)) > 0, "%s: GDB counts the samples lost to the full disk" % label)
    _, total, text = gprofng_functions(exp)
    check("parse error" not in text and "Error" not in text, "%s: gprofng reads it without an error" % label)
    recorded = float(summary.get("cpu_seconds", 0))
    check(abs(total - recorded) < 0.01, "%s: gprofng's total (%.3f) is what our reader finds (%.3f)" % (label, total,
                                                                                                     recorded))
    return summary


try:
    profile_into_small_disk("filled during the run")

    mount(320)
    fill(150)
    profile_into_small_disk("half filled before the run")

    prefix = unprivileged_prefix()
    if prefix:
        mount(320)
        profile_into_small_disk("an ordinary user, filled during the run", prefix)

    mount(64)
    fill(64)
    out = run_gdb(["collector store directory " + mnt, "collector enable", "run"], [program("stack_churn"), "0.3"], cwd=work)
    print(out)
    check("done" in out and "exited normally" in out, "no room: the program's output and exit status unchanged")
    check("no experiment was recorded: nothing could be written to %s/test.1.er: No space left on device" % mnt in out,
          "no room: GDB says plainly that nothing could be written")
    check(not os.path.exists(os.path.join(mnt, "test.1.er")), "no room: no half-made experiment is left")

finally:
    subprocess.run(["umount", mnt], capture_output=True)
cleanup(work)
finish()
