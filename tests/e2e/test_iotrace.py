"""I/O tracing (collector iotrace): a program built with
_FILE_OFFSET_BITS=64 (so it calls open64, pread64, fopen64, as programs
that handle large files do) does known I/O: plain, vectored and
positioned writes, reads to the end, stdio, copy_file_range, a write
through a dup, a pipe, and an open that fails; one file's descriptor is
reused by the next.  Checked with gprofng (-ioactivity: bytes and counts per
file; -functions: bytes per function) and with our reader: every byte on
the right file and function, exactly; the same after `gdb -p`; none of it
when iotrace is off; and as an unprivileged user."""

import os
import re
import subprocess

from harness import (Background, attach_gdb, check, check_recorded, cleanup, er_dump, finish, program, run_gdb,
                     shared_workdir, unprivileged_prefix, wait_closed, workdir)

PROGRAM = program("io_activity")
OUTPUT = "read_alpha=16384 stdio_gamma=700 text_epsilon=84 open_error=1"
# file: (read bytes, write bytes)
FILES = {"alpha.dat": (16384, 12288), "beta.dat": (0, 1750), "gamma.txt": (700, 700), "delta.dat": (0, 8292), "epsilon.txt": (84, 84),
         "<pipe: read end>": (64, 0), "<pipe: write end>": (0, 64)}
# function: (inclusive read bytes, inclusive write bytes)
FUNCTIONS = {"write_alpha": (0, 12288), "write_beta": (0, 1750), "read_alpha": (16384, 0),
             "stdio_gamma": (700, 700), "text_epsilon": (84, 84), "copy_delta": (0, 8292), "use_pipe": (64, 64), "fail_open": (0, 0)}
work = workdir()


def gprofng_rows(path, metrics, view):
    out = subprocess.run(["gprofng", "display", "text", "-metrics", metrics, view, path], capture_output=True,
                         text=True, timeout=120)
    text = out.stdout + out.stderr
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*((?:\d+\s+)+)(\S.*?)\s*$", line)
        if m:
            rows[m.group(2)] = [int(v) for v in m.group(1).split()]
    return rows, text


def reader_files(raw):
    files, in_section = {}, False
    for line in raw.splitlines():
        if line.startswith("io_files:"):
            in_section = True
        elif in_section:
            m = re.match(r"^(\d+) (\d+) (\d+) (.+)$", line)
            if not m:
                break
            files[m.group(4)] = (int(m.group(1)), int(m.group(2)))
    return files


# -iocallstack's totals: (bytes, calls).  Writes: 3 write, writev + pwrite,
# 5 fwrite, copy_file_range + a write through the dup, the pipe's write,
# 10 fprintf + fputs.  Reads: pread + 4 read, fread, the pipe's read, 12 fgets.
TOTALS = {"Write": (23178, 24), "Read": (17232, 19)}


def check_totals(mode, path):
    out = subprocess.run(["gprofng", "display", "text", "-iocallstack", path], capture_output=True, text=True,
                         timeout=120)
    text = out.stdout + out.stderr
    head = text.split("Stack ", 1)[0]
    print(head)
    for kind, (nbytes, calls) in TOTALS.items():
        m = re.search(r"%s Time=[0-9.]+ \(secs\.\)\s+%s Bytes=(\d+)\s+%s Count=(\d+)" % (kind, kind, kind), head)
        got = (int(m.group(1)), int(m.group(2))) if m else None
        check(got == (nbytes, calls), "%s: gprofng -iocallstack: %s bytes and calls %s (%s)"
              % (mode, kind, (nbytes, calls), got))
    m = re.search(r"I/O Error Count=(\d+)", head)
    check(m is not None and m.group(1) == "1", "%s: gprofng -iocallstack: one I/O error" % mode)


