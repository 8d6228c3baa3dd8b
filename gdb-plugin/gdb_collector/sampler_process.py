"""Starting the sampler process on a live process (`collector enable` after
`gdb -p`): clock samples then come from outside the program, as at launch,
and the runtime GDB loads into it keeps no thread and no descriptor.

The sampler opens its events on every thread while GDB keeps the process
stopped (no thread can appear unseen), then says it is ready on a pipe.
It stays GDB's child, for GDB to reap when it ends (sampler_children.py);
it outlives GDB's detach and closes the experiment when the program ends
(after GDB's exit, its parent is then PID 1, or the nearest subreaper)."""

import os
import select
import signal
import subprocess
import time

from . import sampler_children

READY_WAIT_S = 60.0


def sampler_path(runtime_path):
    return os.path.join(os.path.dirname(runtime_path), "gdbcol-sampler")


def start(runtime_path, pid, variables):
    """Starts the sampler process on PID with the GDBCOL_* VARIABLES; True
    once it is recording, False when it could not start (the status file
    says why)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GDBCOL_")}
    env.update({name: value or "" for name, value in variables.items()})
    env["GDBCOL_GDB_PID"] = str(os.getpid())  # it stays GDB's child
    ready_read, ready_write = os.pipe()
    try:
        try:
            sampler = subprocess.Popen([sampler_path(runtime_path), "--attach", str(pid), str(ready_write)],
                                     pass_fds=(ready_write,), env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            return False
        sampler_children.adopt(sampler.pid, pid, sampler)
        os.close(ready_write)
        ready_write = -1
        return _answer(ready_read) == b"R"
    finally:
        os.close(ready_read)
        if ready_write >= 0:
            os.close(ready_write)


def _answer(fd):
    deadline = time.monotonic() + READY_WAIT_S
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b""
        try:
            readable, _, _ = select.select([fd], [], [], left)
        except InterruptedError:
            continue
        if readable:
            return os.read(fd, 1)


def stop(status):
    """Ends the experiment of the sampler process STATUS names (the runtime
    could not join it); the program runs on."""
    pid = status.get("sampler_pid", "")
    if pid.isdigit() and int(pid) > 0:
        try:
            os.kill(int(pid), signal.SIGTERM)
        except OSError:
            pass
