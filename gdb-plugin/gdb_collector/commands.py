"""The `collector` command set (dbx's collector commands; docs/design.md and README.md say what each does here).

Each subcommand is its own gdb.Command, so `help collector` lists them and
TAB completes them.  Syntax errors are gdb.GdbError (they stop a script, as
GDB users expect); state problems (a setting while an experiment is active,
disabling twice) are warnings that let a script go on."""

import os
import re
import time

import gdb

from . import attach, gdb_state, native, outside, values
from .session import clock_source_note, closed_summary, look_at_it, write_error_text
from .settings import on_off_traced_kinds
from .text import say

SETTING_IGNORED = "Warning: an experiment is active; settings apply to the next experiment. Ignored: %s\n"


def _warn(text):
    say("Warning: %s\n" % text)


class CollectorPrefix(gdb.Command):
    """Record performance experiments (clock profiling) that gprofng reads.

Usage: collector SUBCOMMAND [ARGUMENTS]

Typical use:
  (gdb) collector enable
  (gdb) run
  ... the program ends; then in a shell: gprofng display text -functions test.1.er

Each subcommand has its own help: help collector SUBCOMMAND."""

    def __init__(self, state):
        super().__init__("collector", gdb.COMMAND_RUNNING, gdb.COMPLETE_COMMAND, True)
        self.state = state

    def invoke(self, arg, from_tty):
        names = ", ".join(sorted(self.state.subcommands))
        if arg.strip():
            raise gdb.GdbError(
                'Undefined collector command: "%s". Accepted subcommands: %s. Try "help collector".'
                % (arg.split()[0], names)
            )
        raise gdb.GdbError("collector needs a subcommand: %s. Try \"help collector\"." % names)


class _Subcommand(gdb.Command):
    name = None

    def __init__(self, state):
        super().__init__("collector " + self.name, gdb.COMMAND_RUNNING)
        self.state = state
        state.subcommands.add(self.name)

    def change_setting(self, what, apply):
        """The one way every setting changes (WHAT: the command as typed).
        Refused, with a warning, while an experiment is active; else APPLY()
        changes the settings and the next experiment gets them, whenever
        they are typed: before or after `collector enable`, between runs,
        after a detach (the program's environment is rewritten when
        enabled).  True when applied."""
        if self.state.session.active_experiment():
            say(SETTING_IGNORED % what)
            return False
        apply()
        self.state.arming.refresh(self.state.settings, self.state.session.status_path)
        return True


def _no_arguments(name, arg):
    if arg.strip():
        raise gdb.GdbError("collector %s takes no arguments (got \"%s\")." % (name, arg.strip()))


