"""The runtime goes on in descendants, for what only it can do inside a
process (the Collector API here): a forked child's sample point and
collector_terminate_expt end up in its own _f1.er; a program the shell of
system() runs has its sample point and paused region in its own
sub-experiment; a program that empties its environment before exec still
passes the runtime on.  No descendant sees a variable of ours in its
environment.  Checked with our reader and with gprofng, at launch and
after `gdb -p`."""

import os

from harness import Background, attach_gdb, check, cleanup, er_dump, finish, gprofng_functions, program, run_gdb, \
    wait_closed, workdir

TREE = program("api_tree")
MS = 200
work = workdir()


def labels_of(raw):
    return [line.split(": ", 1)[1] for line in raw.splitlines() if line.startswith("sample ")]


def sub_experiments(founder):
    return sorted(n for n in os.listdir(founder) if n.startswith("_") and n.endswith(".er"))


def near(value, expected, slack=0.05):
    return abs(value - expected) <= slack


def check_tree(mode, founder):
    names = sub_experiments(founder)
    print(names)
    dumps = {n: er_dump(os.path.join(founder, n)) for n in names}
    check(all(d[0].get("closed") == "yes" for d in dumps.values()), "%s: every sub-experiment is closed (%s)"
          % (mode, names))
    summary, funcs, raw = er_dump(founder)
    check("forked_child" not in labels_of(raw) and "leaf_start" not in labels_of(raw),
          "%s: the founder holds none of its descendants' sample points" % mode)
    # The forked child: its sample point, its work, nothing after its end.
    child = dumps.get("_f1.er")
    check(child is not None, "%s: the forked child is _f1.er" % mode)
    if child is not None:
        summary, funcs, raw = child
        print(raw)
        check("forked_child" in labels_of(raw), "%s: _f1.er has the child's sample point (%s)" % (mode, labels_of(raw)))
        got = funcs.get("child_work", (0, 0))[1]
        check(near(got, MS / 1000.0), "%s: _f1.er has child_work (%.3f s of %.3f)" % (mode, got, MS / 1000.0))
        got = funcs.get("after_end_work", (0, 0))[1]
        check(got <= 0.02, "%s: nothing after the child's collector_terminate_expt (%.3f s)" % (mode, got))
    # The program the shell of system() ran: whichever sub-experiment has leaf_work.
    leaves = [n for n, d in dumps.items() if d[1].get("leaf_work", (0, 0))[1] > 0]
    check(len(leaves) == 1 and leaves[0].startswith("_x1_"), "%s: the shell's program is one sub-experiment under "
          "system's _x1 (%s)" % (mode, leaves))
    if leaves:
        summary, funcs, raw = dumps[leaves[0]]
        print(raw)
        labels = labels_of(raw)
        check("leaf_start" in labels and "collector_pause(collector_pause)" in labels and "collector_resume" in labels,
              "%s: its sample point, pause and resume (%s)" % (mode, labels))
        check(summary.get("packets_in_pauses") == "0" and funcs.get("paused_work", (0, 0))[1] <= 0.02,
              "%s: nothing recorded inside its pause" % mode)
        got = funcs.get("leaf_work", (0, 0))[1]
        check(near(got, MS / 1000.0), "%s: leaf_work recorded (%.3f s)" % (mode, got))
    # gprofng reads the whole tree: each region where it belongs.
    funcs, total, raw = gprofng_functions(founder)
    print(raw)
    for name, expected in (("parent_work", MS), ("child_work", MS), ("leaf_work", MS), ("paused_work", 0),
                           ("after_end_work", 0)):
        got = funcs.get(name, (0, 0))[1]
        check(near(got, expected / 1000.0), "%s: gprofng: %s %.3f s (truth %.3f)" % (mode, name, got, expected / 1000.0))


out = run_gdb(["collector enable", "run"], [TREE, "tree", str(MS)], cwd=work)
print(out)
check("children=2" in out and "env_clean=1" in out, "launch: output unchanged, no variable of ours in the "
      "descendant's environment")
check_tree("launch", os.path.join(work, "test.1.er"))

# A program that empties its environment, then execs: the runtime still
# comes along (the exec passes it on), and is gone again before main.
out = run_gdb(["collector enable", "run"], [TREE, "clearenv", str(MS)], cwd=work)
print(out)
summary, funcs, raw = er_dump(os.path.join(work, "test.2.er", "_x1.er"))
print(raw)
check("env_clean=1" in out, "clearenv: the new program's environment is as the program made it")
check("leaf_start" in labels_of(raw) and funcs.get("paused_work", (0, 0))[1] <= 0.02 and
      near(funcs.get("leaf_work", (0, 0))[1], MS / 1000.0),
      "clearenv: the new image (_x1.er) has its sample point, its pause and its work (%s, %.3f s)"
      % (labels_of(raw), funcs.get("leaf_work", (0, 0))[1]))

# After gdb -p: the exec and spawn functions reach the runtime through the
# GOT, and pass it on the same way.
target = Background([TREE, "tree", str(MS), "ready"], cwd=work)
out = attach_gdb(target.pid, ["collector enable", "detach"], cwd=work)
print(out)
status, rest = target.finish()
print(rest)
check(status == 0 and "children=2" in rest and "env_clean=1" in rest, "attach: output unchanged, clean environment")
attached = os.path.join(work, "test.3.er")
wait_closed(attached) and wait_closed(*(os.path.join(attached, n) for n in sub_experiments(attached)))
check_tree("attach", attached)

cleanup(work)
finish()
