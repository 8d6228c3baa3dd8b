"""Thread Analyzer's stops in GDB: `collector tha deadlock` stops the
program at a deadlock found while it happens, and GDB prints the cycle;
`collector tha race,stop` stops it at each data race ThreadSanitizer
reports.

The runtime (libcollector/interpose/deadlock_watch.c, tsan_interpose.c)
fills its exported gdbcol_deadlock_* or gdbcol_race_* variables and calls
gdbcol_deadlock_found() or gdbcol_race_found(), where this module keeps an
internal breakpoint: by name before a run (made when the runtime's library
loads), by address in a running process (after gdb -p, with the
runtime's symbols read so that its frames unwind).  The stop methods only
read memory and ask GDB for symbols (no inferior call); the deadlock's
threads' stacks are printed from the stop event, once the stop is
complete."""

import gdb

from .text import say

KINDS = {0: "mutex", 1: "read-write lock (read)", 2: "read-write lock (write)", 3: "spin lock"}
MAX = 8
STACK_FRAMES = 8


def _read_ints(inferior, address, count, size):
    raw = bytes(inferior.read_memory(address, count * size))
    return [int.from_bytes(raw[i * size:(i + 1) * size], "little", signed=size == 4) for i in range(count)]


def _lock_name(address):
    """GDB's name for the variable at ADDRESS ("lock_a"), or the address."""
    try:
        text = gdb.execute("info symbol 0x%x" % address, to_string=True).strip()
    except gdb.error:
        text = ""
    if not text or text.startswith("No symbol"):
        return "0x%x" % address
    return "%s (0x%x)" % (text.split(" in section ")[0], address)


class _StopBreakpoint(gdb.Breakpoint):
    def __init__(self, spec, found):
        super().__init__(spec, internal=True)
        self.silent = True
        self.found = found

    def stop(self):
        return self.found()


class _RuntimeStop:
    """An internal breakpoint at the runtime's FUNCTION, on while asked."""

    function = None

    def __init__(self, state):
        self.state = state
        self.breakpoint = None
        self.by_address = False
        self.wanted = False  # on, and waiting for the runtime's library to load
        gdb.events.exited.connect(self._forget_address)
        gdb.events.new_objfile.connect(self._runtime_loaded)

    def _runtime_loaded(self, event):
        """Before a run the breakpoint waits for the runtime's library: a
        pending one by name made GDB print 'Function "gdbcol_deadlock_found"
        not defined.' at `collector tha deadlock`."""
        name = getattr(event.new_objfile, "filename", "") or ""
        if self.wanted and self.breakpoint is None and name.endswith("/libcollector.so"):
            self.breakpoint = _StopBreakpoint(self.function, self.found)
            self.by_address = False

    def _forget_address(self, event):
        """A breakpoint set at the runtime's address in one process means
        nothing in the next."""
        if self.breakpoint is not None and self.by_address:
            self.breakpoint.delete()
            self.breakpoint = None

    def watch(self, on):
        """Turns the stop on (collector enable with the setting) or off."""
        if on and self.breakpoint is not None and not self.breakpoint.is_valid():
            self.breakpoint = None
        if on and self.breakpoint is None:
            # In a running process (after gdb -p) the runtime was just loaded
            # and GDB may not know its symbols yet: its address; before a run,
            # its name (pending until the runtime loads).
            address = self.state.attacher.exported_address(self.function)
            if address:
                # and its frames unwound when it stops: GDB reads the
                # symbols (and unwind tables) of a library loaded by a call
                # of its own only when asked (a fixed pattern, no path).
                try:
                    gdb.execute("sharedlibrary /libcollector\\.so$", to_string=True)
                except gdb.error:
                    pass
            if address:
                self.breakpoint = _StopBreakpoint("*0x%x" % address, self.found)
                self.by_address = True
        self.wanted = on
        if self.breakpoint is not None:
            self.breakpoint.enabled = on

    def found(self):
        return True