class EnableCommand(_Subcommand):
    """Enable data collection: the next run (or start) records an experiment.

Usage: collector enable

The experiment is named test.N.er (or as set by "collector store") and is
written in the program's working directory unless "collector store
directory" says otherwise.  Collection stays enabled for later runs until
"collector disable"."""

    name = "enable"

    def invoke(self, arg, from_tty):
        _no_arguments(self.name, arg)
        state = self.state
        active = state.session.active_experiment()
        if active:
            _warn("experiment %s is already active; ignored." % active.get("experiment"))
            return
        if attach.live_pid():
            self._start_in_running_process()
            return
        refused = attach.diagnose_failed_attach()
        if refused:
            raise gdb.GdbError("collector enable: " + refused)
        problems = state.settings.problems_before_run()
        if not state.settings.store_directory:
            # the program's working directory holds the experiment: found
            # now, not when the run has ended (as an ordinary user in a
            # directory of root's, nothing was recorded and said so then)
            where = gdb.parameter("cwd") or os.getcwd()
            problem = values.writable_directory_problem(os.path.expanduser(where))
            if problem:
                problems.append("the experiment goes in the program's working directory, and %s (collector store "
                                "directory DIR puts it elsewhere)" % problem)
        if problems:
            raise gdb.GdbError("collector enable: " + "; ".join(problems) + ". Nothing was enabled.")
        state.arming.arm(state.settings, state.session.status_path)
        state.deadlock_stop.watch("deadlock" in state.settings.tha.split(","))
        state.race_stop.watch("stop" in state.settings.tha.split(","))
        directory = state.settings.store_directory
        where = directory or "the program's working directory"
        named = state.settings.named_experiment()
        upcoming = native.next_experiment_name(directory, named) if directory else None
        if upcoming and upcoming != named:
            # a numbered name is taken when the run starts: another GDB
            # launching into the same directory may take this one first
            # (three at once each said "test.1.er")
            upcoming = "%s, the next free number (%s as of now)," % (re.sub(r"\.\d+\.er$", ".N.er", upcoming), upcoming)
        say("Collector enabled: the next run records %s in %s.\n" % (upcoming or named or "test.N.er", where))

    def _start_in_running_process(self):
        state = self.state
        pid = attach.live_pid()
        problems = state.settings.problems_before_run()
        if problems:
            raise gdb.GdbError("collector enable: " + "; ".join(problems) + ". Nothing was started.")
        state.session.forget()
        owner = attach.other_user(pid)
        unreachable = state.session.reachable_by_others() if owner else None
        if unreachable:
            raise gdb.GdbError("collector enable: process %d runs as %s, and %s. Nothing was started."
                               % (pid, owner, unreachable))
        outcome = state.attacher.start(state.settings, state.session.status_path)
        st = state.session.status()
        if outcome < 0 or st.get("state") == "error":
            begun = ""
            if state.attacher.start_error and st.get("experiment"):
                # The sampler process had begun the experiment when the
                # runtime could not join it (its control page, under an
                # address-space limit): closed with nothing in it, said here
                # once (before, also at the program's end as if recorded).
                st = state.session.wait_until_closed()
                state.session.mark_reported(st)
                begun = " (the experiment %s it had begun holds no data)" % st.get("experiment")
            raise gdb.GdbError("collector enable: no experiment in process %d: %s%s"
                               % (pid, state.attacher.start_error or st.get("detail") or
                                  "the runtime did not start", begun))
        # Later runs of the program are recorded too, as in launch mode; this
        # also keeps the runtime's signals passing through GDB.
        state.arming.arm(state.settings, state.session.status_path)
        state.deadlock_stop.watch("deadlock" in state.settings.tha.split(","))
        state.race_stop.watch("stop" in state.settings.tha.split(","))
        if outcome == 1:
            say("Collector: experiment %s was already being recorded in process %d; it goes on.\n"
                      % (st.get("experiment"), pid))
        else:
            say("Collector enabled in process %d: recording %s.\n" % (pid, st.get("experiment")))


class DisableCommand(_Subcommand):
    """Disable data collection: end the active experiment; later runs are not profiled.

Usage: collector disable

GDB's settings (environment, exec-wrapper, signal handling) are restored to
what they were before "collector enable"."""

    name = "disable"

    def invoke(self, arg, from_tty):
        _no_arguments(self.name, arg)
        state = self.state
        active = state.session.active_experiment()
        closed = False
        if active or state.attacher.runtime_loaded():
            closed = self._close_in_process()
        if not state.arming.armed and not closed:
            _warn("the collector is not enabled and no experiment is active; nothing to disable.")
            return
        state.arming.disarm()
        say("Collector disabled.\n")

    def _close_in_process(self):
        """Ends the experiment the runtime records in the live process (one
        this session started, or one left running by an earlier session);
        True when one was closed."""
        session = self.state.session
        before = session.status()
        closed_outside = self.state.attacher.close(session.status_path)
        st = session.wait_until_closed() if closed_outside else session.status()
        if st.get("state") == "closed" and st != before:
            say("collector: experiment %s closed (%s); the process keeps running.\n"
                      % (st.get("experiment"), closed_summary(st)))
            say(clock_source_note(st))
            say(look_at_it(st.get("experiment")))
            session.mark_reported(st)
            return True
        return False


