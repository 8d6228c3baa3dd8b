"""Values are data, paths are bytes (issue 25).  Nothing the program, its
path or the environment supplies becomes a GDB command: a program in a
directory named "d<newline>shell touch MARK #", and XDG_RUNTIME_DIR named
likewise, run no `shell` (before: `touch` ran, and the cut status path
left GDB without its closing line).  A working directory and a program
path with bytes that are not UTF-8 (\\xff\\xfe, \\xff and a newline): GDB
prints no Python traceback and shows them as \\xNN; log.xml stays XML
gprofng reads (before: "XML parse error", an empty <Total>); our reader
gives back the exact bytes; the program's functions are named in gprofng
(from its archived copy, named as gprofng reads the path) and in our
reader."""

import os
import shutil
import subprocess

from harness import COLLECTOR_GDB, ER_DUMP, check, cleanup, finish, program, workdir

work = os.fsencode(workdir())


def gdb_run(program_path, cwd, env=None):
    cmd = [b"gdb", b"-nx", b"-batch", os.fsencode(COLLECTOR_GDB), b"-ex", b"collector enable", b"-ex", b"run",
           b"--args", program_path, b"0.3", b"0"]
    cmd.insert(3, b"-x")
    full_env = {k: v for k, v in os.environb.items() if not k.startswith(b"GDBCOL_")}
    full_env.update(env or {})
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120, env=full_env, stdin=subprocess.DEVNULL)
    return (done.stdout + done.stderr).decode("utf-8", "backslashreplace")


def gprofng_text(exp):
    done = subprocess.run([b"gprofng", b"display", b"text", b"-functions", exp], capture_output=True, timeout=120)
    return (done.stdout + done.stderr).decode("utf-8", "backslashreplace")


def program_in(directory):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, b"split_work")
    shutil.copy(os.fsencode(program("split_work")), path)
    return path


# A. The program's path brings a newline and a GDB command.
mark = os.path.join(work, b"MARK")
injected = program_in(os.path.join(work, b"d\nshell touch " + mark + b" #"))
out = gdb_run(injected, work)
print(out)
check(not os.path.exists(mark), "a program path with a newline runs no GDB command")
check("closed (" in out, "and GDB reports the experiment closed")
check("work_fifty" in gprofng_text(os.path.join(work, b"test.1.er")), "gprofng names its functions")

# B. XDG_RUNTIME_DIR, where the session's files go, does the same.
mark2 = os.path.join(work, b"MARK2")
runtime = os.path.join(work, b"rt\nshell touch " + mark2 + b" #")
os.makedirs(runtime)
out = gdb_run(os.fsencode(program("split_work")), work, {b"XDG_RUNTIME_DIR": runtime})
print(out)
check(not os.path.exists(mark2), "an XDG_RUNTIME_DIR with a newline runs no GDB command")
check("closed (" in out, "and GDB reports the experiment closed (its status file found)")
check(os.listdir(runtime) == [], "nothing left in that runtime directory")

# C, D. A working directory and a program path whose bytes are not UTF-8.
cwd = os.path.join(work, b"cwd\xff\xfe")
os.makedirs(cwd)
odd = program_in(os.path.join(work, b"prog\xff\nx"))
out = gdb_run(odd, cwd)
print(out)
check("Traceback" not in out and "Error" not in out, "GDB prints no Python error")
check("cwd\\xff\\xfe/test.1.er closed (" in out, "GDB shows the bytes as \\xNN in its closing line")
exp = os.path.join(cwd, b"test.1.er")
text = gprofng_text(exp)
print(text)
check("XML parse error" not in text and "work_fifty" in text,
      "gprofng reads log.xml and names the program's functions (from its archived copy)")
dump = subprocess.run([os.fsencode(ER_DUMP), exp], capture_output=True, timeout=120).stdout
check(b"cwd: " + cwd + b"\n" in dump, "our reader gives back the working directory's bytes")
check(b" work_fifty\n" in dump, "our reader names the program's functions")
cleanup(os.fsdecode(work))
finish()
