"""What /proc says about a process, for the plugin's messages and checks."""


def proc_status(pid):
    """/proc/PID/status as a dict ({} when the process is gone)."""
    fields = {}
    try:
        with open("/proc/%s/status" % pid, errors="surrogateescape") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
    except OSError:
        pass
    return fields


def process_alive(pid):
    """True when PID exists and has not exited (a zombie has)."""
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def mapped_files(pid):
    """The files PID maps (real paths, as /proc/PID/maps names them)."""
    files = set()
    try:
        with open("/proc/%s/maps" % pid, errors="surrogateescape") as f:
            for line in f:
                fields = line.split(None, 5)
                if len(fields) == 6 and fields[5].startswith("/"):
                    files.add(fields[5].rstrip("\n"))
    except OSError:
        pass
    return files


def mapping_around(pid, address):
    """(start, end) of PID's mapping that holds ADDRESS, or None."""
    try:
        with open("/proc/%s/maps" % pid, "rb") as f:
            for line in f:
                start, _, end = line.split(None, 1)[0].partition(b"-")
                if int(start, 16) <= address < int(end, 16):
                    return int(start, 16), int(end, 16)
    except (OSError, ValueError):
        pass
    return None
