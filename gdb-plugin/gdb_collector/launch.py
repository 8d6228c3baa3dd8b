"""Arming launch mode: what GDB must change so that the next `run` starts
the program with the runtime preloaded, and how to put everything back.

With startup-with-shell on (GDB's default), GDB runs
`/bin/sh -c "exec WRAPPER PROGRAM"`; our exec-wrapper (gdbcol-launch) sets
LD_PRELOAD in the last process before the program, so the shell never loads
the runtime, and starts the sampler process before the exec.

Where our wrapper cannot be used, LD_PRELOAD goes into the inferior
environment directly ("direct"), and the runtime starts the sampler process
itself before main (runtime/collector_main.c):
- startup-with-shell off: there is no shell, and GDB ignores exec-wrapper;
- the user's own exec-wrapper: it must stay the only one, since GDB counts
  the execs before the program (ours in front of it made GDB stop in the
  user's wrapper, and ours behind it could not find `env` on the PATH).
  GDBCOL_TARGET names the program, so the runtime stays inert in the shell
  and in the user's wrapper.
The value is what gdbcol-launch would set (a sanitizer's runtime first).
Every setting changed here is recorded and restored on disarm."""

import os
import subprocess

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
    "GDBCOL_GDB_PID",
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
        if gdb.parameter("startup-with-shell") and not self._saved_wrapper:
            self._use_wrapper()
        else:
            self._use_direct_preload()

    def _use_wrapper(self):
        if self._mode == "direct":
            self._undo_direct_preload()
        if not plain(self.launcher_path):  # it goes into a GDB command: never a second line
            raise gdb.GdbError("collector: the launcher's path is not plain text (%r); install gdb-collector "
                               "under a path of printable ASCII" % self.launcher_path)
        gdb.execute("set exec-wrapper %s" % _quote(self.launcher_path), to_string=True)
        set_inferior_env("GDBCOL_PRELOAD", self.runtime_path)
        self._set_sampler()
        self._mode = "wrapper"

    def _set_sampler(self):
        # The sampler process, beside the runtime (GDBCOL_CLOCK_SOURCE=process),
        # made GDB's child, for GDB to reap (sampler_children.py).
        set_inferior_env("GDBCOL_SAMPLER", os.path.join(os.path.dirname(self.runtime_path), "gdbcol-sampler"))
        set_inferior_env("GDBCOL_GDB_PID", str(os.getpid()))

    def _use_direct_preload(self):
        if self._mode == "wrapper":
            self._undo_wrapper()
        user = self._saved_ld_preload
        if user is None:
            set_inferior_env("GDBCOL_LD_PRELOAD_UNSET", "1")
        else:
            set_inferior_env("GDBCOL_SAVED_LD_PRELOAD", user)
        set_inferior_env("LD_PRELOAD", self._preload_value(user))
        self._set_sampler()
        program = gdb.current_progspace().filename
        if self._saved_wrapper and gdb.parameter("startup-with-shell") and program:
            set_inferior_env("GDBCOL_TARGET", program)  # the shell's and the wrapper's runtimes stay inert
        self._mode = "direct"

    def _preload_value(self, user):
        """LD_PRELOAD as gdbcol-launch would set it for the program GDB
        runs (a sanitizer's runtime first); runtime:user where it cannot
        tell."""
        fallback = self.runtime_path + (":" + user if user else "")
        program = gdb.current_progspace().filename
        if not program:
            return fallback
        env = {name: value for name, value in os.environ.items() if not name.startswith("GDBCOL_")}
        env.pop("LD_PRELOAD", None)
        env.update(GDBCOL_PRELOAD=self.runtime_path, GDBCOL_USER_LD_PRELOAD=user or "")
        try:
            done = subprocess.run([self.launcher_path, "--preload-value", program], env=env, capture_output=True,
                                  timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return fallback
        value = done.stdout.decode("utf-8", "surrogateescape").strip()
        return value if done.returncode == 0 and value and plain(value) else fallback

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
        set_inferior_env("GDBCOL_TARGET", None)

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
