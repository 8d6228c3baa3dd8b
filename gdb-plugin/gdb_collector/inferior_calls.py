"""Calling functions in a live process safely: choosing the thread, bounding
the call with a watchdog, and the GDB settings every call needs.

Why the thread matters (measured; docs/design.md, "Attach mode"):
a call that needs a lock the borrowed thread already holds (an allocator
arena, the dynamic loader's lock) never returns.  The other threads run
during the call (scheduler-locking off), so a lock another thread holds is
released; only the borrowed thread's own locks can hang the call.  A thread
qualifies when none of its frames is inside the C library or the dynamic
loader, except the system-call wrapper it is blocked in (kernel-reported,
from a list of calls that hold no lock) and the thread-start frames at the
bottom.  When no thread qualifies, one is run out of its library frames
with `finish` first.

GDB 13 has no timeout for inferior calls: a watchdog thread (in C: GDB
keeps Python's lock during a call) sends a signal that GDB is told to stop
on and not pass; with unwindonsignal on, GDB then pops the call's frame and
the process is left as it was."""

import os
import re

import gdb

from . import native
from .gdb_state import GdbSettings, handle_signals, restore_signal_states, signal_states

# The runtime's own thread (the in-process sampler): every frame is the
# runtime's or the thread-start frames; calls wait for that very thread.
IN_RUNTIME = "is the collector's own thread"
# A program thread inside a traced call, e.g. waiting for the trace ring
# (heap tracing of a tight allocation loop faster than the sampler process
# drains it; the wait holds no lock and ends within a second): like a
# thread inside the C library, it is run out of the call first.
IN_TRACED_CALL = "is inside a traced call (in the collector's runtime)"

# System calls a thread can be blocked in without holding any library lock.
HARMLESS_SYSCALLS = {0, 7, 23, 34, 35, 43, 45, 47, 61, 128, 130, 230, 232, 270, 271, 281, 288, 441}
# Library functions that only wrap those system calls.
SYSCALL_WRAPPERS = {
    "read", "poll", "ppoll", "select", "pselect", "pselect6", "pause", "nanosleep", "clock_nanosleep",
    "usleep", "sleep", "accept", "accept4", "recv", "recvfrom", "recvmsg", "wait", "waitpid", "wait4",
    "sigtimedwait", "sigwaitinfo", "sigwait", "sigsuspend", "epoll_wait", "epoll_pwait", "epoll_pwait2",
    "syscall_cancel", "internal_syscall_cancel", "syscall_cancel_arch",  # glibc 2.41: every blocking call
}
# Frames at the bottom of every thread, inside the C library.
THREAD_START_FRAMES = {"start_thread", "clone", "clone3", "libc_start_call_main", "libc_start_main",
                       "libc_start_main_impl", "start"}
FRAMES_LOOKED_AT = 64
WATCHDOG_SIGNAL = "SIGURG"  # default action: ignore, should it ever reach the program
_SIGURG = 23


class CallTimeout(Exception):
    pass


def _plain_name(name):
    """__GI___libc_free -> free, __clock_nanosleep -> clock_nanosleep."""
    name = re.sub(r"@.*$", "", name or "")
    name = re.sub(r"^__GI_", "", name).lstrip("_")
    if name.startswith("libc_") and not name.startswith("libc_start"):
        name = name[len("libc_"):]
    return name


_realpaths = {}


def _real(path):
    """GDB names libraries as the loader opened them (/lib/...); the process
    map has the resolved path (/usr/lib/... on merged-/usr systems)."""
    if path is None:
        return None
    if path not in _realpaths:
        _realpaths[path] = os.path.realpath(path)
    return _realpaths[path]


def _kernel_syscall(pid, tid):
    try:
        with open("/proc/%d/task/%d/syscall" % (pid, tid)) as f:
            first = f.read().split()[0]
        return int(first)
    except (OSError, ValueError, IndexError):
        return None


class ThreadReport:
    """Why a thread can or cannot lend itself to an inferior call."""

    def __init__(self, thread, safe, unsafe_frame, reason):
        self.thread = thread
        self.safe = safe
        self.unsafe_frame = unsafe_frame  # index of the outermost library frame to leave
        self.reason = reason


def code_ranges(pid, paths):
    """The executable mappings of PATHS in process PID, from the kernel's
    map: GDB may not know the process's libraries (a process in another
    mount namespace: GDB showed its frames as `?? ()`, the thread stopped
    inside free() looked safe, and the loader's malloc in it waited for
    the arena lock it held itself)."""
    ranges = []
    try:
        with open("/proc/%d/maps" % pid, "rb") as f:
            for line in f:
                fields = line.split(None, 5)
                if len(fields) == 6 and fields[1][2:3] == b"x" and \
                        _real(os.fsdecode(fields[5].rstrip(b"\n"))) in paths:
                    lo, hi = fields[0].split(b"-")
                    ranges.append((int(lo, 16), int(hi, 16)))
    except (OSError, ValueError):
        pass
    return ranges


