"""Settings of the data kinds beyond clock profiling.  Counter profiling
(the kernel's software counters; hardware ones where a PMU exists),
synchronization-wait, I/O and heap tracing record; MPI tracing and
thread-analyzer data have their whole documented syntax accepted and
checked, appear in `collector show`, and turning one on is refused with a
plain error, never a silent no-op."""

import os

import gdb

from . import elf_symbols, native, values
from .settings import counters_problem, default_counters, describe_tha
from .commands import _Subcommand
from .text import say

MAX_THRESHOLD_US = 2147483647

NOT_YET = ("%s is not implemented in this version of gdb-collector; nothing was changed. "
           "Clock profiling (collector profile) is what it records today.")


def _pmu_note():
    if os.path.isdir("/sys/bus/event_source/devices/cpu"):
        return "This machine exposes a hardware PMU (/sys/bus/event_source/devices/cpu)."
    return ("This machine exposes no hardware PMU (no /sys/bus/event_source/devices/cpu; "
            "usual in virtual machines).")


class _DataKindCommand(_Subcommand):
    """Shared shape: parse, refuse "on" plainly, else store and report."""

    what = None  # "Heap tracing", ...
    usage = None

    def words(self, arg):
        words = gdb.string_to_argv(arg)
        if not words:
            raise gdb.GdbError("Missing argument. Usage: %s." % self.usage)
        return words

    def bad(self, arg):
        raise gdb.GdbError('Invalid argument "%s". Usage: %s.' % (arg.strip(), self.usage))

    def refuse(self):
        raise gdb.GdbError("collector %s: %s" % (self.name, NOT_YET % self.what))

    def on_or_off(self, words, arg, attribute):
        """Handles "on" (refused) and "off"; False for anything else."""
        if words == ["on"]:
            self.refuse()
        if words != ["off"]:
            return False
        self.store(arg, attribute, False, "%s: off." % self.what)
        return True

    def store(self, arg, attribute, value, message):
        if self.change_setting("collector %s %s" % (self.name, arg.strip()),
                               lambda: setattr(self.state.settings, attribute, value)):
            say(message + "\n")


def _counter_list(usage):
    """`collector hwprofile list`: what this machine offers, in the manual's
    two lists (the well-known aliased names, then the counters themselves),
    one a line: name,default_interval (`description', alias for NAME; units)."""
    events = native.hwc_events()
    lines = ["%s" % _pmu_note()]

    def line(name, alias_of, hardware, interval, description):
        units = "nanoseconds" if name.endswith("-clock") else "events"
        where = "hardware" if hardware else "kernel software counter"
        alias = ", alias for %s" % alias_of if alias_of else ""
        return "  %s,%d (`%s'%s; %s; %s)" % (name, interval, description, alias, where, units)

    lines.append("Aliases for common counters:")
    lines += [line(*e) for e in events if e[1]]
    lines.append("Counters:")
    lines += [line(*e) for e in events if not e[1]]
    lines.append("Hardware counters by PAPI preset or libpfm4 name (%s):" % native.hwc_sources())
    presets = native.hwc_presets()
    lines += ["  %s,on (`%s'; PAPI preset; events)" % preset for preset in presets]
    if not presets:
        lines.append("  (no PAPI preset can be sampled here)")
    lines.append("  Any event libpfm4 knows for this machine's PMUs is accepted by its name, PMU::EVENT[:UMASK...] "
                 "(papi_native_avail lists them), e.g. perf::PERF_COUNT_SW_CONTEXT_SWITCHES")
    lines.append("Default counters: %s" % default_counters())
    lines.append("Usage: %s" % usage)
    return "\n".join(lines) + "\n"



