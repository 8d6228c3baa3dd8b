"""Values that are data: how the collector passes them to the program and
reads them back, and how it shows them to the user.

Paths are bytes on Linux (a working directory named with \\xff, a program
in a directory whose name holds a newline).  Python holds such a path as
text with surrogate escapes.  Into a GDB command a value must never bring
a newline (the rest would be a second command, `shell` included), and the
runtime must get the original bytes: values that are not plain printable
ASCII travel as "hex:" and their bytes (er_value_encode in
experiment/format/er_text.c, which the runtime, the launcher and the status file
share).  What GDB prints shows such bytes as \\xNN."""

import os

HEX = "hex:"


def _as_bytes(value):
    return value if isinstance(value, bytes) else os.fsencode(value)


def plain(value):
    """True when VALUE travels as is (the C side's plain_value)."""
    raw = _as_bytes(value)
    return not raw.startswith(b"hex:") and raw[:1] != b" " and raw[-1:] != b" " and \
        all(0x20 <= b <= 0x7E for b in raw)


def encode_value(value):
    """VALUE (text or bytes) as it can ride in a GDB command or a line."""
    return os.fsdecode(_as_bytes(value)) if plain(value) else HEX + _as_bytes(value).hex()


def decode_value(value):
    """The value encode_value (or the C side) made, as text that keeps its
    bytes (surrogate escapes, as os functions take it)."""
    if not value.startswith(HEX):
        return value
    try:
        return os.fsdecode(bytes.fromhex(value[len(HEX):]))
    except ValueError:
        return value


def shown(text):
    """TEXT for GDB to print: bytes that are not UTF-8 as \\xNN."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def say(text):
    """gdb.write, with what it cannot print as text shown as \\xNN."""
    import gdb  # only inside GDB (the functions above are plain Python)
    gdb.write(shown(text))
