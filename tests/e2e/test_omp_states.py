"""OpenMP states of clock samples (issue 28): omp_states.c measures, with
each thread's CPU clock, its time in work, at an explicit barrier, at a
region's end (the master), between regions (the worker, idle) and in
serial code, with OMP_WAIT_POLICY=active so that every wait is CPU time.
Under `collector enable`, each state's seconds in our reader (er-dump, from
the frame packets' OMP2_INFO) is within the sampling bound of the
program's own figure, and so in `collector report omp`, which also gives
the region (its outlined function) its threads' work and its explicit
barrier's wait; the runtime's marker frames are not in the stacks.
gprofng shows the same: OpenMP Work, Wait and Overhead, the pseudo-functions
of each wait, the parallel region named after its outlined function
(-indxobj OMP_preg), and in user mode the worker's stacks under main with
no libgomp frame (machine mode keeps libgomp's)."""

import os
import re
import shutil
import subprocess
import time

from harness import (SOURCE, Background, attach_gdb, check, cleanup, er_dump, finish, gprofng_rows, gprofng_text,
                     not_sampled_seconds, offcpu_stacks_here, perf_event_paranoid, program, run_gdb, sampling_seconds,
                     skip_part, skip_test, wait_closed, within_truth, workdir)

PROGRAM = program("omp_states")
if not os.path.exists(PROGRAM):
    skip_test("no OpenMP compiler support (gcc -fopenmp, libgomp)")
INTERVAL = 0.01  # the default clock profiling
# The states the program measures, and the reader's names for them.
STATES = {"work": "work", "explicit_barrier": "explicit barrier", "implicit_barrier": "implicit barrier",
          "idle": "idle", "serial": "serial"}
