"""Settings for what an experiment keeps: `collector limit` (a cap on the
recorded data) and `collector archive` (the load objects kept with it when
it ends).  Like every setting they apply to the next experiment."""

import gdb

from . import native, values
from .commands import _Subcommand
from .text import say

# log.xml's <setting limit> and gprofng's reading of it are 32-bit.
MAX_LIMIT_MB = 2147483647


class LimitCommand(_Subcommand):
    """Cap the profile and trace data an experiment records.

Usage: collector limit MEGABYTES
       collector limit none|unlimited

The default is 2000 MB.  The cap is approximate (data is written in 64 KiB
blocks) and sample points do not count.  When it is reached, profile data
stops, the experiment stays open, sample points go on until the process
ends, and log.xml records that the limit was reached."""

    name = "limit"
    usage = "collector limit MEGABYTES (a whole number from 1 to 2147483647), or collector limit none|unlimited"

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if len(words) != 1:
            raise gdb.GdbError("collector limit takes one value. Usage: %s." % self.usage)
        value = words[0]
        if value in ("none", "unlimited"):
            megabytes = 0
        else:
            try:
                megabytes = values.whole_number(value, 1, MAX_LIMIT_MB, "The limit in megabytes", "500")
            except ValueError as error:
                raise gdb.GdbError("collector limit: %s; or none|unlimited." % error)
        if self.change_setting("collector limit " + value, lambda: setattr(self.state.settings, "limit_mb", megabytes)):
            say("Data limit: %s.\n" % self.state.settings.describe_limit())

    def complete(self, text, word):
        return [w for w in ("none", "unlimited") if w.startswith(word or "")]


class ArchiveCommand(_Subcommand):
    """What is kept with an experiment when it ends (program exit or "collector disable").

Usage: collector archive on|off|copy

on    (default) archive.log records every load object with its size, time
      and build-id, so a change to a file after the run can be detected.
off   nothing is recorded.
copy  as on, and every load object is copied into the experiment's
      archives/, so it reads correctly after the program is deleted or
      rebuilt, or on another machine."""

    name = "archive"
    usage = "collector archive on|off|copy"

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if len(words) != 1 or not native.valid_archive_mode(words[0]):
            raise gdb.GdbError('Invalid argument "%s". Usage: %s.' % (arg.strip(), self.usage))
        if self.change_setting("collector archive " + words[0],
                               lambda: setattr(self.state.settings, "archive", words[0])):
            say("Archive mode: %s.\n" % words[0])

    def complete(self, text, word):
        return [w for w in ("on", "off", "copy") if w.startswith(word or "")]


class DescendantsCommand(_Subcommand):
    """Which descendant processes of the program are recorded.

Usage: collector descendants on|off|=REGEX

on      (default) every process the program creates, and theirs (fork,
        vfork, posix_spawn, system, popen, and what they exec), each as a
        sub-experiment inside the experiment: _f1.er for the first fork,
        _f1_x1.er for what it execs, as gprofng names them.  gprofng shows
        the whole tree when given the experiment.
off     none.
=REGEX  only those whose lineage (_f1_x1) or program name (cc1) the
        extended regular expression matches entirely, as gprofng's
        collect -F =regex: =cc1, or =(cc1|as)."""

    name = "descendants"
    usage = "collector descendants on|off|=REGEX"

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if len(words) != 1:
            raise gdb.GdbError("collector descendants takes one value. Usage: %s." % self.usage)
        problem = native.descendants_problem(words[0])
        if problem:
            raise gdb.GdbError("collector descendants: %s." % problem)
        if self.change_setting("collector descendants " + words[0],
                               lambda: setattr(self.state.settings, "descendants", words[0])):
            say("Descendants: %s.\n" % words[0])

    def complete(self, text, word):
        return [w for w in ("on", "off", "=") if w.startswith(word or "")]


STORAGE_SUBCOMMANDS = (LimitCommand, ArchiveCommand, DescendantsCommand)