def _gdb_frames():
    """(code address, its name's getter) of the selected thread's frames, by
    GDB's unwinder."""
    frame, index = gdb.newest_frame(), 0
    while frame is not None and index < FRAMES_LOOKED_AT:
        try:
            pc = frame.pc()
        except gdb.error:
            return
        yield pc, frame.name
        index += 1
        try:
            frame = frame.older()
        except gdb.error:
            return


def _minimal_symbol(pc):
    """The function at PC from the ELF symbol tables GDB has read (its
    minimal symbols: no wait for its index of the debug information), or
    None."""
    try:
        text = gdb.execute("info symbol 0x%x" % pc, to_string=True)
    except gdb.error:
        return None
    if text.startswith("No symbol"):
        return None
    return re.sub(r" \+ \d+$", "", text.split(" in section ")[0].strip()) or None


def _native_frames(walks, thread):
    """THREAD's frames walked from its stack in memory by the C library
    (native.ThreadWalks: not even GDB's frame #0, which waits for GDB's
    index of the C library's debug information), named from minimal
    symbols; None where that walk could not reach the outermost frame."""
    pcs = walks.frames(thread.ptid[1])
    if pcs is None:
        return None
    return [(pc, lambda pc=pc: _minimal_symbol(pc)) for pc in pcs[:FRAMES_LOOKED_AT]]


def _name_of(getter):
    try:
        return getter()
    except gdb.error:
        return None


def examine_thread(thread, blocked, library_paths, own_paths=(), library_ranges=(), frames=None):
    """Looks at THREAD's frames (the caller restores the selected thread):
    FRAMES, (code address, name getter) pairs, else GDB's; BLOCKED: the
    kernel says it sits in one of HARMLESS_SYSCALLS.  A frame in OWN_PATHS
    (the collector's runtime) makes the thread unsafe like a library frame
    when program code called it (a traced call); a thread with no program
    frame under its runtime frames is the runtime's own and never lends
    itself."""
    thread.switch()
    leading, outermost_unsafe, reason = True, None, ""
    in_runtime, called_by_program = False, False
    for index, (pc, name_getter) in enumerate(frames if frames is not None else _gdb_frames()):
        where = _real(gdb.solib_name(pc))
        in_library = where in library_paths or any(lo <= pc < hi for lo, hi in library_ranges)
        if where in own_paths:
            in_runtime, leading = True, False
            outermost_unsafe = index
            reason = reason or IN_TRACED_CALL
        elif in_library:
            full_name = _name_of(name_getter)
            name = _plain_name(full_name)
            if leading and blocked and name in SYSCALL_WRAPPERS:
                pass  # the wrapper of the harmless system call it sits in
            elif name not in THREAD_START_FRAMES:
                outermost_unsafe = index
                reason = reason or "in %s" % (full_name or "the C library")
        else:
            leading = False
            called_by_program = called_by_program or in_runtime
    if in_runtime and not called_by_program:
        return ThreadReport(thread, False, outermost_unsafe, IN_RUNTIME)
    return ThreadReport(thread, outermost_unsafe is None, outermost_unsafe, reason)


