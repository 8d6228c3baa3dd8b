"""Numbers and paths as the collector commands accept them.

Numbers only in the plain ASCII forms the manual describes (digits, at most
one decimal point): Python's float() and int() would also take "inf",
"nan", "1e99", "1_000" and digits of other scripts, which no runtime or
gprofng field can hold.  Every number has bounds the runtime and gprofng
can represent.  Paths are checked when the command is typed, so that a
problem is an error now and not an empty experiment after the run, with a
message that names the actual problem."""

import errno
import os
import re
import tempfile

_WHOLE = re.compile(r"[0-9]+\Z", re.ASCII)
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?\Z|\.[0-9]+\Z", re.ASCII)


def whole_number(text, low, high, what, example):
    """TEXT as an int within [LOW, HIGH], or ValueError naming the forms."""
    if not _WHOLE.match(text) or not low <= int(text) <= high:
        raise ValueError('%s must be a whole number from %d to %d, written with the digits 0-9 (for example %s); '
                         'got "%s"' % (what, low, high, example, text))
    return int(text)


def decimal_number(text, low, high, what, example):
    """TEXT as a float within [LOW, HIGH], or ValueError naming the forms."""
    if not _DECIMAL.match(text) or not low <= float(text) <= high:
        raise ValueError('%s must be a number from %g to %g, written with the digits 0-9 and at most one '
                         'decimal point (for example %s); got "%s"' % (what, low, high, example, text))
    return float(text)


def _read_only(path):
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def writable_directory_problem(path):
    """None when experiments can be created in PATH, else what is wrong."""
    if not os.path.lexists(path):
        return "%s does not exist" % path
    if not os.path.isdir(path):
        return "%s is not a directory" % path
    if _read_only(path):
        return "%s is on a read-only file system" % path
    if not os.access(path, os.W_OK | os.X_OK):
        return "permission denied: you cannot create files in %s" % path
    # An experiment is a directory: make one and take it away again (root
    # passes the access check in /proc or /sys, where none can be made).
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".gdbcol-probe-", dir=path))
    except OSError as error:
        return "no directory can be created in %s (%s)" % (path, error.strerror)
    return None


GROUP_HEADER = "#analyzer experiment group"


def group_file_problem(path):
    """None when the group file PATH can be created or joined, else why not."""
    problem = writable_directory_problem(os.path.dirname(path) or ".")
    if problem:
        return "the group's directory: " + problem
    if os.path.islink(path):
        return "%s is a symbolic link; a group file must be a plain file" % path
    if not os.path.lexists(path):
        return None
    if not os.path.isfile(path):
        return "%s exists and is not a file" % path
    try:
        with open(path, "rb") as f:
            first = f.readline(len(GROUP_HEADER) + 2)
    except OSError as error:
        return "cannot read %s: %s" % (path, os.strerror(error.errno or errno.EIO))
    if first.rstrip(b"\n") != GROUP_HEADER.encode() and first != b"":
        return "%s exists and is not an experiment group (its first line is not \"%s\")" % (path, GROUP_HEADER)
    if not os.access(path, os.W_OK):
        return "permission denied: you cannot add to %s" % path
    return None
