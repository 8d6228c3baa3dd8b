"""OpenMP waits, tasks and nested regions (issue 28): omp_waits.c measures,
with each thread's CPU clock (OMP_WAIT_POLICY=active: every wait spins),
its waits for a contended critical section and lock, its tasks' work and
its taskwait (less the tasks run inside it), and the work of an inner
region nested in an outer one.  Run as an ordinary user, as a descendant
of the program GDB runs (a shell that starts it), under `collector
enable`.  In our reader (er-dump) and in `collector report omp`: the
critical section, lock and taskwait states within the sampling bound of
the program's figures.  In gprofng: `<OMP-critical_section_wait>` and
`<OMP-lock_wait>` the same; the tasks named after their functions
(-indxobj OMP_task) with the tasks' work; in user mode, the inner region's
work under main, the outer region's and the inner region's functions,
with no libgomp frame; machine mode keeps libgomp's frames.  Our folded
stacks (`collector report folded`, what the flame graph draws) the same in
user mode (the default) and machine mode (`mode machine`)."""

import glob
import os
import re

from harness import (check, cleanup, er_dump, finish, gprofng_rows, gprofng_text, program, run_gdb, sampling_seconds,
                     shared_workdir, skip_test, unprivileged_prefix, workdir)

PROGRAM = program("omp_waits")
if not os.path.exists(PROGRAM):
    skip_test("no OpenMP compiler support (gcc -fopenmp, libgomp)")
INTERVAL = 0.01
prefix = unprivileged_prefix()
work = shared_workdir() if prefix else workdir()
out = run_gdb(["collector profile offcpu off", "collector enable", "run"], ["/bin/sh", "-c", '"$0" 6 0.05; echo shell done', PROGRAM], work,
              env={"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "active"}, prefix=prefix or ())
print(out)
m = re.search(r"^truth (.*)$", out, re.M)
truth = dict((k, float(v)) for k, v in (kv.split("=") for kv in m.group(1).split())) if m else {}
check(len(truth) == 5 and "shell done" in out, "the program measured its waits (%s)" % truth)
found = glob.glob(os.path.join(work, "test.1.er", "_*_x1.er"))
check(len(found) == 1, "the program's experiment is the shell's descendant's (%s)" % found)
experiment = found[0] if found else os.path.join(work, "missing.er")


def near(got_s, want, what):
    bound = sampling_seconds(want, INTERVAL)
    return check(abs(got_s - want) <= bound, "%s: %.3f s in the experiment, %.3f s measured by the threads (bound %.3f)"
                 % (what, got_s, want, bound))


summary, funcs, raw = er_dump(experiment)
got = {m.group(1): float(m.group(2)) for m in re.finditer(r"^omp_state ([a-z ]+): ([0-9.]+)$", raw, re.M)}
for key, name in (("critical_wait", "critical section wait"), ("lock_wait", "lock wait"), ("taskwait", "taskwait")):
    near(got.get(name, -1), truth.get(key, 0), name)
report = run_gdb(["collector report omp %s" % experiment], ["/bin/true"], work)
states = {m.group(1): float(m.group(2)) for m in re.finditer(r"^([a-z ]+?)\s+([0-9.]+)\s+[0-9.]+$", report, re.M)}
check(all(abs(states.get(n, -1) - got.get(n, -2)) < 0.0015 for n in ("critical section wait", "lock wait", "taskwait")),
      "collector report omp: the waits' seconds as the reader's (%s)" % states)


def gprofng(*args):
    return gprofng_text(experiment, *args)


table = gprofng_rows(gprofng("-metrics", "e.totalcpu:i.totalcpu", "-functions"))
near(table.get("<OMP-critical_section_wait>", [-1])[0], truth.get("critical_wait", 0),
     "gprofng <OMP-critical_section_wait>")
near(table.get("<OMP-lock_wait>", [-1])[0], truth.get("lock_wait", 0), "gprofng <OMP-lock_wait>")
near(table.get("task_work", [0, -1])[1], truth.get("task_work", 0), "gprofng task_work (inclusive)")
near(table.get("nested_work", [0, -1])[1], truth.get("nested_work", 0), "gprofng nested_work (inclusive)")
tasks = gprofng_rows(gprofng("-metrics", "i.totalcpu", "-indxobj", "OMP_task"))
named = {k: v[0] for k, v in tasks.items() if k.startswith("OpenMP Task from main._omp_fn.")}
check(len(named) == 2, "gprofng: the two tasks, each named after its function (%s)" % tasks)
near(sum(named.values()), truth.get("task_work", 0), "gprofng: the tasks' time (-indxobj OMP_task)")
user = gprofng("-metrics", "i.totalcpu", "-viewmode", "user", "-calltree")


def tree(text):
    """gprofng's call tree: [(depth, name, value)], depth the column of "+-"."""
    nodes = []
    for line in text.splitlines():
        m = re.match(r"^\s*([0-9.]+)[\s|]*\+-(.+)$", line)
        if m:
            nodes.append((line.index("+-"), m.group(2).strip(), float(m.group(1))))
    return nodes


def nested_under_main(nodes):
    """nested_work's time where it is called by a region's function called by
    another region's function called by main."""
    total, path = 0.0, []
    for depth, name, value in nodes:
        while path and path[-1][0] >= depth:
            path.pop()
        path.append((depth, name))
        names = [n for _, n in path]
        if name == "nested_work" and len(names) >= 4 and names[-4] == "main" and \
                all(re.match(r"main\._omp_fn\.\d+$", n) for n in names[-3:-1]):
            total += value
    return total


nested_in_user = nested_under_main(tree(user))
chain = nested_in_user > 0
check(chain and "libgomp" not in user and "clone" not in user,
      "gprofng user mode: the inner region's work under main, the outer and the inner region, no libgomp frame")
if chain:
    near(nested_in_user, truth.get("nested_work", 0), "gprofng user mode: nested_work under both regions")
machine = gprofng("-metrics", "i.totalcpu", "-viewmode", "machine", "-calltree")
check("libgomp" in machine and "start_thread" in machine, "gprofng machine mode: libgomp's frames, the threads' start")


def folded(*mode):
    """Our folded stacks: {stack: seconds}."""
    text = run_gdb(["collector report %s folded -%s" % (experiment, "".join(" mode " + m for m in mode))],
                   ["/bin/true"], work)
    stacks = {}
    for line in text.splitlines():
        m = re.match(r"^(\S.*) (\d+)$", line)
        if m:
            stacks[m.group(1)] = stacks.get(m.group(1), 0) + int(m.group(2)) * INTERVAL
    return stacks


user_stacks = folded()
nested_user = sum(v for k, v in user_stacks.items() if re.search(r"main;main\._omp_fn\.\d+;main\._omp_fn\.\d+;nested_work",
                                                                 k))
check(user_stacks and not [k for k in user_stacks if "libgomp" in k or "clone" in k],
      "our report, user mode: no libgomp frame, no thread start (%d stacks)" % len(user_stacks))
near(nested_user, truth.get("nested_work", 0), "our report, user mode: nested_work under main and both regions")
near(sum(v for k, v in user_stacks.items() if k.endswith(";<OMP-critical_section_wait>")), truth.get("critical_wait", 0),
     "our report, user mode: the critical section's wait as <OMP-critical_section_wait>")
machine_stacks = folded("machine")
check([k for k in machine_stacks if "libgomp" in k] and not [k for k in machine_stacks if "<OMP-" in k],
      "our report, machine mode: libgomp's frames, no pseudo-function")
cleanup(work)
finish()
