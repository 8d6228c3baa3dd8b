"""Programs on another allocator than glibc's (jemalloc linked in; tcmalloc
and mimalloc preloaded by the user): collection must never change what
they do.  alloc_crossing allocates blocks before GDB attaches and frees or
grows them after; a free that reached another allocator than the block's
own would abort it (it did: the wrappers called glibc's functions).  For
each allocator: the bare run's output and exit status are the truth; then
`gdb -p` + `collector enable` with heap tracing off and on, and a launch
with heap tracing on: the same output and exit status, and with heap
tracing the leaks the program left (LEAKS blocks of LEAK_SIZE bytes, made
after the attach) exact in gprofng's -leaks.  One attach also as an
ordinary user."""

import os
import re
import subprocess

from harness import (attach_then_go, check, cleanup, er_dump, finish, gprofng_leaks, program, run_gdb,
                     shared_workdir, skip_part, unprivileged_prefix, wait_closed)

LEAKS, LEAK_SIZE = 100, 777  # tests/programs/alloc_crossing.c
LIBDIR = "/usr/lib/x86_64-linux-gnu"


def variants():
    """(name, program, LD_PRELOAD or None), for each allocator installed."""
    out = [("glibc", program("alloc_crossing"), None)]
    if os.path.exists(program("alloc_crossing_jemalloc")):
        out.append(("jemalloc (linked)", program("alloc_crossing_jemalloc"), None))
    else:
        skip_part("jemalloc: alloc_crossing_jemalloc not built (Debian package libjemalloc-dev)")
    # (the soname each Debian release has: mimalloc 2 on Debian 12, 3 on 13)
    for name, libs in (("tcmalloc", ["libtcmalloc_minimal.so.4"]), ("mimalloc", ["libmimalloc.so.2", "libmimalloc.so.3"])):
        path = next((os.path.join(LIBDIR, lib) for lib in libs if os.path.exists(os.path.join(LIBDIR, lib))), None)
        if path:
            out.append(("%s (preloaded)" % name, program("alloc_crossing"), path))
        else:
            skip_part("%s: %s not installed (.ci/install-deps installs it)" % (name, " or ".join(libs)))
    return out


def bare_run(prog, preload, cwd):
    env = dict(os.environ, LD_PRELOAD=preload) if preload else {k: v for k, v in os.environ.items()
                                                                 if k != "LD_PRELOAD"}
    done = subprocess.run([prog], cwd=cwd, capture_output=True, text=True, env=env, timeout=60)
    return done.returncode, done.stdout


def check_leaks(label, exp):
    summary, _, raw = er_dump(exp)
    check(summary.get("closed") == "yes" and summary.get("damaged_packets") == "0",
          "%s: the experiment is closed and undamaged" % label)
    leaks, _, text = gprofng_leaks(exp)
    got = leaks.get("make_leaks", (0, 0))
    if not check(got == (LEAKS, LEAKS * LEAK_SIZE), "%s: gprofng -leaks: make_leaks left %d blocks, %d bytes (%s)"
                 % (label, LEAKS, LEAKS * LEAK_SIZE, got)):
        print(text[:4000])


def attach_run(label, prog, preload, heap, truth, work, prefix=()):
    name = "attach-%s-%s" % (re.sub(r"\W+", "", label), heap)
    env = {"LD_PRELOAD": preload} if preload else None
    commands = ["collector heaptrace %s" % heap, "collector enable"]
    target, out, _ = attach_then_go([prog], commands, work, go_name=name, prefix=prefix, env=env)
    status, output = target.finish()
    exp = os.path.join(work, "test.1.er")
    check("recording %s" % exp in out, "%s, attach, heaptrace %s: enabled" % (label, heap))
    check(status == truth[0], "%s, attach, heaptrace %s: exit status %d as bare (%d)" % (label, heap, status, truth[0]))
    check(output.replace("ready\n", "", 1) == truth[1], "%s, attach, heaptrace %s: output as bare (%r)"
          % (label, heap, output))
    wait_closed(exp)
    if heap == "on":
        check_leaks("%s, attach" % label, exp)
    cleanup(exp)


def launch_run(label, prog, preload, truth, work):
    commands = ["collector heaptrace on", "collector enable"]
    if preload:
        commands.insert(0, "set environment LD_PRELOAD=%s" % preload)
    out = run_gdb(commands + ["run"], [prog], work)
    exp = os.path.join(work, "test.1.er")
    check("exited with code %02o" % truth[0] in out, "%s, launch: exit status %d as bare" % (label, truth[0]))
    check(truth[1].strip() in out, "%s, launch: output as bare" % label)
    check_leaks("%s, launch" % label, exp)
    cleanup(exp)


work = shared_workdir()
for label, prog, preload in variants():
    truth = bare_run(prog, preload, work)
    print("%s: bare run: status %d, %r" % (label, truth[0], truth[1]))
    check(truth[0] == 7 and "alloc_crossing: done" in truth[1], "%s: the bare run succeeds" % label)
    for heap in ("off", "on"):
        attach_run(label, prog, preload, heap, truth, work)
    launch_run(label, prog, preload, truth, work)

prefix = unprivileged_prefix()
if prefix:
    label, prog, preload = variants()[-1]
    truth = bare_run(prog, preload, work)
    attach_run(label + " as nobody", prog, preload, "on", truth, work, prefix=prefix)
finish()
