"""Arming launch mode: what GDB must change so that the next `run` starts
the program with the runtime preloaded, and how to put everything back.

With startup-with-shell on (GDB's default), GDB runs
`/bin/sh -c "exec WRAPPER PROGRAM"`; our exec-wrapper (gdbcol-launch) sets
LD_PRELOAD in the last process before the program, so the shell never loads
the runtime.  With startup-with-shell off there is no shell (and GDB ignores
exec-wrapper), so LD_PRELOAD goes into the inferior environment directly.
Every setting changed here is recorded and restored on disarm."""

import os

import gdb

from . import mpi_job, native
from .text import plain
from .gdb_state import handle_signals, inferior_env, restore_signal_states, set_inferior_env, signal_states

# The launcher's settings besides each data kind's own (native.data_kinds()).
LAUNCH_VARIABLES = (
    "GDBCOL_PRELOAD",
    "GDBCOL_EXPERIMENT_DIR",
    "GDBCOL_EXPERIMENT_NAME",
    "GDBCOL_STATUS_FILE",
    "GDBCOL_TARGET",
    "GDBCOL_SAVED_LD_PRELOAD",
    "GDBCOL_LD_PRELOAD_UNSET",
    "GDBCOL_SAMPLE_PERIOD_MS",
    "GDBCOL_LIMIT_MB",
    "GDBCOL_ARCHIVE",
    "GDBCOL_GROUP",
    "GDBCOL_DESCENDANTS",
    "GDBCOL_SAMPLER",
    "GDBCOL_HWC_NATIVE",
    "GDBCOL_STACK_BYTES",
    "GDBCOL_OFFCPU",
)


def env_variables():
    return LAUNCH_VARIABLES + tuple(kind.setting for kind in native.data_kinds())


def runtime_signals():
    """The signals the runtime uses: its in-process clock source's."""
    return ("SIG%d" % native.timer_signal(),)


def _quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


class LaunchArming:
    def __init__(self, runtime_path, launcher_path):
        self.runtime_path = runtime_path
        self.launcher_path = launcher_path
        self.armed = False
        self._mode = None  # "wrapper" or "direct" once armed
        self._saved_wrapper = ""
        self._saved_ld_preload = None
        self._saved_signals = {}

    def arm(self, settings, status_path):
        if not self.armed:
            self._saved_wrapper = gdb.parameter("exec-wrapper") or ""
            self._saved_ld_preload = inferior_env("LD_PRELOAD")
            for sig in runtime_signals():
                self._saved_signals.update(signal_states(sig))
                # The runtime's signals must never stop the program in GDB.
                handle_signals([sig], (False, False, True))
        self.armed = True
        self.refresh(settings, status_path)

    def refresh(self, settings, status_path):
        """Writes the current settings into the inferior environment."""
        if not self.armed:
            return
        variables = settings.runtime_variables(status_path, inferior_env)
        if settings.experiment_name is None and settings.group is None:
            job = mpi_job.rank_experiment(settings.store_directory, inferior_env)
            if job is not None:  # one GDB per MPI rank: the rank's experiment in the job's directory
                variables["GDBCOL_EXPERIMENT_DIR"], variables["GDBCOL_EXPERIMENT_NAME"] = job
        for name, value in variables.items():
            set_inferior_env(name, value)
        # GDBCOL_TARGET: the launcher names the program it execs, by its
        # bytes (the program's path never goes into a GDB command).
        if gdb.parameter("startup-with-shell"):
            self._use_wrapper()
        else:
            self._use_direct_preload()

    def _use_wrapper(self):
        if self._mode == "direct":
            self._undo_direct_preload()
        if not plain(self.launcher_path):  # it goes into a GDB command: never a second line
            raise gdb.GdbError("collector: the launcher's path is not plain text (%r); install gdb-collector "
                               "under a path of printable ASCII" % self.launcher_path)
        wrapper = _quote(self.launcher_path)
        if self._saved_wrapper:
            wrapper += " " + self._saved_wrapper  # the user's wrapper runs next
        gdb.execute("set exec-wrapper %s" % wrapper, to_string=True)
        set_inferior_env("GDBCOL_PRELOAD", self.runtime_path)
        # The sampler process, beside the runtime (GDBCOL_CLOCK_SOURCE=process).
        set_inferior_env("GDBCOL_SAMPLER", os.path.join(os.path.dirname(self.runtime_path), "gdbcol-sampler"))
        self._mode = "wrapper"

    def _use_direct_preload(self):
        if self._mode == "wrapper":
            self._undo_wrapper()
        user = self._saved_ld_preload
        if user is None:
            set_inferior_env("GDBCOL_LD_PRELOAD_UNSET", "1")
            set_inferior_env("LD_PRELOAD", self.runtime_path)
        else:
            set_inferior_env("GDBCOL_SAVED_LD_PRELOAD", user)
            set_inferior_env("LD_PRELOAD", self.runtime_path + ":" + user)
        self._mode = "direct"

    def _undo_wrapper(self):
        if self._saved_wrapper:
            gdb.execute("set exec-wrapper %s" % self._saved_wrapper, to_string=True)
        else:
            gdb.execute("unset exec-wrapper", to_string=True)  # "set" refuses an empty value
        set_inferior_env("GDBCOL_PRELOAD", None)

    def _undo_direct_preload(self):
        set_inferior_env("LD_PRELOAD", self._saved_ld_preload)
        set_inferior_env("GDBCOL_SAVED_LD_PRELOAD", None)
        set_inferior_env("GDBCOL_LD_PRELOAD_UNSET", None)

    def disarm(self):
        if not self.armed:
            return
        if self._mode == "wrapper":
            self._undo_wrapper()
        elif self._mode == "direct":
            self._undo_direct_preload()
        self._mode = None
        for name in env_variables():
            set_inferior_env(name, None)
        restore_signal_states(self._saved_signals)
        self._saved_signals = {}
        self.armed = False
