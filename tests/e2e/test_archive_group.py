"""`collector archive` and `collector store group`.

archive copy: the program's binary is deleted after the run and the
experiment moved elsewhere; gprofng and our reader still name its functions
(from archives/).  archive on (the default): the program, not a system
object, is copied too, so the same deletion leaves its names.  archive off:
nothing; archived afterwards with gdbcol-archive it has the names, and a
copy never archived has not (so the archive is what names them).
Attach mode: `collector disable` archives too.

store group: two runs join runs.erg (named runs.1.er, runs.2.er), gprofng
reads the group as the sum of both, and a file of that name that is not a
group is never overwritten."""

import os
import re
import shutil
import subprocess

from harness import (BUILD, Background, attach_gdb, boundary_seconds, check, check_shares, cleanup, clock_samples,
                     er_dump, finish, gprofng_functions, merged_clock_samples, perf_events_refused, program, run_gdb,
                     skip_part, workdir)

SHARES = {"work_fifty": 50, "work_thirty": 30, "work_twenty": 20}

def SAMPLES(summary):
    """Where perf events are refused the program's CPU-time timers sample it
    (they fire at the kernel's tick, late and far between under load, each
    sample weighted by the CPU time since the last): each share within what
    the samples of the experiment (its er-dump SUMMARY) allow.  Else a fixed
    grid of CPU time (EDGES)."""
    return clock_samples(summary) if perf_events_refused() else None


def EDGES(seconds):
    """What a share may be off by on a fixed grid of CPU time: split_work
    enters and leaves each function 20 times (10 slices), and the sample
    that straddles an edge goes whole to one side (about 100 samples of a
    1 s run: 48 to 52 % idle, 45.4 % for work_fifty beside two CPU hogs)."""
    return max(3.0, 100.0 * boundary_seconds(20, 0.01) / seconds) if seconds else 3.0


def private_copy(work, name):
    """A copy of a test program that the test may delete."""
    path = os.path.join(work, name)
    shutil.copy2(program("split_work"), path)
    return path


def record(work, archive, binary):
    """A 1 s run recorded as ARCHIVE.er."""
    return run_gdb(["collector archive " + archive, "collector store experiment %s.er" % archive,
                    "collector enable", "run"], [binary, "1.0", "0"], cwd=work)


work = workdir()
copied = private_copy(work, "to_delete_copy")
out = record(work, "copy", copied)
exp = os.path.join(work, "copy.er")
archived = sorted(os.listdir(os.path.join(exp, "archives")))
print(archived)
check(any(name.startswith("to_delete_copy_") for name in archived), "the program is in archives/")
check(any(name.startswith("libc.so.6_") for name in archived), "libc is in archives/")
log = open(os.path.join(exp, "archive.log")).read()
check("copied   build-id=" in log and copied in log, "archive.log names the copied program with its build-id")
os.unlink(copied)
moved = os.path.join(work, "elsewhere", "moved.er")
os.makedirs(os.path.dirname(moved))
shutil.move(exp, moved)
funcs, total, text = gprofng_functions(moved)
print(text)
check(total > 0.8, "gprofng reads the moved experiment (%.3f s)" % total)
summary, ours, _ = er_dump(moved)
check_shares(funcs, total, SHARES, "archive copy, binary deleted, gprofng", tolerance_pp=EDGES(total),
             samples=SAMPLES(summary))
check_shares(ours, float(summary["cpu_seconds"]), SHARES, "archive copy, binary deleted, our reader",
             tolerance_pp=EDGES(float(summary["cpu_seconds"])), samples=SAMPLES(summary))

recorded_only = private_copy(work, "to_delete_on")
record(work, "on", recorded_only)
exp_on = os.path.join(work, "on.er")
# "on" copies what is not the system's (the program here, in a build tree;
# the runtime) and stripped system objects whose separate debug info is
# installed (with its symbols folded in, for gprofng's names); other
# system objects are recorded by build id only.
copies = sorted(os.listdir(os.path.join(exp_on, "archives"))) if os.path.exists(os.path.join(exp_on, "archives")) \
    else []
on_log = open(os.path.join(exp_on, "archive.log")).read() if os.path.exists(os.path.join(exp_on, "archive.log")) else ""
with_debug = re.findall(r"^# debug info of (\S+): ", on_log, re.M)
SYSTEM = re.compile(r"^/(usr/)?(s?bin|lib(32|64|x32)?|libexec)/")
logged = re.findall(r"^(\w+)\s+build-id=\S+ size=\d+ mtime=\d+ path=(.+)$", on_log, re.M)
check(logged and all((what == "copied") == (not SYSTEM.match(path) or path in with_debug) for what, path in logged),
      "archive on copies the objects that are not the system's and stripped ones with debug info: %s" % logged)
check(any(c.startswith("to_delete_on_") for c in copies), "archive on copies the program (in a build tree)")
os.unlink(recorded_only)
funcs_on, total_on, text_on = gprofng_functions(exp_on)
summary_on, _, raw_on = er_dump(exp_on)
check_shares(funcs_on, total_on, SHARES, "archive on, binary deleted, gprofng", tolerance_pp=EDGES(total_on),
             samples=SAMPLES(summary_on))
check("object: %s gone since the run" % recorded_only in raw_on, "the reader says which recorded object is gone")
_, _, raw_copy = er_dump(moved)
check("object: " not in raw_copy.replace("object: %s gone" % copied, ""),
      "no other object of the copied experiment changed")

later = private_copy(work, "to_delete_off")
record(work, "off", later)
exp_off = os.path.join(work, "off.er")
check(not os.path.exists(os.path.join(exp_off, "archive.log")) and
      not os.path.exists(os.path.join(exp_off, "archives")), "archive off leaves nothing")
