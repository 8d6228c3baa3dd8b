"""The tree's dependencies point one way (issue 26): no call circle between
the files of any binary we build, and no include circle between headers.

Calls: each object file's defined and undefined symbols (nm), per target.
A file that uses a function or variable another file of the same binary
defines depends on it; a circle is a strongly connected group of two files
or more.  Every name counts but those the C library, libm, MPI and
OpenMP runtimes define (the runtime's wrappers of open, malloc,
MPI_Send) and the stack-walking libraries the runtime loads on demand
(libdw, libelf, libunwind: its forwarders of theirs): a list of prefixes (col_, er_, sampler_, ...) missed offcpu_,
descendants_, blocked_ and sampling_.
Includes: every "..." include of the project's headers, resolved as the
build resolves them."""

import glob
import os
import re
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("GDBCOL_BUILD", os.path.join(SOURCE, "build"))
failures = []


def system_names():
    """The names the C library, the MPI and OpenMP runtimes and the
    stack-walking libraries define: the runtime's wrappers of theirs (open,
    malloc, MPI_Send) and its forwarders to the libraries it loads on
    demand (inprocess/unwind_libraries.c: dwarf_begin_elf, unw_step) are
    not dependencies between our files."""
    names = set()
    libs = "/usr/lib/x86_64-linux-gnu/"
    for lib in ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libm.so.6"] + \
            glob.glob(libs + "libmpi*.so*") + glob.glob(libs + "libgomp.so*") + \
            glob.glob(libs + "libdw.so.*") + glob.glob(libs + "libelf.so.*") + glob.glob(libs + "libunwind*.so.*"):
        out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout
        names.update(line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip())
    return names


SYSTEM_NAMES = system_names()


def circles(edges):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def symbols(obj):
    defined, used = set(), set()
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVWC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def target_objects(target_dir):
    """The objects the target is linked from now (its link.txt): a build
    tree keeps the objects of files since renamed or removed."""
    link = os.path.join(target_dir, "link.txt")
    if not os.path.exists(link):
        return []
    # link.txt runs in the target's build folder: CMakeFiles/NAME.dir/... .o
    base = os.path.dirname(os.path.dirname(target_dir))
    words = open(link).read().split()
    return sorted(os.path.join(base, w) for w in words if w.endswith(".o") and os.path.exists(os.path.join(base, w)))


def check_target(target_dir):
    objects = target_objects(target_dir)
    if len(objects) < 2:
        return 0
    table = {o: symbols(o) for o in objects}
    owner = {}
    for o, (defined, _) in table.items():
        for s in defined:
            owner.setdefault(s, o)
    edges = {o: set() for o in objects}
    why = {}
    for o, (_, used) in table.items():
        for s in used:
            d = owner.get(s)
            if d is not None and d != o and s not in SYSTEM_NAMES:
                edges[o].add(d)
                why.setdefault((o, d), []).append(s)
    name = lambda p: os.path.relpath(p, target_dir).replace(".c.o", ".c")
    for group in circles(edges):
        failures.append("%s: call circle between %s (%s)" % (
            os.path.basename(target_dir), ", ".join(name(g) for g in group),
            "; ".join("%s -> %s: %s" % (name(a), name(b), ", ".join(sorted(why[(a, b)])[:3]))
                      for a in group for b in group if (a, b) in why)))
    return len(objects)


targets = sorted(glob.glob(os.path.join(BUILD, "**", "CMakeFiles", "*.dir"), recursive=True))
targets = [t for t in targets if "/tests/" not in t]
checked = sum(1 for t in targets if check_target(t) > 0)
if checked == 0:
    print("no object files under %s: build first" % BUILD)
    sys.exit(1)

HEADER_DIRS = ["libcollector", "libcollector/interpose", "libcollector/sampler", "libcollector/shared",
               "experiment/include", "experiment", "runtime-attach"]
headers = [os.path.normpath(h) for d in ("libcollector", "experiment", "runtime-attach", "gdb-plugin")
           for h in glob.glob(os.path.join(SOURCE, d, "**", "*.h"), recursive=True)]
includes = {}
for h in headers:
    includes[h] = set()
    for inc in re.findall(r'#include "([^"]+)"', open(h, errors="replace").read()):
        for d in [os.path.dirname(h)] + [os.path.join(SOURCE, x) for x in HEADER_DIRS]:
            p = os.path.normpath(os.path.join(d, inc))
            if os.path.exists(p):
                includes[h].add(p)
                break
for h in includes:
    includes[h] &= set(includes)
for group in circles(includes):
    failures.append("include circle: " + ", ".join(os.path.relpath(g, SOURCE) for g in group))

# libcollector/README.md: core/, shared/ and unwind/ (linked into both the
# runtime and the sampler process) include nothing from the folders of one
# binary alone, and call nothing those define.
SHARED_DIRS = ("core", "shared", "unwind")
ONE_BINARY_DIRS = ("runtime", "inprocess", "interpose", "sampler")
lib = os.path.join(SOURCE, "libcollector")
for d in SHARED_DIRS:
    for f in sorted(glob.glob(os.path.join(lib, d, "*.[ch]"))):
        for inc in re.findall(r'#include "([^"]+)"', open(f, errors="replace").read()):
            for base in [os.path.dirname(f), lib] + [os.path.join(lib, x) for x in ("shared", "interpose", "sampler")]:
                target = os.path.normpath(os.path.join(base, inc))
                if os.path.exists(target):
                    where = os.path.relpath(target, lib).split(os.sep)[0]
                    if where in ONE_BINARY_DIRS:
                        failures.append("%s includes %s: libcollector/README.md keeps %s/ free of %s/"
                                        % (os.path.relpath(f, SOURCE), inc, d, where))
                    break
for target_dir in targets:
    objects = target_objects(target_dir)
    folder = lambda o: os.path.relpath(o, target_dir).split(os.sep)[0]
    table = {o: symbols(o) for o in objects}
    owner = {}
    for o, (defined, _) in table.items():
        for sym in defined:
            owner.setdefault(sym, o)
    for o, (_, used) in table.items():
        if folder(o) not in SHARED_DIRS:
            continue
        for sym in sorted(used):
            d = owner.get(sym)
            if d is not None and folder(d) in ONE_BINARY_DIRS and sym not in SYSTEM_NAMES:
                failures.append("%s: %s calls %s, defined in %s (libcollector/README.md: the folders both binaries "
                                "link call nothing one binary defines)" % (os.path.basename(target_dir),
                                os.path.relpath(o, target_dir), sym, os.path.relpath(d, target_dir)))

print("%d binaries' objects and %d headers checked" % (checked, len(headers)))
for f in failures:
    print("FAILED: " + f)
sys.exit(1 if failures else 0)
