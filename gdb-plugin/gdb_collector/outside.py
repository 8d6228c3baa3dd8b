"""The control page shared with the sampler process, when clock profiling
comes from outside the program (GDBCOL_CLOCK_SOURCE=process).

The runtime in the program posts the requests of GDB's calls (pause,
resume, sample record, disable) on the page and the sampler process takes
them when GDB wakes it; GDB waits until it has, so that the next command sees
their effect.  GDB's stop counter (dbxsample) is written on the page
directly: the sampler process cannot read the program's memory.  Layout:
the head of struct col_control_page, at the offsets native.layout() gives
(experiment/include/er/er_gdb_layout.h)."""

import mmap
import os
import signal
import struct
import time

from . import native

CONSUME_WAIT_S = 5.0


def sampled_outside(status):
    return status.get("sampler_pid", "0") not in ("", "0")


class ControlPage:
    def __init__(self, status):
        """The page of the experiment STATUS describes (the sampler process
        names it: a session that adopted the experiment has another)."""
        self.path = status.get("control", "")
        self.sampler_pid = status.get("sampler_pid", "")

    def _wake_sampler(self):
        """The sampler process waits up to a quarter second between its
        drains unless woken (libcollector/shared/sampler_wake.h: SIGURG)."""
        if not self.sampler_pid.isdigit() or int(self.sampler_pid) <= 0:
            return
        try:
            os.kill(int(self.sampler_pid), signal.SIGURG)
        except OSError:
            pass  # gone: the waits are bounded

    def _with_page(self, action):
        if not self.path:
            return None
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            with mmap.mmap(fd, 4096) as page:
                return action(page)
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)

    def add_stop(self, label):
        """GDB stopped the program: LABEL (bytes, its field's size) where,
        then the count the sampler watches."""
        def bump(page):
            where = native.layout()["control.stop_label"]
            page[where:where + len(label)] = label
            at = native.layout()["control.debugger_stops"]
            count = struct.unpack_from("<Q", page, at)[0]
            struct.pack_into("<Q", page, at, (count + 1) % (1 << 64))
        self._with_page(bump)
        self._wake_sampler()

    def stops(self):
        """GDB's stops counted on the page since the experiment began, or
        None without a page."""
        return self._with_page(lambda page: struct.unpack_from("<Q", page, native.layout()["control.debugger_stops"])[0])

    def ask_status(self):
        """Asks the sampler process for a status file current to now (it
        drains its rings first); the number to wait for in the file's
        status_answer, or None without a page."""
        def bump(page):
            at = native.layout()["control.status_asked"]
            asked = (struct.unpack_from("<Q", page, at)[0] + 1) % (1 << 64)
            struct.pack_into("<Q", page, at, asked)
            return asked
        asked = self._with_page(bump)
        self._wake_sampler()
        return asked

    def wait_consumed(self):
        """Until the sampler process took every posted request (bounded)."""
        deadline = time.monotonic() + CONSUME_WAIT_S

        def pending(page):
            where = native.layout()
            written = struct.unpack_from("<Q", page, where["control.write_index"])[0]
            read = struct.unpack_from("<Q", page, where["control.read_index"])[0]
            return written != read
        self._wake_sampler()
        while self._with_page(pending) and time.monotonic() < deadline:
            time.sleep(0.01)