class HwprofileCommand(_DataKindCommand):
    """Counter overflow profiling: a sample with its call stack every
INTERVAL events of each counter (gprofng shows one metric per counter,
-metrics e.page-faults:i.page-faults).  The kernel's software counters
(page faults, context switches, ...) work in virtual machines too;
hardware counters (cycles, insts, ...) where the kernel exposes a PMU.
For an ordinary user kernel.perf_event_paranoid decides: at 2 only events
counted in user mode (context switches and migrations, which happen in the
kernel, are refused rather than counted as 0), at 3 or more none.

Usage: collector hwprofile on|off
       collector hwprofile list
       collector hwprofile counter DEF[,DEF...]

DEF is [+]NAME[~ATTR=VALUE]...[/REGISTER] optionally followed by an
interval: on (default rate), hi (about 10x more often), lo (about 10x less
often) or a number (decimal or 0x hex).  Definitions and intervals are
separated by commas or single spaces: collector hwprofile counter cycles,on,insts
"+" (backtracking to the memory-referencing instruction), /REGISTER (a
counter register) and ~ATTR=VALUE (a counter attribute) are dbx's syntax;
this version programs none of them and refuses them when typed.

Without a counter list, "on" counts the defaults (collector hwprofile list
says which).  Counters asked for without "collector profile" turn clock
profiling off for that experiment, as in dbx; "collector profile on" (or a
timer setting) keeps it beside the counters."""

    name = "hwprofile"
    what = "Hardware-counter overflow profiling"
    usage = "collector hwprofile on|off, collector hwprofile list, or collector hwprofile counter DEF[,DEF...]"

    def invoke(self, arg, from_tty):
        words = self.words(arg)
        if words == ["on"]:
            counters = self.state.settings.hwc_counters or default_counters()
            self.check_access(counters)
            self.store(arg, "hwprofile", True, "Counter overflow profiling: on, counters %s." % counters)
            return
        if words == ["off"]:
            self.store(arg, "hwprofile", False, "Counter overflow profiling: off.")
            return
        if words == ["list"]:
            say(_counter_list(self.usage))
        elif words[0] == "counter" and len(words) > 1:
            text = arg.strip()[len("counter"):].strip()
            try:
                canonical = native.parse_counters(text)
            except native.MachineLacks as lack:
                # A limit of this machine, not a mistake: said, and the rest
                # of a script goes on (an error would stop it).
                say("collector hwprofile counter: %s. Nothing was changed.\n" % lack)
                return
            except ValueError as error:
                raise gdb.GdbError("collector hwprofile counter: %s" % error)
            problem = counters_problem(canonical)  # refused when typed, not at enable
            if problem:
                raise gdb.GdbError("collector hwprofile counter: %s. Nothing was changed." % problem)
            self.check_access(canonical)
            # (dbx's `counter` sets the counters; `hwprofile on` records them)
            off = "" if self.state.settings.hwprofile else (
                " Counter overflow profiling is off: \"collector hwprofile on\" records them.")
            self.store(arg, "hwc_counters", canonical, "Counters: %s.%s" % (canonical, off))
        else:
            self.bad(arg)

    def check_access(self, counters):
        """Refuses counters this user cannot count here (perf events closed
        to them, or kernel-only events where only user mode is allowed):
        never an experiment that silently counts 0."""
        problem = native.hwc_check_access(counters)
        if problem:
            raise gdb.GdbError("collector hwprofile: %s." % problem)

    def complete(self, text, word):
        return [w for w in ("on", "off", "list", "counter") if w.startswith(word or "")]


class SynctraceCommand(_DataKindCommand):
    """Synchronization-wait tracing: how long threads wait in mutexes,
condition variables, read-write locks, barriers, joins and semaphores, and
where (gprofng: -metrics e.sync:i.sync:e.syncn).  At launch and after
gdb -p.

Usage: collector synctrace on|off
       collector synctrace threshold calibrate|on|off|MICROSECONDS

threshold calibrate (or on, the default): 6 times the measured cost of a
lock that does not wait; off: no tracing; a number: waits of at least that
many microseconds, 0 for every wait."""

    name = "synctrace"
    what = "Synchronization-wait tracing"
    usage = "collector synctrace on|off, or collector synctrace threshold calibrate|on|off|MICROSECONDS"

    def invoke(self, arg, from_tty):
        words = self.words(arg)
        if words == ["on"]:
            self.store(arg, "synctrace", True, "Synchronization-wait tracing: on, threshold %s."
                       % self._threshold_text())
            return
        if self.on_or_off(words, arg, "synctrace"):
            return
        if len(words) == 2 and words[0] == "threshold":
            value = words[1]
            if value == "off":
                self.store(arg, "synctrace", False, "Synchronization-wait tracing: off.")
            elif value in ("calibrate", "on"):
                self.store(arg, "synctrace_threshold", "calibrate", "Synchronization-wait threshold: calibrate.")
            else:
                try:
                    micros = values.whole_number(value, 0, MAX_THRESHOLD_US, "The threshold in microseconds", "100")
                except ValueError as error:
                    raise gdb.GdbError("collector synctrace threshold: %s; or calibrate, on, off "
                                       "(0 traces every wait)." % error)
                self.store(arg, "synctrace_threshold", micros, "Synchronization-wait threshold: %d microseconds." % micros)
        else:
            self.bad(arg)

    def _threshold_text(self):
        value = self.state.settings.synctrace_threshold
        return "%d microseconds" % value if isinstance(value, int) else value

    def complete(self, text, word):
        words = text.split()
        if words and words[0] == "threshold":
            return [w for w in ("calibrate", "on", "off") if w.startswith(word or "")]
        return [w for w in ("on", "off", "threshold") if w.startswith(word or "")]