class CallSession:
    """Everything inferior calls into a live process need, set up once:
    C language, unwind on signal, other threads running during a call, the
    watchdog signal stopping GDB without reaching the program."""

    active = 0  # sessions in progress: the stops they cause are not the user's

    def __init__(self, pid, library_paths, timeout, own_paths=()):
        self.pid = pid
        self.library_paths = set(_real(p) for p in library_paths if p)
        self.own_paths = set(_real(p) for p in own_paths if p)
        self.library_ranges = code_ranges(pid, self.library_paths)
        self.timeout = timeout
        self.settings = GdbSettings()
        self._saved_signals = {}
        self._original_thread = None
        self._paused_breakpoints = []

    def __enter__(self):
        CallSession.active += 1
        self._original_thread = gdb.selected_thread()
        # Other threads run during a call; one reaching a user breakpoint
        # would make GDB abandon the call half-way.  The user's breakpoints
        # are off for the calls' few milliseconds and back on after.
        self._paused_breakpoints = [b for b in (gdb.breakpoints() or ()) if b.enabled and b.is_valid()]
        for b in self._paused_breakpoints:
            b.enabled = False
        self.settings.set("language", "c")
        self.settings.set("unwindonsignal", "on")
        self.settings.set("scheduler-locking", "off")
        self.settings.set("print thread-events", "off")
        self.settings.set("suppress-cli-notifications", "on")
        self.settings.set("confirm", "off")
        # The runtime's libraries need no symbols in GDB (addresses come
        # from the files): not reading them keeps the process stopped less.
        self.settings.set("auto-solib-add", "off")
        # GDB 13 hits an internal error when a process exits in the middle
        # of a call in some interleavings of its threads' exits (seen once
        # in CI, exit during dlopen).  In batch mode GDB then quits, taking
        # the user's session with it; told not to, it aborts the command
        # instead, which the call turns into an ordinary error.
        self.settings.set_maintenance("internal-error quit", "no")
        self.settings.set_maintenance("internal-error corefile", "no")
        # A signal stopping another thread (the program's own, or the
        # runtime's timer signal in a process a previous session left
        # collecting) would make GDB abandon the call half-way: during the
        # calls no signal stops, except the watchdog's ("stop" needs
        # "print"; it is not passed to the program).
        self._saved_signals = signal_states()
        gdb.execute("handle all nostop noprint", to_string=True)
        handle_signals([WATCHDOG_SIGNAL], (True, True, False))
        return self

    def __exit__(self, *exc):
        CallSession.active -= 1
        for b in self._paused_breakpoints:
            if b.is_valid():
                b.enabled = True
        if self._saved_signals:
            restore_signal_states(self._saved_signals)
        self.settings.restore()
        if self._original_thread is not None and self._original_thread.is_valid():
            self._original_thread.switch()
        return False

    def run(self, command_or_expression, evaluate=True):
        """Evaluates an expression (or runs a command) on the selected
        thread with the watchdog armed; raises CallTimeout when it fired."""
        tid = gdb.selected_thread().ptid[1]
        native.watchdog_start(self.pid, tid, _SIGURG, self.timeout)
        try:
            if evaluate:
                result = gdb.parse_and_eval(command_or_expression)
                result.fetch_lazy()
                return result
            return gdb.execute(command_or_expression, to_string=True)
        except KeyboardInterrupt as aborted:
            # GDB's "Command aborted." (an internal error, see __enter__) or
            # the user's Ctrl-C: the call did not complete.
            native.watchdog_stop()
            raise gdb.error("the call was aborted (%s)" % (str(aborted) or "interrupted"))
        except gdb.error as error:
            if native.watchdog_stop():
                raise CallTimeout(str(error))
            raise
        finally:
            native.watchdog_stop()

    def _blocked_threads(self):
        """Each thread: whether the kernel says it sits in a harmless call."""
        return {t: _kernel_syscall(self.pid, t.ptid[1]) in HARMLESS_SYSCALLS for t in gdb.selected_inferior().threads()}

    def _by_native_walks(self, blocked):
        """The first thread that can lend itself by walks of the threads'
        stacks in memory (no wait for GDB's first unwind), or None: then
        GDB's frames decide (a walk cut short, no thread safe).  BLOCKED:
        _blocked_threads()."""
        with native.ThreadWalks(self.pid) as walks:
            for thread in sorted(blocked, key=lambda t: (not blocked[t], t.num)):
                frames = _native_frames(walks, thread)
                if frames is None:
                    continue
                report = examine_thread(thread, blocked[thread], self.library_paths, self.own_paths,
                                        self.library_ranges, frames)
                if report.safe:
                    return report
        return None

    def choose_thread(self, attempts=8):
        """Selects a thread that can lend itself to a call; returns its
        report, or raises gdb.GdbError saying why none could."""
        blocked = self._blocked_threads()
        report = self._by_native_walks(blocked)
        if report is not None:
            report.thread.switch()
            return report
        last_reasons = []
        for attempt in range(attempts):
            # Frames cost milliseconds per thread; the kernel's answer costs
            # microseconds: look at blocked threads first, stop at the first
            # that qualifies.  (The first reading holds until a thread ran.)
            if attempt > 0:
                blocked = self._blocked_threads()
            reports = []
            for thread in sorted(blocked, key=lambda t: (not blocked[t], t.num)):
                report = examine_thread(thread, blocked[thread], self.library_paths, self.own_paths,
                                        self.library_ranges)
                reports.append(report)
                if report.safe:
                    thread.switch()
                    return report
            last_reasons = ["thread %d %s" % (r.thread.num, r.reason) for r in reports]
            # Every thread is inside the library or a traced call: run one
            # out of it.
            candidates = [r for r in reports if r.reason != IN_RUNTIME]
            if not candidates:
                break
            victim = min(candidates, key=lambda r: r.unsafe_frame)
            victim.thread.switch()
            gdb.execute("frame %d" % victim.unsafe_frame, to_string=True)
            if gdb.selected_frame().older() is None:
                break
            try:
                # `advance` to where that frame returns, not `finish`: finish
                # would add the returned value to the user's value history.
                self.run("advance *0x%x" % gdb.selected_frame().older().pc(), evaluate=False)
            except CallTimeout:
                pass  # it did not leave in time; look again, maybe another will
            except gdb.error:
                break
            if not gdb.selected_inferior().pid:
                break
        raise gdb.GdbError("no thread of process %d could safely run a call: %s"
                           % (self.pid, "; ".join(last_reasons) or "the process is gone"))