def check_run(mode, path):
    check_totals(mode, path)
    rows, text = gprofng_rows(path, "e.ioreadbytes:e.iowritebytes:e.ioerrorcnt", "-ioactivity")
    print(text)
    for name, (read, written) in FILES.items():
        got = rows.get(name, [None, None, None])[:2]
        check(got == [read, written], "%s: gprofng: %s read %d, written %d bytes (%s)" % (mode, name, read, written, got))
    check(rows.get("no-such-directory/none", [0, 0, 0])[2] == 1, "%s: gprofng: the failed open is one I/O error" % mode)
    rows, text = gprofng_rows(path, "i.ioreadbytes:i.iowritebytes", "-functions")
    print(text)
    for name, (read, written) in FUNCTIONS.items():
        got = rows.get(name)
        check(got == [read, written], "%s: gprofng: %s read %d, wrote %d bytes in all (%s)"
              % (mode, name, read, written, got))
    summary, funcs, raw = er_dump(path)
    print(raw)
    files = reader_files(raw)
    for name, expected in FILES.items():
        check(files.get(name) == expected, "%s: our reader: %s %s (%s)" % (mode, name, expected, files.get(name)))
    check(summary.get("io_errors") == "1" and summary.get("damaged_packets") == "0",
          "%s: our reader: one error, no damaged packet (%s)" % (mode, summary.get("io_errors")))


out = run_gdb(["collector iotrace on", "collector show", "collector enable", "run"], [PROGRAM], cwd=work)
print(out)
check("I/O tracing: on." in out and re.search(r"I/O tracing:\s+on", out), "GDB confirms and shows the setting")
check(OUTPUT in out and "exited normally" in out, "launch: the program's output is unchanged")
check_run("launch", os.path.join(work, "test.1.er"))

out = run_gdb(["collector enable", "run"], [PROGRAM], cwd=work)
check_recorded(os.path.join(work, "test.2.er"), "iotrace off")
check(not os.path.exists(os.path.join(work, "test.2.er", "iotrace")) and
      "io_calls" not in er_dump(os.path.join(work, "test.2.er"))[2], "iotrace off: no iotrace file")

# Sampling from inside the program (where the sampler process cannot run):
# tracing is not possible there, and log.xml says so instead of an empty trace.
out = run_gdb(["set environment GDBCOL_CLOCK_SOURCE=timer", "collector iotrace on", "collector enable", "run"],
              [PROGRAM], cwd=work)
inside = os.path.join(work, "test.3.er")
check_recorded(inside, "sampling from inside")
raw = er_dump(inside)[2]
check(OUTPUT in out and not os.path.exists(os.path.join(inside, "iotrace")) and
      "I/O tracing was asked for but needs the sampler process" in raw,
      "sampling from inside: no iotrace file, and log.xml says why")

out = run_gdb(["collector iotrace maybe"], [PROGRAM], cwd=work)
check('Invalid argument "maybe". Usage: collector iotrace on|off.' in out, "a bad argument is refused plainly")

# Descendants: a forked child's I/O is in its own sub-experiment, exact.
out = run_gdb(["collector iotrace on", "collector enable", "run"], [PROGRAM, "child"], cwd=work)
print(out)
child = os.path.join(work, "test.4.er", "_f1.er")
check(OUTPUT in out and os.path.isdir(child), "descendants: the forked child ran and has its sub-experiment")
if os.path.isdir(child):
    check_run("descendants: forked child", child)
    parent = reader_files(er_dump(os.path.join(work, "test.4.er"))[2])
    check(not any(name in parent for name in FILES), "descendants: the parent's trace has none of the child's I/O "
          "(%s)" % parent)

# A signal handler that writes while the program writes (every 1 ms): no
# deadlock, no recursion, the output unchanged, every write recorded once.
out = run_gdb(["collector iotrace on", "collector enable", "run"], [PROGRAM, "signals"], cwd=work, timeout=180)
print(out)
m = re.search(r"signals main=(\d+) handler=(\d+)", out)
summary = er_dump(os.path.join(work, "test.5.er"))[0]
check(m is not None and "exited normally" in out, "signals: the program ends normally, its output unchanged")
if m:
    writes = int(m.group(1)) + int(m.group(2))
    check(summary.get("io_write_calls") == str(writes) and
          summary.get("io_write_bytes") == str(64 * int(m.group(1)) + 8 * int(m.group(2))),
          "signals: every write, the handler's too, recorded once (%d; %s recorded)"
          % (writes, summary.get("io_write_calls")))