class _TracedKindCommand(_DataKindCommand):
    """A traced kind turned on or off, nothing more to set."""

    attribute = None

    def invoke(self, arg, from_tty):
        words = self.words(arg)
        if words in (["on"], ["off"]):
            on = words == ["on"]
            self.store(arg, self.attribute, on, "%s: %s." % (self.what, "on" if on else "off"))
        else:
            self.bad(arg)

    def complete(self, text, word):
        return [w for w in ("on", "off") if w.startswith(word or "")]


class IotraceCommand(_TracedKindCommand):
    """I/O tracing: every open, close, read, write (plain, positioned,
vectored, stdio), dup, pipe, socket, send/recv, sendfile, copy_file_range
and sync call, with its bytes, time, file and where it was made
(gprofng: -ioactivity, -iocallstack, -metrics e.iotime:e.ioreadbytes...).
At launch and after gdb -p.

Usage: collector iotrace on|off"""

    name = "iotrace"
    what = "I/O tracing"
    usage = "collector iotrace on|off"

    attribute = "iotrace"


class _OnOffKind(_DataKindCommand):
    attribute = None

    def invoke(self, arg, from_tty):
        if not self.on_or_off(self.words(arg), arg, self.attribute):
            self.bad(arg)

    def complete(self, text, word):
        return [w for w in ("on", "off") if w.startswith(word or "")]


class HeaptraceCommand(_TracedKindCommand):
    """Heap tracing: every malloc, calloc, realloc (old and new block),
reallocarray, free, posix_memalign, aligned_alloc, memalign, valloc,
pvalloc, and anonymous mmap/munmap, with its size and where it was made;
what is still allocated when the experiment ends is a leak, with its call
stack (gprofng: -leaks, -allocs, -metrics e.heapalloccnt:e.heapallocbytes:
e.heapleakbytes).  At launch and after gdb -p.

Usage: collector heaptrace on|off"""

    name = "heaptrace"
    what = "Heap tracing"
    usage = "collector heaptrace on|off"

    attribute = "heaptrace"


class MpitraceCommand(_TracedKindCommand):
    """MPI tracing: every MPI call of a rank (Oracle's list: sends,
receives, persistent requests, waits and tests, collectives, MPI-IO,
one-sided, communicators, groups, datatypes...), with its time,
peer rank, tag, communicator, the messages it sent or received and their
bytes, and where it was made.  Each rank of a job launched under GDB (gdb
--args mpirun ...) is recorded in M_r<rank>.er inside the job's
experiment.  gprofng 2.40 has no MPI views: it shows sends as writes,
receives as reads and other MPI calls as other I/O, one "file" per peer
(gprofng: -ioactivity, -iocallstack, -filters 'MPIPEER==1'); collector
report mpi shows the MPI view.  MPI_Pcontrol(0) pauses and
MPI_Pcontrol(1) resumes the experiment.  Open MPI and MPICH (and the
libraries of MPICH's ABI); at launch and after gdb -p.

Usage: collector mpitrace on|off"""

    name = "mpitrace"
    what = "MPI tracing"
    usage = "collector mpitrace on|off"

    attribute = "mpitrace"


THA_CHOICES = ("race", "deadlock", "stop")


