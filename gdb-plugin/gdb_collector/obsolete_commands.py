"""dbx's obsolete collector commands, accepted so old scripts keep running
(as dbx documents them): enable_once and address_space warn
and do nothing; close and quit act as disable while an experiment is
active, and warn otherwise."""

import gdb

from .commands import _Subcommand, _no_arguments, _warn


class EnableOnceCommand(_Subcommand):
    """Obsolete: accepted and ignored.  Use "collector enable".

Usage: collector enable_once"""

    name = "enable_once"

    def invoke(self, arg, from_tty):
        _warn("\"collector enable_once\" is obsolete and ignored; use \"collector enable\".")


class AddressSpaceCommand(_Subcommand):
    """Obsolete: address-space data is no longer collected; accepted and ignored.

Usage: collector address_space on|off"""

    name = "address_space"

    def invoke(self, arg, from_tty):
        if arg.strip() not in ("on", "off"):
            raise gdb.GdbError("collector address_space takes on or off (got \"%s\")." % arg.strip())
        _warn("\"collector address_space\" is no longer supported; ignored.")


class _CloseAlias(_Subcommand):
    def invoke(self, arg, from_tty):
        _no_arguments(self.name, arg)
        if not self.state.session.active_experiment():
            _warn("no experiment is active; \"collector %s\" (obsolete) ignored." % self.name)
            return
        _warn("\"collector %s\" is obsolete: it does what \"collector disable\" does." % self.name)
        gdb.execute("collector disable", from_tty)


class CloseCommand(_CloseAlias):
    """Obsolete: the same as "collector disable" while an experiment is active.

Usage: collector close"""

    name = "close"


class QuitCommand(_CloseAlias):
    """Obsolete: the same as "collector disable" while an experiment is active.

Usage: collector quit"""

    name = "quit"


OBSOLETE_SUBCOMMANDS = (EnableOnceCommand, AddressSpaceCommand, CloseCommand, QuitCommand)
