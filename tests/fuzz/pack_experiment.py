"""Packs an experiment directory into one fuzz input for fuzz_reader: each
file introduced by "\n@@@ NAME\n", NAME its path relative to the
experiment (log.xml, map.xml, data.frameinfo, each data kind's file,
overview, archive.log, archives/COPY, _f1.er/log.xml, ... every file it
holds), and a group file (.erg) when one is given.
    pack_experiment.py EXPERIMENT.er OUTPUT [GROUP.erg]
Archive copies larger than MAX_COPY are left out (libc's: it is on this
machine anyway, and a fuzz input that large is slow to mutate)."""

import os
import sys

MAX_COPY = 64 * 1024


def files_of(experiment):
    """Every regular file under EXPERIMENT, relative, in a stable order."""
    found = []
    for root, dirs, files in os.walk(experiment):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, experiment)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            if rel.split(os.sep)[0] == "archives" and os.path.getsize(path) > MAX_COPY:
                continue
            found.append(rel)
    # The XML first: what the reader reads first.
    first = ("log.xml", "map.xml", "data.frameinfo")
    return sorted(found, key=lambda rel: (rel.count(os.sep), first.index(rel) if rel in first else len(first), rel))


def pack(experiment, output, group=None):
    with open(output, "wb") as out:
        for rel in files_of(experiment):
            with open(os.path.join(experiment, rel), "rb") as f:
                out.write(b"\n@@@ " + rel.encode() + b"\n" + f.read())
        if group is not None:
            with open(group, "rb") as f:
                out.write(b"\n@@@ " + os.path.basename(group).encode() + b"\n" + f.read())


if __name__ == "__main__":
    pack(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