class RaceStop(_RuntimeStop):
    """`collector tha race,stop`: the program stops at each data race."""

    function = "gdbcol_race_found"

    def found(self):
        attacher = self.state.attacher
        inferior = gdb.selected_inferior()
        try:
            number = _read_ints(inferior, attacher.exported_address("gdbcol_race_number"), 1, 4)[0]
            address = _read_ints(inferior, attacher.exported_address("gdbcol_race_address"), 1, 8)[0]
            threads = _read_ints(inferior, attacher.exported_address("gdbcol_race_threads"), 2, 4)
            writes = _read_ints(inferior, attacher.exported_address("gdbcol_race_writes"), 2, 4)
        except (gdb.error, gdb.MemoryError, TypeError):
            say("collector: a data race (its details could not be read).\n")
            return True
        accesses = " and ".join("a %s by thread T%d" % ("write" if w else "read", t) for t, w in zip(threads, writes))
        say("collector: data race %d on %s: %s (ThreadSanitizer's report above names the stacks); the program is "
            "stopped in the thread that made the second access (\"continue\" goes on).\n"
            % (number, _lock_name(address), accesses))
        return True


class DeadlockStop(_RuntimeStop):
    """`collector tha deadlock`: the program stops at a deadlock."""

    function = "gdbcol_deadlock_found"

    def __init__(self, state):
        super().__init__(state)
        self.pending_threads = []
        gdb.events.stop.connect(self._after_stop)

    def found(self):
        attacher = self.state.attacher
        inferior = gdb.selected_inferior()
        try:
            size = _read_ints(inferior, attacher.exported_address("gdbcol_deadlock_size"), 1, 4)[0]
            size = max(0, min(size, MAX))
            threads = _read_ints(inferior, attacher.exported_address("gdbcol_deadlock_threads"), size, 4)
            owners = _read_ints(inferior, attacher.exported_address("gdbcol_deadlock_owners"), size, 4)
            locks = _read_ints(inferior, attacher.exported_address("gdbcol_deadlock_locks"), size, 8)
            kinds = _read_ints(inferior, attacher.exported_address("gdbcol_deadlock_kinds"), size, 4)
        except (gdb.error, gdb.MemoryError, TypeError):
            say("collector: deadlock: the program's threads wait for each other's locks (the cycle could not "
                "be read).\n")
            return True
        lines = ["collector: deadlock: %d threads wait for each other's locks and will never go on:" % size]
        for tid, owner, lock, kind in zip(threads, owners, locks, kinds):
            lines.append("  thread %s waits for %s %s, held by thread %s"
                         % (self._thread_label(tid), KINDS.get(kind, "lock"), _lock_name(lock),
                            self._thread_label(owner)))
        lines.append("The program is stopped where the deadlock was found; each thread's stack follows "
                     "(\"thread N\" then \"bt\" to inspect one).")
        say("\n".join(lines) + "\n")
        self.pending_threads = threads
        return True

    @staticmethod
    def _thread_label(lwp):
        for thread in gdb.selected_inferior().threads():
            if thread.ptid[1] == lwp:
                return "%d (LWP %d)" % (thread.num, lwp)
        return "LWP %d" % lwp

    def _after_stop(self, event):
        threads, self.pending_threads = self.pending_threads, []
        if not threads:
            return
        selected = gdb.selected_thread()
        for thread in gdb.selected_inferior().threads():
            if thread.ptid[1] not in threads:
                continue
            try:
                thread.switch()
                stack = gdb.execute("bt %d" % STACK_FRAMES, to_string=True)
            except gdb.error as e:
                stack = "(%s)\n" % e
            say("Thread %d (LWP %d):\n%s" % (thread.num, thread.ptid[1], stack))
        if selected is not None and selected.is_valid():
            selected.switch()
            self._select_program_frame()

    def _select_program_frame(self):
        """The frame where the program asked for the lock, not the
        collector's own below it."""
        runtime = self.state.attacher.runtime_path
        frame = gdb.newest_frame()
        while frame is not None and (gdb.solib_name(frame.pc()) or "") == runtime:
            frame = frame.older()
        if frame is not None:
            frame.select()
            say(gdb.execute("frame", to_string=True))
