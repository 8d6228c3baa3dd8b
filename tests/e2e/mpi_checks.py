"""What the MPI tests read from a job: the truths the ranks printed, the
per-peer and per-function figures of our reader (er-dump), gprofng's
per-channel bytes."""

import re
import subprocess


def truths(out):
    """{rank: {peer: (sends, sbytes, receives, rbytes)}} as the ranks printed them."""
    found = {}
    for m in re.finditer(r"^truth rank=(\d+) peer=(\d+) sends=(\d+) sbytes=(\d+) receives=(\d+) rbytes=(\d+)$", out,
                         re.M):
        found.setdefault(int(m.group(1)), {})[int(m.group(2))] = tuple(int(v) for v in m.groups()[2:])
    return found


def reader_peers(raw):
    peers = {}
    for m in re.finditer(r"^mpi_peer (\d+): sends (\d+) sbytes (\d+) receives (\d+) rbytes (\d+)$", raw, re.M):
        peers[int(m.group(1))] = tuple(int(v) for v in m.groups()[1:])
    return peers


def reader_function(raw, name):
    m = re.search(r"^mpi_function %s: calls (\d+) " % name, raw, re.M)
    return int(m.group(1)) if m else 0


def gprofng_channels(path):
    """{channel name: (read bytes, write bytes)} from gprofng's -ioactivity."""
    out = subprocess.run(["gprofng", "display", "text", "-metrics", "e.ioreadbytes:e.iowritebytes", "-ioactivity",
                          path], capture_output=True, text=True, timeout=120)
    text = out.stdout + out.stderr
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(MPI rank .*?)\s*$", line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return rows, text
