"""What the recording path may call (issue 26): the recorder every tracing
wrapper goes through (col_trace_here, col_trace_record, and the lanes and
ring it writes)
and the in-process timer's signal handler (on_timer_signal) run inside the
program's own calls and signal handlers, so they must never allocate, lock
or call anything that is not async-signal-safe.

Checked on the built libcollector.so, not on the sources: its disassembly
gives every direct call and tail call of every function (static ones
too), from which the functions reachable from those roots are found.  Each
call into another library (through the PLT) must be to a function of the
list below (POSIX's async-signal-safe functions this path needs, and the
memory functions that touch only their arguments); an indirect call, whose
target the disassembly cannot name, fails too, but for the few whose
target is known by construction (KNOWN_INDIRECT).  A failure prints the
chain of calls from the root."""

import os
import re
import subprocess
import sys

BUILD = os.environ.get("GDBCOL_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
RUNTIME = os.path.join(BUILD, "libcollector", "libcollector.so")
ROOTS = ("col_trace_here", "col_trace_record", "on_timer_signal")
ALLOWED = {
    "__errno_location", "__stack_chk_fail", "clock_gettime", "close", "getpid", "gettid", "kill", "memchr",
    "memcpy", "memmove", "memset", "open", "openat", "read", "sched_getcpu", "syscall", "tgkill", "write",
}

# Functions whose one indirect call has a target known by construction:
# the runtime's own clock_gettime calls libc's own (the vDSO's), looked up
# in libc at the start so that no sanitizer's interceptor is entered
# (interpose/own_calls.c).
KNOWN_INDIRECT = {"clock_gettime": "libc's clock_gettime"}

if not os.path.exists(RUNTIME):
    print("no runtime at %s: build first" % RUNTIME)
    sys.exit(1)
text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", RUNTIME], capture_output=True, text=True,
                      check=True).stdout
calls, indirect, current = {}, set(), None
for line in text.splitlines():
    m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
    if m:
        current = m.group(1)
        calls.setdefault(current, set())
        continue
    if current is None:
        continue
    m = re.search(r"\s(call|jmp)\s+[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>", line)
    if m:
        if not (m.group(1) == "jmp" and m.group(3)):  # a jump inside a function is not a call
            calls[current].add(m.group(2))
    elif re.search(r"\s(call|jmp)\s+\*", line) and not current.endswith("@plt") and "<.plt" not in current:
        indirect.add(current)

failures = []
missing = [r for r in ROOTS if r not in calls]
if missing:
    failures.append("the roots %s are not in %s (renamed? this test must follow)" % (missing, RUNTIME))
parent, seen, stack = {}, set(), [r for r in ROOTS if r in calls]
while stack:
    f = stack.pop()
    if f in seen:
        continue
    seen.add(f)
    for g in sorted(calls.get(f, ())):
        if g not in seen:
            parent.setdefault(g, f)
            stack.append(g)


def chain(f):
    path = [f]
    while path[-1] in parent:
        path.append(parent[path[-1]])
    return " <- ".join(path)


external = sorted(f for f in seen if f.endswith("@plt"))
for f in external:
    name = re.sub(r"@.*$", "", f)
    if name not in ALLOWED:
        failures.append("calls %s: %s" % (name, chain(f)))
for f in sorted(seen & indirect - set(KNOWN_INDIRECT)):
    failures.append("an indirect call (target unknown) in %s" % chain(f))
print("%d functions reachable from %s; calls out: %s" % (len(seen), ", ".join(ROOTS),
                                                         ", ".join(re.sub(r"@.*$", "", f) for f in external)))
for f in failures:
    print("FAILED: " + f)
sys.exit(1 if failures else 0)