def _thread_sanitizer_linkage(path):
    """How the program file PATH uses ThreadSanitizer: 'shared' (GCC's
    -fsanitize=thread, clang's with -shared-libsan: the runtime is a shared
    library, whose report hook the collector takes), 'inside' (clang's
    default, gcc -static-libtsan: the runtime is part of the program and
    calls its hook directly), 'none', or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            mentioned = b"__tsan_init" in f.read()
    except OSError:
        return None
    if not mentioned:
        return "none"
    linkage = elf_symbols.dynamic_symbol(path, "__tsan_init")
    if linkage is None:
        return None
    return "shared" if linkage == "imported" else "inside"


class ThaCommand(_DataKindCommand):
    """Thread Analyzer data: data races and deadlocks.

Usage: collector tha on|all|off|race|deadlock|race,deadlock[,stop]
  on, race       data races, in programs built with -fsanitize=thread
  deadlock       deadlocks, in any program
  all            both
  ...,stop       with race: GDB stops the program at each data race

race: each data race ThreadSanitizer finds goes into the experiment, both
accesses (thread, read or write, size, address, the access's stack) and
the location (a global or a heap block): collector report races.  The
program must be built with -fsanitize=thread (GCC, which links
ThreadSanitizer's runtime, libtsan); for a program without it the command
refuses and says how to build it.

deadlock: every mutex, read-write lock and spin lock a thread takes while
it holds another is a lock order, recorded once per pair with the stack
where it was taken and where the lock held had been, at launch and after
gdb -p, in every thread and descendant.  Two orders that make a cycle
(one thread takes A then B, another B then A) are a potential deadlock,
whether or not it happened in this run.  A deadlock that happens is found
while it does: the program stops in GDB, which prints the threads, the
locks and the stacks; without GDB it is recorded.  collector report
deadlocks.  gprofng shows each lock order and race access as a
synchronization event of no length (-filters 'DTYPE==0', 'RID==1')."""

    name = "tha"
    what = "Thread-analyzer data"
    usage = "collector tha on|all|off|race|deadlock|race,deadlock[,stop]"

    def invoke(self, arg, from_tty):
        words = self.words(arg)
        if len(words) != 1:
            self.bad(arg)
        value = words[0]
        if value == "off":
            self.store(arg, "tha", "off", "Thread-analyzer data: off.")
            return
        options = value.split(",")
        if value not in ("on", "all") and not (options and all(o in THA_CHOICES for o in options)):
            self.bad(arg)
        race = value in ("on", "all") or "race" in options
        deadlock = value == "all" or "deadlock" in options
        stop = "stop" in options
        if stop and not race:
            raise gdb.GdbError("collector tha %s: stop goes with race (stop at each data race: collector tha "
                               "race,stop); a deadlock always stops the program in GDB. Nothing was changed." % value)
        program = gdb.current_progspace().filename
        linkage = _thread_sanitizer_linkage(program) if race and program else None
        if linkage == "none":
            raise gdb.GdbError("collector tha %s: %s is not built for race detection (it does not use "
                               "ThreadSanitizer); build it with gcc -fsanitize=thread -g, then run it again. "
                               "Deadlock detection needs nothing: collector tha deadlock. Nothing was changed."
                               % (value, program))
        if linkage == "inside":
            raise gdb.GdbError("collector tha %s: %s carries ThreadSanitizer's runtime inside it (clang's "
                               "default, or gcc -static-libtsan), which hands its reports to no one else; build "
                               "it with gcc -fsanitize=thread -g (without -static-libtsan), whose runtime is a "
                               "shared library. "
                               "Deadlock detection needs nothing: collector tha deadlock. Nothing was changed."
                               % (value, program))
        setting = ",".join([o for o, on in (("race", race), ("deadlock", deadlock), ("stop", stop)) if on])
        self.store(arg, "tha", setting, "Thread-analyzer data: %s." % describe_tha(setting))

    def complete(self, text, word):
        return [w for w in ("on", "all", "off", "race", "deadlock") if w.startswith(word or "")]


DATA_KIND_SUBCOMMANDS = (HwprofileCommand, SynctraceCommand, IotraceCommand, HeaptraceCommand, MpitraceCommand, ThaCommand)