unarchived = os.path.join(work, "off-unarchived.er")
shutil.copytree(exp_off, unarchived)
# Archived after the fact (as for a process killed before it could).
tool = subprocess.run([os.path.join(BUILD, "experiment", "gdbcol-archive"), "copy", exp_off], capture_output=True,
                      text=True)
print(tool.stdout + tool.stderr)
check(tool.returncode == 0 and "0 failed" in tool.stdout, "gdbcol-archive copy archives a finished experiment")
os.unlink(later)
funcs_off, total_off, _ = gprofng_functions(exp_off)
check_shares(funcs_off, total_off, SHARES, "archived afterwards, binary deleted", tolerance_pp=EDGES(total_off),
             samples=SAMPLES(er_dump(exp_off)[0]))
funcs_bare, _, text_bare = gprofng_functions(unarchived)
check("work_fifty" not in funcs_bare and "<static>" in text_bare,
      "never archived, the deleted program's functions are unnamed (so the archive is what names them)")

# Attach mode: collector disable ends the experiment and archives it.
target = Background([program("attach_target"), "8"], cwd=work)
attached = attach_gdb(target.pid, ["collector archive copy", "collector enable", "shell sleep 0.5",
                                   "collector status", "collector disable", "detach"], cwd=work)
print(attached)
target.proc.send_signal(15)
target.proc.wait()
exp_attach = os.path.join(work, "test.1.er")
check(any(name.startswith("attach_target_") for name in os.listdir(os.path.join(exp_attach, "archives"))),
      "attach mode: disable archives the program")
check("Experiment %s is active in process %d" % (exp_attach, target.pid) in attached and "profile samples" in attached,
      "collector status in an attached process")

# collector status while the process runs (continue &): live numbers, read
# from its memory; a command that needs a call is refused plainly.
target = Background([program("attach_target"), "8"], cwd=work)
running = attach_gdb(target.pid, ["collector enable", "continue &", "shell sleep 1.5", "collector status",
                                  "collector disable", "detach"], cwd=work)
print(running)
target.proc.send_signal(15)
target.proc.wait()
live = [line for line in running.splitlines() if "profile samples" in line]
if perf_events_refused():
    # Each of the program's timer signals stops its thread for GDB, which
    # lets it go from its event loop: while GDB runs `shell sleep` (as a
    # script does; at the prompt GDB waits in that loop) the threads wait.
    skip_part("samples counted live while GDB runs a shell command after `continue &` (perf events refused: the "
              "program's timer signals stop its threads until GDB's event loop lets them go)")
    check(live, "status while running answers: %s" % live)
else:
    check(live and int(live[0].split()[0]) > 0, "status while running shows samples so far: %s" % live)
check("is running; closing the experiment needs it stopped" in running, "disable on a running process says why not")

# Groups.
group_dir = os.path.join(work, "grouped")
os.makedirs(group_dir)
for _ in range(2):
    # 1 ms: each 0.5 s run is split into short slices, too short for 10 ms.
    out = run_gdb(["collector store group runs.erg", "collector archive off", "collector profile timer hi",
                   "collector enable", "run"],
                  [program("split_work"), "0.5", "0"], cwd=group_dir)
    print(out)  # each run's (a sampler late to drain a ring says how many records it lost)
group = os.path.join(group_dir, "runs.erg")
lines = open(group).read().splitlines()
check(lines == ["#analyzer experiment group", os.path.join(group_dir, "runs.1.er"), os.path.join(group_dir, "runs.2.er")],
      "runs.erg lists both experiments, named after the group: %s" % lines)
funcs_g, total_g, text_g = gprofng_functions(group)
print(text_g)
check(0.85 <= total_g <= 1.15, "gprofng reads the group as both runs together (%.3f s of 1.0)" % total_g)
# Where perf events are refused the CPU-time timers fire at the kernel's
# tick, not on a grid of the program's CPU time: the shares within what the
# two runs' samples allow (one run beside two CPU hogs: 44.3 % for
# work_fifty against a fixed 3 points).
group_samples = merged_clock_samples([er_dump(os.path.join(group_dir, "runs.%d.er" % k))[0] for k in (1, 2)])
check_shares(funcs_g, total_g, SHARES, "group", samples=group_samples if perf_events_refused() else None)

precious = os.path.join(group_dir, "notes.erg")
with open(precious, "w") as f:
    f.write("my notes\n")
out = run_gdb(["collector store group notes.erg", "echo gdb-goes-on\\n"], ["/bin/true"], cwd=group_dir)
check("notes.erg exists and is not an experiment group" in out and "gdb-goes-on" in out,
      "a file that is not a group is refused when the group is set")
# One that turns into something else after the check: the runtime still
# leaves it alone, and says so in the experiment.
os.rename(precious, precious + ".saved")
out = run_gdb(["collector store group notes.erg", "collector enable", "shell mv notes.erg.saved notes.erg", "run"],
              [program("split_work"), "0.2", "0"], cwd=group_dir)
check(open(precious).read() == "my notes\n", "a file that is not a group is left unchanged")
summary_n, _, raw_n = er_dump(os.path.join(group_dir, "notes.1.er"))
check("not an experiment group" in raw_n, "the experiment records why it joined no group")
check(summary_n.get("closed") == "yes", "and is recorded all the same")

errors = run_gdb(["collector archive", "collector archive yes", "collector archive on off",
                  "collector store group runs.er", "collector store group .erg", "collector show"],
                 ["/bin/true"], cwd=work)
print(errors)
check(errors.count("Usage: collector archive on|off|copy") == 3, "malformed archive modes are refused")
check(errors.count("must end in .erg") == 1 and errors.count("something before .erg") == 1,
      "malformed group names are refused")
check("Archive:                on" in errors, "archive on is the default")
cleanup(work)
finish()