# After gdb -p: the I/O after the attach is traced (GOT slots of open64 & co).
target = Background([PROGRAM, "ready"], cwd=work)
out = attach_gdb(target.pid, ["collector iotrace on", "collector enable", "detach"], cwd=work)
print(out)
status, rest = target.finish()
check(status == 0 and OUTPUT in rest, "attach: the program ends normally, its output unchanged")
attached = os.path.join(work, "test.6.er")
wait_closed(attached)
check_run("attach", attached)
raw = er_dump(attached)[2]
m = re.search(r"\(I/O, exec, spawn, thread start\) were put in (\d+) GOT slot\(s\) of (\d+) loaded object", raw)
check(m is not None and int(m.group(1)) > 0 and int(m.group(2)) > 0 and "could not be patched" not in raw,
      "attach: log.xml says tracing started by attach, in how many GOT slots and objects (%s)"
      % (m.group(0) if m else None))

# collector pause / resume apply to the trace: copy_delta's I/O, made while
# paused, is not recorded; what came before and after is.
out = run_gdb(["collector iotrace on", "collector enable", "break copy_delta", "run", "collector pause",
               "break use_pipe", "continue", "collector resume", "continue"], [PROGRAM], cwd=work)
print(out)
paused = os.path.join(work, "test.7.er")
summary, funcs, raw = er_dump(paused)
print(raw)
files = reader_files(raw)
check(OUTPUT in out and "delta.dat" not in files and files.get("<pipe: write end>") == (0, 64)
      and files.get("beta.dat") == (0, 1750), "pause: copy_delta's I/O not recorded, the rest is (%s)" % files)
rows, text = gprofng_rows(paused, "e.ioreadbytes:e.iowritebytes:e.ioerrorcnt", "-ioactivity")
check("delta.dat" not in rows and rows.get("beta.dat", [0, 0])[:2] == [0, 1750],
      "pause: gprofng shows no delta.dat and the rest (%s)" % sorted(rows))

# collector limit applies to the trace: 100 000 writes (about 9 MB of
# packets) under a 1 MB limit stop near it; the program goes on to its end.
out = run_gdb(["collector iotrace on", "collector limit 1", "collector enable", "run"], [PROGRAM, "many", "100000"],
              cwd=work, timeout=180)
print(out)
limited = os.path.join(work, "test.8.er")
summary, funcs, raw = er_dump(limited)
size = os.path.getsize(os.path.join(limited, "iotrace"))
check("many=100000" in out and "exited normally" in out, "limit: the program runs to its end")
check(0 < size <= 1100000 and int(summary.get("io_calls", "0")) < 20000,
      "limit: the trace stops near 1 MB (%d bytes, %s calls)" % (size, summary.get("io_calls")))
check(summary.get("damaged_packets") == "0" and "warning: id 14:" in raw, "limit: no damaged packet; log.xml says the limit "
      "was reached")

# A distribution's program, built with _FORTIFY_SOURCE: tar opens with the
# checking forms (__open_2, __openat_2), and its reads and writes land on
# the files by name, to the byte.
with open(os.path.join(work, "known.bin"), "wb") as f:
    f.write(os.urandom(100000))
out = run_gdb(["collector iotrace on", "collector enable", "run"], ["tar", "cf", "out.tar", "known.bin"], cwd=work)
print(out)
tar_files = reader_files(er_dump(os.path.join(work, "test.9.er"))[2])
tar_size = os.path.getsize(os.path.join(work, "out.tar")) if os.path.exists(os.path.join(work, "out.tar")) else -1
check(tar_files.get("known.bin") == (100000, 0) and tar_files.get("out.tar") == (0, tar_size),
      "tar (fortified): known.bin read whole, out.tar written whole, by name (%s; out.tar %d bytes)"
      % (tar_files, tar_size))
cleanup(work)

prefix = unprivileged_prefix()
if prefix:
    work = shared_workdir()
    out = run_gdb(["collector iotrace on", "collector enable", "run"], [PROGRAM], cwd=work, prefix=prefix)
    print(out)
    check_run("ordinary user", os.path.join(work, "test.1.er"))
    cleanup(work)
finish()