work = workdir()
# The states against the threads' CPU clocks: CPU samples only (with
# off-CPU time, gprofng's OpenMP Wait also holds a thread's time preempted,
# which a loaded machine adds and no CPU clock counts).
out = run_gdb(["collector profile offcpu off", "collector enable", "run", "collector report omp"],
              [PROGRAM, "3", "0.1"], work,
              env={"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "active"})
print(out)
m = re.search(r"^truth (.*)$", out, re.M)
truth = dict((k, float(v)) for k, v in (kv.split("=") for kv in m.group(1).split())) if m else {}
check(set(truth) == set(STATES), "the program measured its states (%s)" % truth)
experiment = os.path.join(work, "test.1.er")
summary, funcs, raw = er_dump(experiment)
got = {m.group(1): float(m.group(2)) for m in re.finditer(r"^omp_state ([a-z ]+): ([0-9.]+)$", raw, re.M)}
# Where the program's timers sample it under load, the time they found no
# sample of is in no state (harness.not_sampled_seconds): each state is
# then short by at most that, never more than the threads measured.
unplaced = not_sampled_seconds(funcs)
check(abs(got.get("not sampled", 0) - unplaced) < 0.0015,
      "the time not sampled is in no OpenMP state (%.3f s, %.3f s in the state the reader names)"
      % (unplaced, got.get("not sampled", 0)))
for key, name in STATES.items():
    if key not in truth:
        continue
    bound = sampling_seconds(truth[key], INTERVAL)
    check(name in got and within_truth(got[name], truth[key], bound, unplaced),
          "%s: %.3f s in the experiment, %.3f s measured by the threads (bound %.3f, %.3f s not sampled)"
          % (name, got.get(name, -1), truth[key], bound, unplaced))
check(all(got.get(s, 0) == 0 for s in ("lock wait", "critical section wait", "taskwait")),
      "no state the program does not have (%s)" % {k: v for k, v in got.items() if v})
check(not [f for f in funcs if f == "run_region_body" or f.startswith("col_wrap_")] and "work_for" in funcs,
      "the runtime's marker frames are not in the recorded stacks (%s)" % sorted(funcs)[:12])
check(any("run with OMP_WAIT_POLICY=active to see every wait" in c for c in summary["comments"]),
      "the experiment says that waits which sleep are not in a clock profile")
# `collector report omp`: the same states, and per region: the outlined
# function's Work (its threads' work) and Wait (its explicit barrier).
report = {m.group(1): float(m.group(2)) for m in re.finditer(r"^([a-z ]+?)\s+([0-9.]+)\s+[0-9.]+$", out, re.M)}
check(all(abs(report.get(name, -1) - got.get(name, -2)) < 0.0015 for name in STATES.values()),
      "collector report omp: the states' seconds as the reader's (%s)" % report)
region = re.search(r"^\s*([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+main\._omp_fn\.0$", out.split("Parallel regions", 1)[-1],
                   re.M)
if check(region is not None, "collector report omp: the region main._omp_fn.0 has a row"):
    r_work, r_wait = float(region.group(1)), float(region.group(2))
    check(within_truth(r_work, truth.get("work", 0), sampling_seconds(truth.get("work", 0), INTERVAL), unplaced) and
          within_truth(r_wait, truth.get("explicit_barrier", 0),
                       sampling_seconds(truth.get("explicit_barrier", 0), INTERVAL), unplaced),
          "collector report omp: the region's Work %.3f s and Wait %.3f s as its threads measured (work %.3f, "
          "explicit barrier %.3f)" % (r_work, r_wait, truth.get("work", 0), truth.get("explicit_barrier", 0)))
gp = subprocess.run(["gprofng", "display", "text", "-functions", experiment], capture_output=True, text=True,
                    timeout=120)
check(gp.returncode == 0 and "work_for" in gp.stdout and "Error" not in gp.stdout + gp.stderr,
      "gprofng reads the experiment (work_for listed)")


def gprofng(*args):
    return gprofng_text(experiment, *args)


# gprofng's OpenMP metrics: Work is work and serial code, Wait every wait,
# each wait under its pseudo-function.
table = gprofng_rows(gprofng("-metrics", "e.totalcpu:e.ompwork:e.ompwait:e.ompovhd", "-functions"))
total = table.get("<Total>", [0, -1, -1, -1])
for what, got_s, want in (("OpenMP Work", total[1], truth.get("work", 0) + truth.get("serial", 0)),
                          ("OpenMP Wait", total[2], truth.get("explicit_barrier", 0) + truth.get("implicit_barrier", 0)
                           + truth.get("idle", 0)),
                          ("<OMP-explicit_barrier>", table.get("<OMP-explicit_barrier>", [-1])[0],
                           truth.get("explicit_barrier", 0)),
                          ("<OMP-implicit_barrier>", table.get("<OMP-implicit_barrier>", [-1])[0],
                           truth.get("implicit_barrier", 0)),
                          ("<OMP-idle>", table.get("<OMP-idle>", [-1])[0], truth.get("idle", 0))):
    bound = sampling_seconds(want, INTERVAL)
    check(within_truth(got_s, want, bound, unplaced),
          "gprofng %s: %.3f s, %.3f s measured by the threads (bound %.3f, %.3f s not sampled)"
          % (what, got_s, want, bound, unplaced))
check(total[3] == 0, "gprofng: no OpenMP Overhead (%.3f s)" % total[3])
regions = gprofng_rows(gprofng("-metrics", "i.totalcpu", "-indxobj", "OMP_preg"))
named = [r for r in regions if r.startswith("OpenMP Parallel Region from main._omp_fn.0")]
check(len(named) == 1 and within_truth(regions[named[0]][0], sum(truth.get(k, 0) for k in ("work", "explicit_barrier",
                                                                                            "implicit_barrier")),
                                       sampling_seconds(truth.get("work", 0) + truth.get("explicit_barrier", 0),
                                                        INTERVAL), unplaced),
      "gprofng: the parallel region is named after its outlined function and holds its threads' time (%s)" % regions)
user = gprofng("-metrics", "e.totalcpu", "-viewmode", "user", "-calltree")
machine = gprofng("-metrics", "e.totalcpu", "-viewmode", "machine", "-calltree")
check("libgomp" not in user and re.search(r"\+-main\n.*\+-main\._omp_fn\.0\n.*\+-work_for", user, re.S) and
      "clone" not in user, "gprofng user mode: no libgomp frame, every thread's work under main")
check("libgomp" in machine and "GOMP_parallel" in machine, "gprofng machine mode: libgomp's frames")

# After `gdb -p` half a second into a region (its body runs without the
# trampoline: libgomp called it before the attach): the explicit barrier,
# the region's end and the serial code come after the attach and are as the
# threads measured them; the work is what was left of it.
os.environ.update(OMP_NUM_THREADS="2", OMP_WAIT_POLICY="active")
target = Background([PROGRAM, "1", "2.0", "ready"], work)
time.sleep(0.5)
attached = attach_gdb(target.pid, ["collector profile offcpu off", "collector enable", "detach"], work)
print(attached)
rc, rest = target.finish()
m = re.search(r"^truth (.*)$", rest, re.M)
late = dict((k, float(v)) for k, v in (kv.split("=") for kv in m.group(1).split())) if m else {}
experiment = os.path.join(work, "test.2.er")
wait_closed(experiment)
summary, funcs, raw = er_dump(experiment)
got = {m.group(1): float(m.group(2)) for m in re.finditer(r"^omp_state ([a-z ]+): ([0-9.]+)$", raw, re.M)}
unplaced = not_sampled_seconds(funcs)
for key in ("explicit_barrier", "implicit_barrier", "idle", "serial"):
    bound = sampling_seconds(late.get(key, 0), INTERVAL)
    check(key in late and within_truth(got.get(STATES[key], -1), late[key], bound, unplaced),
          "after the attach, %s: %.3f s, %.3f s measured by the threads (bound %.3f)"
          % (STATES[key], got.get(STATES[key], -1), late.get(key, -1), bound))
missed = 2 * 2.0  # at most both threads' time before the attach (the first unit is thread 0's only work then)
check(late.get("work", 0) - missed - sampling_seconds(late.get("work", 0), INTERVAL) - unplaced <= got.get("work", -1) <=
      late.get("work", 0) + sampling_seconds(late.get("work", 0), INTERVAL),
      "after the attach, work: %.3f s, of the %.3f s the threads measured over the whole run"
      % (got.get("work", -1), late.get("work", 0)))

# OMP_WAIT_POLICY=passive: the waits sleep (off CPU: no sample sees them);
# the work and the serial code are as the threads measured them.
passive = run_gdb(["collector profile offcpu off", "collector enable", "run"], [PROGRAM, "3", "0.1"], work,
                  env={"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"})
m = re.search(r"^truth (.*)$", passive, re.M)
truth = dict((k, float(v)) for k, v in (kv.split("=") for kv in m.group(1).split())) if m else {}
summary, funcs, raw = er_dump(os.path.join(work, "test.3.er"))
got = {m.group(1): float(m.group(2)) for m in re.finditer(r"^omp_state ([a-z ]+): ([0-9.]+)$", raw, re.M)}
unplaced = not_sampled_seconds(funcs)
waits = sum(got.get(STATES[k], 0) for k in ("explicit_barrier", "implicit_barrier", "idle"))
check(all(within_truth(got.get(STATES[k], -1), truth.get(k, 0), sampling_seconds(truth.get(k, 0), INTERVAL), unplaced)
          for k in ("work", "serial")) and waits <= sum(truth.get(k, 0) for k in ("explicit_barrier",
                                                                                  "implicit_barrier", "idle")) + 0.05,
      "OMP_WAIT_POLICY=passive: work and serial as measured, the sleeping waits not sampled (%s; %s)" % (got, truth))

# The same with off-CPU time (collector profile offcpu on): the sleeping
# waits are recorded, in gprofng's user mode under the OpenMP wait
# pseudo-functions as Sleep and OpenMP Wait, with no libgomp frame.
offcpu = run_gdb(["collector profile offcpu on", "collector enable", "run"], [PROGRAM, "3", "0.1"], work,
                 env={"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"})
print(offcpu)
exp = os.path.join(work, "test.4.er")
user = gprofng_text(exp, "-viewmode", "user", "-metrics", "e.total:e.sleep:e.ompwait", "-functions")
print(user)
rows = gprofng_rows(user)
pseudo = [name for name in rows if name.startswith("<OMP-")]
slept = sum(rows[name][1] for name in pseudo)
if offcpu_stacks_here():
    check(slept >= 0.2 and all(rows[name][2] >= rows[name][1] for name in pseudo) and "libgomp" not in user and
          "gomp_" not in user,
          "offcpu on, OMP_WAIT_POLICY=passive: the sleeping waits in gprofng's user mode, %.3f s of Sleep under %s, "
          "in OpenMP Wait, no libgomp frame" % (slept, pseudo))
else:
    skip_part("the sleeping waits under the OpenMP pseudo-functions (no stacks at switches for this user: "
              "kernel.perf_event_paranoid is %d); checked instead: recorded as Sleep and OpenMP Wait"
              % perf_event_paranoid())
    total = rows.get("<Total>", [0, 0, 0])
    check(total[1] >= 0.2 and total[2] >= total[1] and "libgomp" not in user,
          "offcpu on, OMP_WAIT_POLICY=passive, no stacks: %.3f s of Sleep, in OpenMP Wait, no libgomp frame"
          % total[1])

# Built with clang (LLVM's libomp): no states, and the experiment says so
# and where they are recorded.
clang_build = os.path.join(work, "omp_states_clang")
built = shutil.which("clang") and subprocess.run(
    ["clang", "-O2", "-fopenmp", "-o", clang_build, os.path.join(SOURCE, "tests", "programs", "omp_states.c")],
    capture_output=True, text=True).returncode == 0
if not built:
    skip_part("a program built with clang -fopenmp (no clang, or no libomp-dev)")
else:
    run_gdb(["collector enable", "run"], [clang_build, "1", "0.1"], work,
            env={"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "active"})
    summary, funcs, raw = er_dump(os.path.join(work, "test.5.er"))
    check(any("LLVM's runtime" in c and "gcc -fopenmp" in c for c in summary["comments"]) and
          not re.search(r"^omp_state [a-z ]+: (?!0\.000)", raw, re.M) and "work_for" in funcs,
          "clang -fopenmp (libomp): no OpenMP states, the experiment says so and where they are recorded")

# Where the kernel refuses perf events (a seccomp filter on GDB and all it
# starts), the runtime samples the program from inside: the same states.
inside = run_gdb(["collector profile offcpu off", "collector enable", "run"], [PROGRAM, "3", "0.1"], work,
                 env={"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "active"}, prefix=[program("no_perf_events")])
m = re.search(r"^truth (.*)$", inside, re.M)
truth = dict((k, float(v)) for k, v in (kv.split("=") for kv in m.group(1).split())) if m else {}
experiment = os.path.join(work, "test.6.er" if built else "test.5.er")
summary, funcs, raw = er_dump(experiment)
check(any(c.startswith("Clock profiling: per-thread POSIX CPU-time timers") for c in summary["comments"]),
      "sampled from inside the program by its own timers (perf events refused)")
got = {m.group(1): float(m.group(2)) for m in re.finditer(r"^omp_state ([a-z ]+): ([0-9.]+)$", raw, re.M)}
for key, name in STATES.items():
    bound = sampling_seconds(truth.get(key, 0), INTERVAL)
    check(key in truth and within_truth(got.get(name, -1), truth[key], bound, not_sampled_seconds(funcs)),
          "sampled from inside, %s: %.3f s, %.3f s measured by the threads (bound %.3f)"
          % (name, got.get(name, -1), truth.get(key, -1), bound))
cleanup(work)
finish()
