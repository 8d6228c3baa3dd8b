"""Control commands for an open experiment: pause, resume, sample points.
They act through calls into the runtime in the live process; with no
active experiment they warn and do nothing (never an error: a script goes
on)."""

import gdb

from . import outside, values
from .commands import _Subcommand, _no_arguments, _warn
from .text import say

# A day: gprofng shows the period in whole seconds of a 32-bit field.
MAX_SAMPLE_PERIOD_S = 86400


def _wait_for_sampler_process(command):
    """Outside the program, the request takes effect when the sampler process
    has taken it."""
    status = command.state.session.status()
    if outside.sampled_outside(status):
        outside.ControlPage(status).wait_consumed()


def _active_or_warn(command):
    active = command.state.session.active_experiment()
    if not active:
        _warn("no experiment is active; \"collector %s\" ignored." % command.name)
    return active


class PauseCommand(_Subcommand):
    """Stop recording profile data; the experiment stays open.

Usage: collector pause

Samples go on; log.xml records the pause (gprofng leaves paused time out of
the collection duration).  Pausing twice is ignored."""

    name = "pause"

    def invoke(self, arg, from_tty):
        _no_arguments(self.name, arg)
        active = _active_or_warn(self)
        if not active:
            return
        if active.get("detail") == "paused":
            say("Collector already paused: experiment %s.\n" % active.get("experiment"))
            return
        self.state.attacher.call_runtime("gdbcol_pause", "collector pause")
        _wait_for_sampler_process(self)
        say("Collector paused: experiment %s records no profile data until \"collector resume\".\n"
                  % active.get("experiment"))


class ResumeCommand(_Subcommand):
    """Record profile data again after "collector pause".

Usage: collector resume"""

    name = "resume"

    def invoke(self, arg, from_tty):
        _no_arguments(self.name, arg)
        active = _active_or_warn(self)
        if not active:
            return
        if active.get("detail") != "paused":
            say("Collector is not paused: experiment %s is recording.\n" % active.get("experiment"))
            return
        self.state.attacher.call_runtime("gdbcol_resume")
        _wait_for_sampler_process(self)
        say("Collector resumed: experiment %s.\n" % active.get("experiment"))


SAMPLE_USAGE = ("collector sample periodic|manual, collector sample period SECONDS, "
                "or collector sample record [NAME]")


class SampleCommand(_Subcommand):
    """Sample points: the sampling mode, the period, or a sample now.

Usage: collector sample periodic     a sample every period (the default)
       collector sample manual       samples only on request
       collector sample period SECONDS   the period (default 1; 0.001 to 86400)
       collector sample record [NAME]    record a sample now, labelled NAME

Each sample stores the process's resource usage since the previous one;
gprofng shows them with -overview and -sample_detail."""

    name = "sample"

    def invoke(self, arg, from_tty):
        words = arg.split(None, 1)
        if not words:
            raise gdb.GdbError("collector sample needs an argument: %s." % SAMPLE_USAGE)
        what, rest = words[0], (words[1].strip() if len(words) > 1 else "")
        settings = self.state.settings
        if what == "record":
            active = _active_or_warn(self)
            if active:
                self.state.attacher.call_runtime("gdbcol_sample", rest or "manual")
                _wait_for_sampler_process(self)
                say("Sample point \"%s\" recorded in experiment %s.\n"
                          % (rest or "manual", active.get("experiment")))
            return
        if what in ("periodic", "manual"):
            if rest:
                raise gdb.GdbError("collector sample %s takes no value (got \"%s\")." % (what, rest))
            typed, attribute, value = "sample " + what, "sample_periodic", what == "periodic"
        elif what == "period":
            try:
                seconds = values.decimal_number(rest, 0.001, MAX_SAMPLE_PERIOD_S, "The sample period in seconds",
                                                "0.5")
            except ValueError as error:
                raise gdb.GdbError("collector sample period: %s." % error)
            typed, attribute, value = "sample period " + rest, "sample_period_ms", int(round(seconds * 1000))
        else:
            raise gdb.GdbError("Unknown collector sample argument \"%s\": %s." % (what, SAMPLE_USAGE))
        if self.change_setting(typed, lambda: setattr(settings, attribute, value)):
            say("Sample points: %s.\n" % settings.describe_sampling())

    def complete(self, text, word):
        return _first_word_completions(text, word, ("periodic", "manual", "period", "record"))


def _first_word_completions(text, word, choices):
    """CHOICES for the first word after the command, nothing later."""
    if text.split() and (len(text.split()) > 1 or text.endswith(" ")):
        return []
    return [c for c in choices if c.startswith(word or "")]


class DbxsampleCommand(_Subcommand):
    """Record a sample point each time GDB stops the process.

Usage: collector dbxsample on|off

On (the default): every breakpoint, step or signal stop of a process with
an active experiment adds a sample labelled gdb_stop, so gprofng's
-overview splits the run at the places you stopped."""

    name = "dbxsample"

    def invoke(self, arg, from_tty):
        value = arg.strip()
        if value not in ("on", "off"):
            raise gdb.GdbError("collector dbxsample takes on or off (got \"%s\")." % value)
        self.state.stop_samples.enabled = value == "on"
        say("Sample points at GDB stops: %s.\n" % value)

    def complete(self, text, word):
        return _first_word_completions(text, word, ("on", "off"))


CONTROL_SUBCOMMANDS = (PauseCommand, ResumeCommand, SampleCommand, DbxsampleCommand)