class ProfileCommand(_Subcommand):
    """Clock-based profiling: on, off, or the sampling interval.

Usage: collector profile on|off
       collector profile timer VALUE
       collector profile stack SIZE
       collector profile depth FRAMES
       collector profile offcpu on|off

VALUE is on (about 10 ms, the default), hi or high (about 1 ms), lo or low
(about 100 ms), or a positive number of milliseconds (10, 2.5, 2.5m) or of
microseconds with the suffix u (500u).  A value below the minimum (100u) is
raised to it; the maximum is 1000 ms.  The effective interval is printed.

SIZE is how much of each thread's stack a sample copies for unwinding
(perf's --call-graph dwarf,SIZE): bytes, or KiB with the suffix k, from 1k
to 64k, or "default".  Call stacks deeper than the copy are cut (gprofng
shows <Truncated-stack>); the end-of-run summary says how many were, and
which limit cut them.  SP_COLLECTOR_STACKBUFSZ (bytes) in the program's
environment sets it, as dbx users set it for deeper stacks.

FRAMES is the most frames a call stack keeps, 5 to 2048 (gprofng's
ceiling), or "default": 256, as gprofng's collector keeps, or 2048 where a
stack copy larger than the default is set.  GPROFNG_MAX_CALL_STACK_DEPTH in
the program's environment sets it too.  Typed settings win over the
variables.

offcpu on (the default) records, with the clock profile, each thread's time off its CPU
from the kernel's context-switch records: waiting for a CPU (preempted),
asleep, in I/O, waiting on a lock, or blocked otherwise, with the call
stack where it waited (where the kernel allows samples in its context:
perf_event_paranoid 1 or less, or CAP_PERFMON; otherwise the time by
thread and reason without the stack, said once).  gprofng shows it as its
micro-state metrics (-metrics e.total:e.user:e.system:e.lock:e.sleep:e.wait);
collector report states shows it by thread and function."""

    name = "profile"
    usage = ("collector profile on|off, collector profile timer on|hi|lo|MILLISECONDS|MICROSECONDSu, "
             "collector profile stack BYTES|KIBk|default, collector profile depth FRAMES|default, "
             "or collector profile offcpu on|off")

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if not words:
            raise gdb.GdbError("Missing argument. Usage: %s." % self.usage)
        if words[0] in ("on", "off") and len(words) == 1:
            def apply():
                self.state.settings.clock_profiling = words[0] == "on"
                self.state.settings.clock_asked = True
            if self.change_setting("collector profile " + arg, apply):
                say("Clock profiling %s.\n" % ("enabled" if words[0] == "on" else "disabled"))
            return
        # `timer VALUE` and `stack SIZE`: one value, parsed by the settings.
        setters = {"timer": ("value", self.state.settings.set_timer),
                   "stack": ("size", self.state.settings.set_stack_bytes),
                   "depth": ("number of frames", self.state.settings.set_max_frames),
                   "offcpu": ("on or off", self.state.settings.set_offcpu)}
        if words[0] in setters:
            what, setter = setters[words[0]]
            if len(words) != 2:
                raise gdb.GdbError("collector profile %s takes one %s. Usage: %s." % (words[0], what, self.usage))
            messages = []

            def apply():
                try:
                    messages.append(setter(words[1]))
                except ValueError as error:
                    raise gdb.GdbError("collector profile %s: %s" % (words[0], error))
            if self.change_setting("collector profile " + arg, apply):
                say(messages[0] + "\n")
            return
        raise gdb.GdbError('Invalid argument "%s". Usage: %s.' % (arg.strip(), self.usage))

    def complete(self, text, word):
        words = text.split()
        if len(words) == 0 or (len(words) == 1 and not text.endswith(" ")):
            return [w for w in ("on", "off", "timer", "stack", "depth", "offcpu") if w.startswith(word or "")]
        if words[0] == "timer":
            return [w for w in ("on", "hi", "lo", "high", "low") if w.startswith(word or "")]
        if words[0] == "stack":
            return [w for w in ("default", "8k", "16k", "32k", "64k") if w.startswith(word or "")]
        if words[0] == "offcpu":
            return [w for w in ("on", "off") if w.startswith(word or "")]
        return []


