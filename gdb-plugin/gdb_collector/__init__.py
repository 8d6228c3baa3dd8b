"""gdb-collector: the dbx `collector` command set for GDB.

Loaded by share/gdb/collector.gdb (build tree) or the installed auto-load
file, which call register() with the paths of the runtime pieces."""

import atexit

import gdb

from . import (attach, commands, control_commands, data_kinds, native, obsolete_commands, sampler_children,
               storage_commands)
from .report_command import ReportCommand
from .attach import Attacher
from .launch import LaunchArming
from .session import Session
from .tha_stops import DeadlockStop, RaceStop
from .stop_samples import StopSamples
from .text import say
from .settings import Settings


class _State:
    """Everything the commands share."""

    def __init__(self, runtime, launcher, version):
        self.version = version
        self.settings = Settings()
        self.session = Session()
        self.arming = LaunchArming(runtime, launcher)
        self.attacher = Attacher(runtime)
        self.stop_samples = StopSamples(self)
        self.deadlock_stop = DeadlockStop(self)
        self.race_stop = RaceStop(self)
        self.subcommands = set()


_state = None


def _on_exited(event):
    # (exit_code: only where the program exited, through whatever call;
    # a kill, GDB's own at its end included, has none)
    _state.session.report_end_of_run(launched=_state.arming.armed, exit_code=getattr(event, "exit_code", None))
    # The collector stays enabled for the next run: a fixed name that now
    # exists would record nothing then, said only at that run's end.
    taken = _state.settings.fixed_name_taken() if _state.arming.armed else None
    if taken:
        say("collector: the next run is not recorded as it stands: %s (collector store experiment NAME).\n" % taken)
    sampler_children.reap_ended()


def register(runtime, shared, launcher, version, report=None):
    """Defines the commands once per GDB session."""
    global _state
    if _state is not None:
        return
    native.load(shared)
    _state = _State(runtime, launcher, version)
    commands.CollectorPrefix(_state)
    for command in commands.SUBCOMMANDS + control_commands.CONTROL_SUBCOMMANDS + \
            storage_commands.STORAGE_SUBCOMMANDS + data_kinds.DATA_KIND_SUBCOMMANDS + \
            obsolete_commands.OBSOLETE_SUBCOMMANDS:
        command(_state)
    ReportCommand(_state, report)
    gdb.events.exited.connect(_on_exited)
    # A sampler process that ended while GDB waited at its prompt.
    gdb.events.before_prompt.connect(sampler_children.reap_ended)
    # Last of all, when GDB ends (after it has killed or detached the
    # inferiors and reported their end): the session's files.
    atexit.register(_state.session.remove_if_done)
    gdb.events.stop.connect(_state.stop_samples.on_stop)
    # So that a failed `gdb -p` can be told from a process that came and went.
    attach.note_live_process()
    gdb.events.new_thread.connect(attach.note_live_process)
