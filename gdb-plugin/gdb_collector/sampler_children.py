"""Reaping the sampler processes that are GDB's own children.

The sampler process is GDB's child wherever GDB started the program or
attached to it (gdbcol-launch and the runtime give it GDB as its parent;
after `gdb -p` GDB starts it).  Were it anyone else's, it would end as a
zombie of PID 1, and a PID 1 that never reaps (a container's program run
without an init) would keep one per run.  GDB's own wait for the program
reaps children it does not know silently, but not while GDB waits at its
prompt, nor after it exits: so each one is reaped here, when it has ended,
at GDB's prompt, at the end of a run, and at GDB's exit (waiting for those
whose program has ended, bounded).

A sampler is known by a pidfd, opened only on a child of GDB's named
gdbcol-sampler: a pid read from a status file may have been reused since,
and a wait on the program's pid would take GDB's own events."""

import os
import select
import time

from .procfs import process_alive

_NAME = "gdbcol-sampler"
_children = {}  # pid -> (pidfd, target pid or None, the Popen that started it or None)


def _ours(pid):
    """True when PID is a child of this GDB's named gdbcol-sampler."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
    except OSError:
        return False
    name, _, rest = text.partition("(")[2].rpartition(")")
    fields = rest.split()
    return name == _NAME and len(fields) > 1 and fields[1] == str(os.getpid())


def adopt(pid, target=None, started_by=None):
    """PID (text or int), a sampler process recording TARGET: reaped by this
    module from now on if it is GDB's child.  STARTED_BY: the Popen that
    started it (told its status, so that it never waits on the pid)."""
    try:
        pid = int(pid)
    except (TypeError, ValueError):
        return
    if pid <= 0 or pid in _children or not _ours(pid):
        return
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return
    _children[pid] = (fd, int(target) if str(target or "").isdigit() else None, started_by)


def _reap(pid, block_s=0.0):
    """Reaps PID once it has ended, waiting up to BLOCK_S; True when it is
    gone (reaped here, or by GDB's own wait)."""
    fd, _, popen = _children[pid]
    if block_s > 0:
        select.select([fd], [], [], block_s)
    try:
        done = os.waitid(os.P_PIDFD, fd, os.WEXITED | os.WNOHANG)
    except ChildProcessError:
        done = True  # GDB's wait for the program took it
    except OSError:
        return False
    if done is None:
        return False
    os.close(fd)
    del _children[pid]
    if popen is not None:
        popen.returncode = 0  # never waited for by subprocess
    return True


def any_running():
    """True when a sampler process that is GDB's child still runs, known
    here or not yet (one gdbcol-launch started before the program's exec
    tells its status only when it has one)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open("/proc/self/task/%s/children" % task) as f:
                pids = f.read().split()
        except OSError:
            continue
        if any(_ours(int(pid)) and process_alive(pid) for pid in pids):
            return True
    return False


def reap_ended(*_):
    """Reaps every known sampler process that has ended (an event handler)."""
    for pid in list(_children):
        _reap(pid)


def wait_for_ended_programs(limit_s):
    """At GDB's exit: waits, up to LIMIT_S in all, for the sampler processes
    whose program has ended to close their experiments and end, and reaps
    them.  Those still recording a live program (after a detach) go on."""
    deadline = time.monotonic() + limit_s
    for pid in list(_children):
        target = _children[pid][1]
        if target is not None and process_alive(target):
            continue
        while not _reap(pid, block_s=max(0.0, min(0.5, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                break