class StoreCommand(_Subcommand):
    """Where experiments go, what they are called, and the group they join.

Usage: collector store directory DIRECTORY
       collector store experiment NAME
       collector store filename NAME      (the same as experiment)
       collector store group NAME.erg

NAME must end in .er.  A name of the form STEM.N.er moves on to the next
free number when taken; any other name must not exist yet.  Without a
value, each goes back to its default: the program's working directory, the
next test.N.er, no group.

A group file (.erg, as the Analyzer's) lists experiments; each experiment
recorded while a group is set is added to it, and "gprofng display text
NAME.erg" reads them together.  A relative group name is in the directory
where the experiments go; with no experiment name set, experiments are
named after the group (runs.erg: runs.1.er, runs.2.er, ...)."""

    name = "store"
    usage = ("collector store directory [DIRECTORY] | experiment [NAME.er] | filename [NAME.er] | "
             "group [NAME.erg]")

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if len(words) not in (1, 2) or words[0] not in ("directory", "experiment", "filename", "group"):
            raise gdb.GdbError('Invalid arguments "%s". Usage: %s.' % (arg.strip(), self.usage))
        settings = self.state.settings
        messages = []

        def apply():
            if len(words) == 1:  # back to the default, as dbx's store without a value
                attribute, message = {"directory": ("store_directory", "Experiments will be stored in the "
                                                                       "program's working directory."),
                                      "experiment": ("experiment_name", "Experiments will be named test.N.er."),
                                      "filename": ("experiment_name", "Experiments will be named test.N.er."),
                                      "group": ("group", "Experiments will join no group.")}[words[0]]
                setattr(settings, attribute, None)
                messages.append(message)
                return
            try:
                if words[0] == "directory":
                    settings.set_directory(words[1])
                    messages.append("Experiments will be stored in %s." % settings.store_directory)
                elif words[0] == "group":
                    settings.set_group(words[1])
                    messages.append("Experiments will join the group %s." % settings.group)
                else:
                    settings.set_experiment_name(words[1])
                    messages.append("The next experiment will be named %s." % words[1])
            except ValueError as error:
                raise gdb.GdbError("collector store %s: %s" % (words[0], error))
        if self.change_setting("collector store " + arg, apply):
            say(messages[0] + "\n")

    def complete(self, text, word):
        words = text.split()
        if len(words) == 0 or (len(words) == 1 and not text.endswith(" ")):
            return [w for w in ("directory", "experiment", "filename", "group") if w.startswith(word or "")]
        if words[0] in ("directory", "group"):
            return gdb.COMPLETE_FILENAME
        return []


ADOPT_WAIT_S = 3.0


class StatusCommand(_Subcommand):
    """Show the state of the collector and of any open experiment.

Usage: collector status

For an active experiment: its path, the process, whether it is paused,
and how much it holds so far (profile samples, sample points, data bytes
against the limit), read live from the process."""

    name = "status"

    def invoke(self, arg, from_tty):
        _no_arguments(self.name, arg)
        state = self.state
        active = state.session.active_experiment() or self._adopt_running_experiment()
        if active:
            progress = live_progress(state, active)
            say("Experiment %s is active in process %s%s.\n"
                      % (active.get("experiment"), active.get("pid"),
                         ", paused" if progress["paused"] else ""))
            say("  %s profile samples, %s sample points, %s of data (limit %s%s).\n"
                      % (progress["samples"], progress["sample_points"], _bytes(progress["data_bytes"]),
                         _limit_text(active.get("limit_mb", "0")),
                         "; reached: profile data stopped" if progress["limit_reached"] else ""))
            if progress["write_errno"]:
                say("  Writing stopped: %s; %s captured sample(s) not written.\n"
                          % (write_error_text(progress["write_errno"]), progress["samples_not_written"]))
        else:
            refused = attach.failed_attach_reason()
            pid = attach.requested_pid()
            if refused and pid is not None and attach.runtime_loaded_in(pid):
                # (a second GDB while the first records: "No experiment is
                # active" read as nothing recording there)
                say("No experiment is active in this GDB session. Process %d has the collector's runtime loaded: an "
                    "experiment may be recording there, started by another GDB session, which this one cannot ask: "
                    "%s\n" % (pid, refused))
            else:
                say("No experiment is active.\n")
            last = state.session.status()
            if last.get("experiment"):
                say("Last experiment: %s (%s).\n" % (last["experiment"], last.get("state")))
        say("Collector is %s.\n" % ("enabled" if state.arming.armed else "disabled"))


    def _adopt_running_experiment(self):
        """An experiment another GDB session started in this process: its
        reports come to this session from now on (read from the process,
        not from this session's memory).  Its status, or None."""
        state = self.state
        if not state.attacher.runtime_loaded():
            return None
        state.attacher.call_runtime("gdbcol_adopt_status", state.session.status_path, command="collector status")
        deadline = time.monotonic() + ADOPT_WAIT_S
        while time.monotonic() < deadline:  # the sampler process writes it within a cycle
            active = state.session.active_experiment()
            if active:
                return active
            time.sleep(0.02)
        return None


def _limit_text(megabytes):
    return "%s MB" % megabytes if megabytes not in ("", "0") else "none"


def _bytes(count):
    count = int(count)
    if count < 1024 * 1024:
        return "%.1f KB" % (count / 1024.0)
    return "%.1f MB" % (count / (1024.0 * 1024.0))


STATUS_ANSWER_WAIT_S = 2.0


