"""`collector dbxsample on|off`: a sample point each time GDB stops the
process (breakpoint, step, signal).

No inferior call is made from the stop event (fragile there): the plugin
adds one to the runtime's gdbcol_debugger_stops counter with a plain memory
write, and the runtime thread records the sample on its first cycle
after the process resumes.  The whole process was frozen in between, so
the sample's resource usage is the usage at the stop."""

import os

import gdb

from . import native, outside
from .inferior_calls import CallSession


def stop_label(event):
    """The stop's sample point label, NUL-padded to its field: "gdb_stop",
    then what stopped the program and where ("gdb_stop breakpoint 1 in
    marker_one at phases.c:27"), as far as GDB can say it."""
    words = [native.stop_label_prefix()]
    try:
        if isinstance(event, gdb.BreakpointEvent):
            words.append("breakpoint " + ",".join(str(b.number) for b in event.breakpoints))
        elif isinstance(event, gdb.SignalEvent):
            words.append("signal " + event.stop_signal)
        frame = gdb.selected_frame()
        if frame.name():
            words.append("in " + frame.name())
        sal = frame.find_sal()
        if sal.symtab is not None and sal.line:
            words.append("at %s:%d" % (os.path.basename(sal.symtab.filename), sal.line))
    except (gdb.error, RuntimeError):
        pass  # (no frame: the label says the stop only)
    size = native.layout()["stop_label.size"]
    text = " ".join(words).encode("utf-8", "surrogateescape")[:size - 1]
    return text + b"\0" * (size - len(text))


class StopSamples:
    def __init__(self, state):
        self.state = state
        self.enabled = True  # dbx's default

    def on_stop(self, event):
        if not self.enabled or CallSession.active:
            return  # off, or a stop the collector's own calls caused
        active = self.state.session.active_experiment()
        if not active:
            return
        label = stop_label(event)
        if outside.sampled_outside(active):
            outside.ControlPage(active).add_stop(label)
            return
        address, count = self._runtime_count()
        if count is None:
            return
        inferior = gdb.selected_inferior()
        try:
            label_at = self.state.attacher.exported_address("gdbcol_debugger_stop_label")
            if label_at:  # (before the count: the runtime reads it when the count moves)
                inferior.write_memory(label_at, label)
            inferior.write_memory(address, ((count + 1) % (1 << 64)).to_bytes(8, "little"))
        except gdb.MemoryError:
            pass

    def _runtime_count(self):
        """Where the runtime sampling itself keeps GDB's stop count, and the
        count; (address, None) where it cannot be read."""
        address = self.state.attacher.exported_address("gdbcol_debugger_stops")
        if not address:
            return address, None
        try:
            return address, int.from_bytes(bytes(gdb.selected_inferior().read_memory(address, 8)), "little")
        except gdb.MemoryError:
            return address, None

    def stops_so_far(self, active):
        """The stops counted for the experiment ACTIVE (a status) since it
        began, the current one included; None where they cannot be read."""
        if outside.sampled_outside(active):
            return outside.ControlPage(active).stops()
        return self._runtime_count()[1]
