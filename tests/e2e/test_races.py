"""Data races (issue 29, `collector tha race`): race_counter.c, built with
-fsanitize=thread, adds to counter_racy from two threads with no lock and
to counter_locked under a mutex.  `collector report races` shows exactly
one race location, counter_racy by name (ThreadSanitizer may report it
more than once: GCC 14's does, as two races), each race with its two accesses (a read
and a write, 8 bytes, two threads) and their stacks in add_both; none for
counter_locked, and no mutex held at the accesses; gprofng reads the experiment (each access a
synchronization event of no length at its instruction: Sync Wait Count 2,
RID filterable).  A program built without it: `collector tha race` is
refused, saying how to build it, and nothing changes; so is a program
that carries ThreadSanitizer's runtime inside it (clang's default), whose
reports reach no hook.  A race on a heap block (race_counter heap) is
located in the block, with the stack that allocated it.  With `collector
tha race,stop` the program stops in GDB at the race, which GDB names."""

import os
import re
import subprocess

from harness import SOURCE, check, check_gprofng_sync_events, cleanup, finish, program, run_gdb, skip_part, workdir

work = workdir()


def built_race_counter(compiler, name, what):
    """race_counter.c built by COMPILER with -fsanitize=thread as NAME in
    the work directory, or None (WHAT, with the compiler's reason, listed
    as a skipped part)."""
    path = os.path.join(work, name)
    built = subprocess.run([compiler, "-O1", "-g", "-fsanitize=thread", "-o", path,
                            os.path.join(SOURCE, "tests", "programs", "race_counter.c")], capture_output=True,
                           text=True)
    if built.returncode == 0:
        return path
    skip_part(what + ": " + (built.stderr.strip().splitlines() or ["?"])[-1])
    return None


RACY = built_race_counter("gcc", "race_counter", "data races of a program built with -fsanitize=thread (gcc cannot "
                          "build one here: install libtsan2)")
if RACY is not None:
    out = run_gdb(["collector tha race", "collector enable", "run", "collector report races"], [RACY], work,
                  env={"TSAN_OPTIONS": "exitcode=0"})
    print(out)
    # ThreadSanitizer may report the one racy location more than once (GCC
    # 14's pairs the read with a write and the write with a write): one
    # location, each race with its two accesses.
    races = re.findall(r"^Race (\d+) at (\S+) ", out, re.M)
    n = len(races)
    check("locked 20000" in out and "%d data race records" % (2 * n) in out,
          "the program ran; GDB's closing line counts the races' accesses, two each (%d race(s))" % n)
    check(n >= 1 and all(place == "counter_racy" for _, place in races) and
          "counter_locked" not in out.split("Race 1", 1)[-1],
          "exactly one race location, counter_racy by name; none for counter_locked (%s)" % races)
    # (which two of the racing read and writes ThreadSanitizer pairs is its
    # choice: a read and a write, or two writes in a CI run)
    accesses = re.findall(r"a (read|write) of 8 byte\(s\) by thread \d+.*\n.*where: add_both <- worker", out)
    check(len(accesses) >= 2 and "write" in accesses,
          "its two accesses of 8 bytes, a write among them, each with its stack in add_both (%s)" % accesses)
    check("%d data race(s) at 1 location(s)" % n in out and "no mutex held by either thread" in out,
          "the summary: one location; no mutex held at the racing accesses")
    check_gprofng_sync_events(os.path.join(work, "test.1.er"), 2 * n, "add_both", "RID>=1", "races' accesses")
    # ThreadSanitizer's own report: the racing threads were created by
    # main, at its line (our pthread_create wrapper stands between them)
    created = re.findall(r"created by main thread at:\n((?:    #\d+ .*\n)+)", out)
    check(created and all(re.search(r"#\d+ main \S*race_counter\.c:\d+", c) for c in created),
          "ThreadSanitizer's report: the threads created by main at its line (%s)" % created[:1])
    # A heap block: the location is the block, with the stack that
    # allocated it; gprofng reads the allocation as one more event.
    out = run_gdb(["collector tha race", "collector enable", "run", "collector report races"], [RACY, "heap"], work,
                  env={"TSAN_OPTIONS": "exitcode=0"})
    print(out)
    races = re.findall(r"^Race (\d+) at 0x([0-9a-f]+) in a heap block of 16 bytes \(0x([0-9a-f]+)\+8\):", out, re.M)
    n = len(races)
    check(n >= 1 and all(int(a, 16) == int(b, 16) + 8 for _, a, b in races) and
          "%d data race(s) at 1 location(s)" % n in out and "counter_racy" not in out,
          "heap: one location, the 16-byte block at offset 8 (%s)" % races)
    check(len(re.findall(r"the block allocated by thread 0\n    where: \S*calloc <- make_totals <- main", out)) == n,
          "heap: each race names the block's allocating stack (calloc <- make_totals <- main, thread 0)")
    check("%d data race records" % (3 * n) in out, "heap: two accesses and the allocation recorded per race")
    check_gprofng_sync_events(os.path.join(work, "test.2.er"), 3 * n, "add_both", "RID>=1",
                              "heap races' accesses and allocation", in_function=2 * n)
    # With stop: GDB stops the program at the race, says where, and the
    # script goes on.
    out = run_gdb(["collector tha race,stop", "collector enable", "run", "bt 3", "echo after-the-stop\\n", "kill"],
                  [RACY], work, env={"TSAN_OPTIONS": "exitcode=0"})
    print(out)
    check(re.search(r"collector: data race 1 on counter_racy \(0x[0-9a-f]+\): a (read|write) by thread T\d+ and a "
                    r"(read|write) by thread T\d+", out) is not None and "after-the-stop" in out and
          "locked 20000" not in out, "tha race,stop: GDB stops the program at the race, naming the variable")

plain = program("split_work")
out = run_gdb(["collector tha race", "collector show tha", "collector tha deadlock,stop", "echo still-running\\n"],
              [plain], work)
print(out)
check("is not built for race detection (it does not use ThreadSanitizer); build it with gcc -fsanitize=thread -g" in out
      and "Nothing was changed." in out and "Thread analyzer (tha):  off" in out and "still-running" in out,
      "a program built without -fsanitize=thread: tha race refused, saying how to build it; nothing changed")
check("stop goes with race" in out, "tha deadlock,stop: refused (stop goes with race)")

# ThreadSanitizer's runtime inside the program (clang's default): its
# reports reach no hook of ours, so the command says so rather than record
# nothing.
INSIDE = built_race_counter("clang", "race_counter_clang", "a program with ThreadSanitizer's runtime inside it "
                            "(clang cannot build one here)")
if INSIDE is not None:
    out = run_gdb(["collector tha race", "collector show tha"], [INSIDE], work)
    print(out)
    check("carries ThreadSanitizer's runtime inside it" in out and "gcc -fsanitize=thread -g" in out and
          "Nothing was changed." in out and "Thread analyzer (tha):  off" in out,
          "clang -fsanitize=thread (runtime inside the program): tha race refused, saying how to build it")
cleanup(work)
finish()
