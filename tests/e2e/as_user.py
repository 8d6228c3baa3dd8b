"""Runs a command as an ordinary user (nobody) with the checkout reachable,
wherever it lies: `as_user.py [--root] PATH... -- COMMAND...`, run as root
inside a private mount namespace (unshare -m); --root keeps root (a daemon
that starts an ordinary user's commands: Slurm's slurmd).

A checkout under /root, or in a home of mode 700, cannot be reached by
another user, and the build tree names its files by absolute paths (the
generated collector.gdb, the test programs' arguments, cmake --install's
scripts).  So instead of copying the tree elsewhere, each directory on the
way to a PATH that others cannot traverse is covered, in this namespace
only, by an empty tmpfs of mode 755 holding bind mounts of the children on
the way: the user sees the same paths, and only them.  Nothing outside the
namespace changes; it ends with the command.  The command keeps this
process id (exec all the way), so tests can attach to it."""

import os
import subprocess
import sys
import tempfile

NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def blocked(path):
    return not os.stat(path).st_mode & 0o001


def ancestors(path):
    """PATH's directories from the top: /a, /a/b, ... PATH."""
    parts, out = path.strip("/").split("/"), []
    for i in range(1, len(parts) + 1):
        out.append("/" + "/".join(parts[:i]))
    return out


def mount(*args):
    subprocess.run(["mount"] + list(args), check=True, stdin=subprocess.DEVNULL)


def open_way(directory, targets):
    """Covers DIRECTORY with a tmpfs of mode 755 that holds, at the same
    names, bind mounts of its children on the way to TARGETS (all of them
    when DIRECTORY is a target: the checkout itself of mode 700)."""
    if directory in targets:
        children = sorted(os.listdir(directory))
    else:
        children = sorted({t[len(directory) + 1:].split("/")[0] for t in targets if t.startswith(directory + "/")})
    holds = []
    try:
        for child in children:
            path = os.path.join(directory, child)
            if os.path.islink(path):
                holds.append((child, None, os.readlink(path)))
                continue
            if os.path.isdir(path):
                hold = tempfile.mkdtemp(prefix="gdbcol-way-")
            else:
                fd, hold = tempfile.mkstemp(prefix="gdbcol-way-")
                os.close(fd)
            holds.append((child, hold, None))
            mount("--bind", path, hold)
        mount("-t", "tmpfs", "-o", "mode=755,size=64k", "tmpfs", directory)
        for child, hold, link in holds:
            inside = os.path.join(directory, child)
            if link is not None:
                os.symlink(link, inside)
            elif os.path.isdir(hold):
                os.mkdir(inside)
            else:
                open(inside, "w").close()
            if hold is not None:
                mount("--bind", hold, inside)
    finally:  # the holds were only the way across; none stays behind in /tmp
        for _, hold, _ in holds:
            if hold is not None:
                subprocess.run(["umount", "-l", hold], check=False, stderr=subprocess.DEVNULL)
                (os.rmdir if os.path.isdir(hold) else os.unlink)(hold)


def main(argv):
    as_root = argv[:1] == ["--root"]  # the way opened for a daemon that starts other users' commands
    argv = argv[1:] if as_root else argv
    split = argv.index("--")
    targets = [os.path.realpath(p) for p in argv[:split]]
    command = argv[split + 1:]
    for target in targets:
        for directory in ancestors(target):
            if blocked(directory):
                open_way(directory, targets)
    os.execvp(command[0], command) if as_root else os.execvp(NOBODY[0], NOBODY + command)


if __name__ == "__main__":
    main(sys.argv[1:])