def current_status(state, status):
    """The status file once the sampler process answered a request for one
    current to now (it drains its rings first, within a cycle or two), or
    STATUS as it was (up to a second old) when no answer came in time."""
    asked = outside.ControlPage(status).ask_status()
    if asked is None:
        return status
    deadline = time.monotonic() + STATUS_ANSWER_WAIT_S
    while time.monotonic() < deadline:
        current = state.session.status()
        if current.get("status_answer", "0").isdigit() and int(current["status_answer"]) >= asked:
            return current
        time.sleep(0.01)
    return status


def live_progress(state, status):
    """The experiment's counters: from the sampler process (outside the
    program), current to now; else read from the stopped process's memory
    (gdbcol_progress, refreshed by the runtime every cycle), or from the
    status file (up to a second old) when memory cannot be read."""
    if outside.sampled_outside(status):
        status = current_status(state, status)
    # The status file's names for the counters; the runtime's own in memory.
    fields = {"samples": "profile_packets", "sample_points": "sample_points", "data_bytes": "data_bytes",
              "limit_reached": "limit_reached", "paused": "paused", "write_errno": "write_errno",
              "samples_not_written": "samples_not_written"}
    result = {name: int(status.get(name, "0") or 0) for name in fields if name != "paused"}
    result["samples_not_written"] = int(status.get("not_written", "0") or 0)
    result["paused"] = status.get("detail") == "paused"
    # Outside the program the sampler process keeps the counts (in the file).
    address = 0 if outside.sampled_outside(status) else state.attacher.exported_address("gdbcol_progress")
    if address:
        try:
            where = native.layout()
            raw = bytes(gdb.selected_inferior().read_memory(address, where["progress.size"]))
        except gdb.error:
            return result
        result = {name: int.from_bytes(raw[where["progress." + member]:where["progress." + member] + 8], "little")
                  for name, member in fields.items()}
        result["paused"] = bool(result["paused"])
    return result


# dbx's `collector show CATEGORY`: the lines of `collector show` each shows
# (with the traced kinds that are only on or off: show_categories()).
SHOW_CATEGORIES = {
    "all": None,
    "profile": ("Clock profiling", "Stack copy", "Call-stack depth", "Off-CPU time"),
    "hwprofile": ("HW counter profiling",),
    "synctrace": ("Sync wait tracing",),
    "tha": ("Thread analyzer",),
    "sample": ("Sample points", "Sample points at GDB stops"),
    "limit": ("Data limit",),
    "archive": ("Archive",),
    "descendants": ("Descendants",),
    "store": ("Store directory", "Experiment name", "Experiment group"),
}


def show_categories():
    """SHOW_CATEGORIES with each on-or-off traced kind after synctrace, its
    line named by the kinds' table."""
    categories = {}
    for name, lines in SHOW_CATEGORIES.items():
        categories[name] = lines
        if name == "synctrace":
            categories.update({kind.command: (kind.title,) for kind in on_off_traced_kinds()})
    return categories


class ShowCommand(_Subcommand):
    """Show the collector's settings.

Usage: collector show [all|profile|hwprofile|synctrace|iotrace|heaptrace|
                       mpitrace|tha|sample|limit|archive|descendants|store]

Without a category (or with all), every setting, one a line."""

    name = "show"

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        categories = show_categories()
        if len(words) > 1 or (words and words[0] not in categories):
            raise gdb.GdbError("collector show takes one of: %s (got \"%s\")."
                               % (", ".join(categories), arg.strip()))
        prefixes = categories[words[0]] if words else None
        lines = ["Collector:              %s" % ("enabled" if self.state.arming.armed else "disabled")]
        lines += self.state.settings.describe(gdb_state.inferior_env).split("\n")
        lines.append("Sample points at GDB stops (dbxsample): %s"
                     % ("on" if self.state.stop_samples.enabled else "off"))
        for line in lines:
            if prefixes is None or any(line.startswith(p + ":") or line.startswith(p + " ") for p in prefixes):
                say(line + "\n")

    def complete(self, text, word):
        return [c for c in show_categories() if c.startswith(word or "")]


class VersionCommand(_Subcommand):
    """Show the version of the collector runtime used to collect.

Usage: collector version"""

    name = "version"

    def invoke(self, arg, from_tty):
        _no_arguments(self.name, arg)
        say("gdb-collector %s (runtime %s)\n" % (self.state.version, self.state.arming.runtime_path))


SUBCOMMANDS = (
    EnableCommand,
    DisableCommand,
    ProfileCommand,
    StoreCommand,
    StatusCommand,
    ShowCommand,
    VersionCommand,
)
