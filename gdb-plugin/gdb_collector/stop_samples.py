"""`collector dbxsample on|off`: a sample point each time GDB stops the
process (breakpoint, step, signal).

No inferior call is made from the stop event (fragile there): the plugin
adds one to the runtime's gdbcol_debugger_stops counter with a plain memory
write, and the runtime thread records the sample on its first cycle
after the process resumes.  The whole process was frozen in between, so
the sample's resource usage is the usage at the stop."""

import gdb

from . import outside
from .inferior_calls import CallSession


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
        if outside.sampled_outside(active):
            outside.ControlPage(active).add_stop()
            return
        address = self.state.attacher.exported_address("gdbcol_debugger_stops")
        if not address:
            return
        inferior = gdb.selected_inferior()
        try:
            count = int.from_bytes(bytes(inferior.read_memory(address, 8)), "little")
            inferior.write_memory(address, ((count + 1) % (1 << 64)).to_bytes(8, "little"))
        except gdb.MemoryError:
            pass

    def stops_so_far(self, active):
        """The stops counted for the experiment ACTIVE (a status) since it
        began, the current one included; None where they cannot be read."""
        if outside.sampled_outside(active):
            return outside.ControlPage(active).stops()
        address = self.state.attacher.exported_address("gdbcol_debugger_stops")
        if not address:
            return None
        try:
            return int.from_bytes(bytes(gdb.selected_inferior().read_memory(address, 8)), "little")
        except gdb.MemoryError:
            return None
