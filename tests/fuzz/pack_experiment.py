"""Packs an experiment directory into one fuzz input for fuzz_reader: each
file introduced by "\n@@@ NAME\n".
    pack_experiment.py EXPERIMENT.er OUTPUT"""

import os
import sys

NAMES = ("log.xml", "map.xml", "data.frameinfo", "profile", "overview")


def pack(experiment, output):
    with open(output, "wb") as out:
        for name in NAMES:
            path = os.path.join(experiment, name)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    out.write(b"\n@@@ " + name.encode() + b"\n" + f.read())


if __name__ == "__main__":
    pack(sys.argv[1], sys.argv[2])
