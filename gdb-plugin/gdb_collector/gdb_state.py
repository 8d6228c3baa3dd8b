"""Reading and changing GDB's own state (inferior environment, signal
handling, parameters) so that every change the collector makes can be put
back exactly as the user had it."""

import re

import gdb

from .text import encode_value, plain


def inferior_env(name):
    """The value of NAME in the inferior environment GDB keeps, or None
    (also when GDB cannot show it as text)."""
    try:
        out = gdb.execute("show environment %s" % name, to_string=True)
    except (gdb.error, UnicodeDecodeError):
        return None
    match = re.match(r"%s = (.*)\n?$" % re.escape(name), out)
    return match.group(1) if match else None


def set_inferior_env(name, value):
    """Sets (or with None, unsets) NAME in the program's environment.  The
    collector's own variables (GDBCOL_*) carry any value, encoded where it
    is not plain text; another variable's value must be plain, never pasted
    into the command otherwise (a newline would start a second command)."""
    if value is None:
        gdb.execute("unset environment %s" % name, to_string=True)
        return
    if name.startswith("GDBCOL_"):
        value = encode_value(value)
    elif not plain(value):
        raise gdb.GdbError("collector: cannot pass %s to the program: its value is not plain text (%r)"
                           % (name, value))
    gdb.execute("set environment %s=%s" % (name, value), to_string=True)


def signal_states(name=None):
    """{signal: (stop, print, pass)} for NAME, or for every signal GDB lists."""
    states = {}
    out = gdb.execute("info signals %s" % name if name else "info signals", to_string=True)
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 4 and all(f in ("Yes", "No") for f in fields[1:4]):
            states[fields[0]] = tuple(f == "Yes" for f in fields[1:4])
    return states


def handle_signals(names, state):
    """`handle NAMES...` with STATE = (stop, print, pass)."""
    stop, prt, pss = state
    gdb.execute("handle %s %s %s %s" % (" ".join(names), "stop" if stop else "nostop", "print" if prt else "noprint",
                                        "pass" if pss else "nopass"), to_string=True)


def restore_signal_states(saved):
    """Puts back SAVED (from signal_states): one `handle` command per
    distinct state, for the signals that changed."""
    now = signal_states()
    by_state = {}
    for name, state in saved.items():
        if now.get(name) != state:
            by_state.setdefault(state, []).append(name)
    for state, names in by_state.items():
        handle_signals(names, state)


class GdbSettings:
    """Sets GDB parameters (and maintenance settings) and puts the user's
    values back."""

    def __init__(self):
        self._saved = []

    def set(self, name, value):
        self._saved.append(("set", name, gdb.parameter(name)))
        gdb.execute("set %s %s" % (name, value), to_string=True)

    def set_maintenance(self, name, value):
        """`maint set NAME VALUE`: Python cannot read these parameters, so
        the old value comes from `maint show`'s quoted answer."""
        shown = gdb.execute("maint show %s" % name, to_string=True)
        match = re.search(r'"([^"]*)"\.?\s*$', shown)
        if match is None:
            return
        self._saved.append(("maint set", name, match.group(1)))
        gdb.execute("maint set %s %s" % (name, value), to_string=True)

    def restore(self):
        for command, name, value in reversed(self._saved):
            if isinstance(value, bool):
                value = "on" if value else "off"
            try:
                gdb.execute("%s %s %s" % (command, name, value), to_string=True)
            except gdb.error:
                pass
        self._saved = []
