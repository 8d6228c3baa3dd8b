"""How the user starts the program in GDB must work with the collector as
without it: the user's own exec-wrapper (`env X=1`, found on the PATH;
`/usr/bin/env X=1`), startup-with-shell off, `set environment`, `set cwd`,
and `run < in > out`.  Before, our launcher went in front of the user's
wrapper: `env` was not found (exit 127), or GDB stopped in the wrong exec
and the experiment was empty.  Now the user's wrapper stays the only one
and the runtime starts the sampler process itself before main.  Each form:
the program's output and exit status as in a run without GDB given the
same environment, directory and input; a breakpoint in burn() is reached
(GDB stopped in the program, not in a wrapper); the experiment holds
burn's CPU and was recorded by the sampler process; gprofng reads it.
As root and as an ordinary user."""

import os
import re
import subprocess

from harness import (check, cleanup, clock_source_said, er_dump, finish, gprofng_functions, perf_events_refused, program,
                     run_gdb, shared_workdir,
                     unprivileged_prefix)

PROGRAM = program("env_echo")


def bare(env, cwd, stdin_path):
    full = {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_") and k != "LD_PRELOAD"}
    full.update(env)
    with open(stdin_path or os.devnull) as stdin:
        done = subprocess.run([PROGRAM], cwd=cwd, env=full, stdin=stdin, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout


def one_form(label, settings, env, work, prefix=()):
    """SETTINGS before `collector enable`; ENV: what they give the program.
    Without a shell GDB does no redirection: the output is read from GDB's."""
    run_dir = os.path.join(work, "rundir-" + re.sub(r"\W+", "_", label))
    os.makedirs(run_dir, exist_ok=True)
    os.chmod(run_dir, 0o777)
    shell = "set startup-with-shell off" not in settings
    stdin_path = os.path.join(work, "in.txt") if shell else None
    out_path = os.path.join(run_dir, "out.txt")
    truth = bare(env, run_dir, stdin_path)
    run = "run < %s > %s" % (stdin_path, out_path) if shell else "run"
    commands = list(settings) + ["set cwd %s" % run_dir, "break burn", "collector enable", run, "bt 1", "continue"]
    out = run_gdb(commands, [PROGRAM], work, prefix=prefix)
    print(out)
    check("Breakpoint 1, burn" in out and "#0  burn" in out, "%s: GDB stopped at burn in the program" % label)
    check("exited with code %02o" % truth[0] in out, "%s: exit status %d as without GDB" % (label, truth[0]))
    got = open(out_path).read() if shell and os.path.exists(out_path) else out
    check(truth[1] in got, "%s: output as without GDB (%r, expected %r)" % (label, got[-300:], truth[1]))
    exp = os.path.join(run_dir, "test.1.er")
    summary, funcs, raw = er_dump(exp)
    check(summary.get("closed") == "yes", "%s: the experiment is closed" % label)
    check(funcs.get("burn", (0, 0))[1] >= 0.15, "%s: burn's CPU recorded (%s s of about 0.3)"
          % (label, funcs.get("burn", (0, 0))[1]))
    check(clock_source_said(summary["comments"]),
          "%s: recorded by the sampler process" % label)
    gfuncs, gtotal, _ = gprofng_functions(exp)
    check("burn" in gfuncs, "%s: gprofng reads it and names burn" % label)
    cleanup(exp)


work = shared_workdir()
with open(os.path.join(work, "in.txt"), "w") as f:
    f.write("a line of input\n")
FORMS = [
    ("exec-wrapper env", ["set exec-wrapper env X=1"], {"X": "1"}),
    ("exec-wrapper /usr/bin/env", ["set exec-wrapper /usr/bin/env X=1"], {"X": "1"}),
    ("set environment", ["set environment Y=2"], {"Y": "2"}),
    ("exec-wrapper and set environment", ["set exec-wrapper env X=1", "set environment Y=2"], {"X": "1", "Y": "2"}),
    ("startup-with-shell off", ["set startup-with-shell off", "set environment Y=2"], {"Y": "2"}),
]
for label, settings, env in FORMS:
    one_form(label, settings, env, work)
# Where the runtime cannot reach the program, GDB says so and why, never
# nothing: a wrapper that replaces LD_PRELOAD, a static program.
out = run_gdb(["set exec-wrapper env LD_PRELOAD=", "collector enable", "run"], [PROGRAM], work)
print(out)
check("no experiment was recorded: the collector's runtime never started in the program" in out and
      "set environment LD_PRELOAD" in out, "a wrapper that replaces LD_PRELOAD: GDB says nothing was recorded, and why")
out = run_gdb(["collector enable", "run"], [program("sleeper_static"), "0"], work)
print(out)
check("%s is statically linked: the collector's runtime, which only the dynamic loader can load, was not in it"
      % program("sleeper_static") in out, "a static program at launch: GDB says the runtime could not be in it, and why")
out = run_gdb(["collector heaptrace on", "collector enable", "run"], [program("sleeper_static"), "0"], work)
print(out)
# (perf events refused, nothing samples a static program at all: then no
# experiment, said so)
check("was not in it (heap tracing recorded nothing);" in out or
      (perf_events_refused() and "was not in it (no experiment recorded);" in out),
      "a static program with heap tracing: GDB says heap tracing (or the whole experiment) recorded nothing, and why")
prefix = unprivileged_prefix()
if prefix:
    for label, settings, env in FORMS[0], FORMS[4]:
        one_form(label + " as nobody", settings, env, work, prefix=prefix)
finish()
