"""Starting the sampler process on a live process (`collector enable` after
`gdb -p`): clock samples then come from outside the program, as at launch,
and the runtime GDB loads into it keeps no thread and no descriptor.

The sampler opens its events on every thread while GDB keeps the process
stopped (no thread can appear unseen), then says it is ready on a pipe.
GDB starts it before its calls load the runtime, and tells it to go once
they are done: its own start-up (exec, settings, shared files) overlaps
with them.
It stays GDB's child, for GDB to reap when it ends (sampler_children.py);
it outlives GDB's detach and closes the experiment when the program ends
(after GDB's exit, its parent is then PID 1, or the nearest subreaper)."""

import os
import select
import signal
import socket
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
    starting = begin(runtime_path, pid, variables)
    return starting is not None and starting.go()


class Starting:
    """A sampler process started ahead: it sets itself up while GDB's
    calls load the runtime (they let the process's threads run), and opens
    its events only when told to go, with the process stopped again."""

    def __init__(self, ready_read, go):
        self._ready_read = ready_read
        self._go = go  # a socket: a sampler that died cannot raise SIGPIPE in GDB

    def go(self):
        """True once it is recording, False when it could not start."""
        try:
            self._go.send(b"g", socket.MSG_NOSIGNAL)
            return _answer(self._ready_read) == b"R"
        except OSError:
            return False
        finally:
            self.abandon()

    def abandon(self):
        """Without a go it ends at once and removes what it made."""
        if self._go is not None:
            self._go.close()
            os.close(self._ready_read)
            self._go = None


def begin(runtime_path, pid, variables):
    """Starts the sampler process on PID with the GDBCOL_* VARIABLES, to
    open its events at go(); None when it could not be started."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GDBCOL_")}
    env.update({name: value or "" for name, value in variables.items()})
    env["GDBCOL_GDB_PID"] = str(os.getpid())  # it stays GDB's child
    ready_read, ready_write = os.pipe()
    go, go_theirs = socket.socketpair()
    try:
        sampler = subprocess.Popen([sampler_path(runtime_path), "--attach", str(pid), str(ready_write),
                                    str(go_theirs.fileno())],
                                   pass_fds=(ready_write, go_theirs.fileno()), env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        os.close(ready_read)
        go.close()
        return None
    finally:
        os.close(ready_write)
        go_theirs.close()
    sampler_children.adopt(sampler.pid, pid, sampler)
    return Starting(ready_read, go)


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
