"""`collector report`: where the time went, without leaving GDB.  GDB glue
only: gdbcol-report (experiment/tools/gdbcol_report.c) reads the experiment and
names the functions; this command picks the experiment (the one this
session recorded last, or the one named) and prints what it says."""

import os
import subprocess

import gdb

from . import outside
from .attach import live_pid
from .commands import _Subcommand, current_status
from .text import say

OPTIONS = ("metric", "limit", "mode")
FILE_VIEWS = ("flamegraph", "folded", "html")  # (a relative file is GDB's working directory's)
USAGE = ("collector report [EXPERIMENT.er] [functions | callers FUNC | callees FUNC | threads | processes | mpi | omp | "
         "deadlocks | races | states | "
         "flamegraph FILE.svg | folded FILE | html FILE.html | pprof FILE.pb.gz | firefox FILE.json] [metric NAME] [limit N] [mode user|machine] "
         "[noinline] [since last-stop | between N M]")
REPORT_TIMEOUT_S = 600


class ReportCommand(_Subcommand):
    """Show where the time (or the bytes, waits, a counter's events) went in an experiment.

Usage: collector report [EXPERIMENT.er] [VIEW] [metric NAME] [limit N] [mode user|machine] [noinline]
                        [since last-stop | between N M]

Without EXPERIMENT.er, the experiment this GDB session recorded last (the
running one as recorded so far).  VIEW is one of:
  functions          the functions by exclusive time, with inclusive time
                     and shares (the default)
  callers FUNC       the functions that call FUNC, with the time those
                     calls account for
  callees FUNC       the functions FUNC calls
  threads            each thread's share
  processes          the experiment and its descendants' experiments
                     (an MPI job's ranks too)
  mpi                MPI calls (collector mpitrace): per rank the time in
                     MPI and its share of the run (MPI %), messages and
                     bytes sent and received; per MPI function; and the
                     bytes each rank sent to each other
  omp                OpenMP (programs built with gcc -fopenmp): the time
                     in each state (work, serial, implicit and explicit
                     barriers, lock, critical, ordered, atomic and task
                     waits), OpenMP Work, Wait and Overhead, per parallel
                     region and per function
  races              data races (collector tha race, -fsanitize=thread):
                     each race's two accesses, their threads and stacks,
                     and the variable
  deadlocks          potential deadlocks (collector tha deadlock): each
                     cycle of lock orders once, with the threads, the
                     locks (named as their variables where the symbols
                     say) and where each was taken
  states             where each thread's wall-clock time went (collector
                     profile offcpu on): on a CPU, waiting for one, asleep,
                     in I/O, on a lock; per thread and per function
  flamegraph FILE.svg  an interactive flame graph (open it in a browser:
                     hover for a frame's share, click to zoom, Search)
  folded FILE        folded stacks, for FlameGraph, speedscope or inferno
  html FILE.html     a page with the function table and the flame graph
  pprof FILE.pb.gz   pprof's profile.proto, gzip-compressed, for pprof,
                     Pyroscope, Parca, Grafana: every metric the
                     experiment holds as a sample type (CPU, off-CPU time
                     by reason, counters, waits, I/O, allocations), the
                     load objects with their build ids
  firefox FILE.json  the Firefox Profiler's format (profiler.firefox.com):
                     a track per thread, CPU and off-CPU samples (its CPU
                     graph shows the waits idle), markers for sample
                     points, pauses, waits, I/O calls, allocations
metric: what the function table, callers, callees, threads, flame graph,
folded stacks and HTML page sum (a name the experiment lacks is refused
with the list of those it has):
  cpu                CPU time (clock profiling; the default)
  wall, offcpu       wall-clock time on and off the CPU, off-CPU time
                     (collector profile offcpu on); offcpu.waitcpu,
                     offcpu.sleep, offcpu.io, offcpu.lock, offcpu.blocked,
                     offcpu.stopped: off-CPU time for one reason
  sync               time waiting on locks, conditions, joins (synctrace)
  io, io.bytes       time in I/O calls, bytes read and written (iotrace)
  heap, heap.allocations, heap.leaks
                     bytes allocated, allocation calls, bytes never freed
                     (heaptrace), by the stacks that allocated them
  COUNTER            a counter's events (hwprofile), by its name
mode: how an OpenMP program's stacks are drawn, as gprofng's -viewmode:
user (the default) as its source shows them, without libgomp's frames,
each worker thread's under the call of its parallel region, each wait as
a frame of its own (<OMP-implicit_barrier>, <OMP-critical_section_wait>,
...); machine: the native stacks, libgomp's frames included.
since last-stop: only what the program did since GDB's previous stop (at
a breakpoint, the cost of the `continue` that reached it): each GDB stop
is a sample point (collector dbxsample, on by default).
between N M: only what ran between sample points N and M, as log.xml
numbers them (0: the experiment's start; M may be end); gprofng's
samples N+1 to M are the same span.
Functions the debug info says are inlined show as frames of their own,
as perf shows them; noinline leaves them out, as gprofng does.
Function names come from the load objects' symbol tables and their
separate debug info (install libc6-dbg for the C library's internal names)."""

    name = "report"

    def __init__(self, state, report_path):
        super().__init__(state)
        self.report_path = report_path
        self._views = None

    def views(self):
        """(views alone, views that take a value): gdbcol-report's own table
        of views (--list-views), read once."""
        if self._views is None:
            try:
                listed = subprocess.run([self.report_path, "--list-views"], capture_output=True, text=True,
                                        timeout=30, stdin=subprocess.DEVNULL).stdout.split("\n")
            except (OSError, subprocess.TimeoutExpired) as e:
                raise gdb.GdbError("collector report: the report could not run (%s)." % e)
            pairs = [line.split() for line in listed if len(line.split()) == 2]
            self._views = (tuple(n for n, v in pairs if v == "-"), tuple(n for n, v in pairs if v != "-"))
        return self._views

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        views_alone, views_with_value = self.views()
        path, options, i, since_stop = None, [], 0, False
        while i < len(words):
            word = words[i]
            if word in views_with_value + OPTIONS:
                if i + 1 >= len(words):
                    raise gdb.GdbError("collector report %s: needs a %s.\nUsage: %s"
                                       % (word, "function name" if word in ("callers", "callees") else
                                          "file name" if word in views_with_value else "value", USAGE))
                value = words[i + 1]
                if word in FILE_VIEWS and value != "-":
                    value = os.path.abspath(os.path.expanduser(value))
                options += ["--" + word, value]
                i += 2
            elif word == "noinline":
                options.append("--no-inline")
                i += 1
            elif word == "since":
                if i + 1 >= len(words) or words[i + 1] != "last-stop":
                    raise gdb.GdbError("collector report since: takes last-stop (collector report since last-stop).\n"
                                       "Usage: %s" % USAGE)
                since_stop = True
                i += 2
            elif word == "between":
                if i + 2 >= len(words) or not words[i + 1].isdigit() or not (words[i + 2].isdigit() or
                                                                           words[i + 2] == "end"):
                    raise gdb.GdbError("collector report between: takes two sample points, N M (numbers as "
                                       "log.xml gives them, 0 for the experiment's start; M may be end).\n"
                                       "Usage: %s" % USAGE)
                options += ["--between", words[i + 1], words[i + 2]]
                i += 3
            elif word in views_alone:
                if word != "functions":
                    options.append("--" + word)
                i += 1
            elif path is None and (word.endswith(".er") or os.path.isdir(os.path.expanduser(word))):
                path = os.path.abspath(os.path.expanduser(word))
                i += 1
            else:
                raise gdb.GdbError("collector report: \"%s\" is neither a view nor an experiment directory.\n"
                                   "Usage: %s" % (word, USAGE))
        if path is None:
            status = self.state.session.status()
            path = status.get("experiment")
            if path and status.get("state") == "active" and outside.sampled_outside(status):
                # at a stop, what the program did up to it: the sampler
                # drains and writes what it holds first
                current_status(self.state, status)
            elif path and status.get("state") == "active" and live_pid():
                # where the program samples itself, its runtime's thread
                # (0.48 s of a 0.50 s span before: its last cycle unwritten)
                try:
                    self.state.attacher.call_runtime("gdbcol_drain", command="collector report")
                except gdb.GdbError as e:
                    say("collector report: what the program did in its last moments may not be in it yet (%s)\n"
                        % str(e).rstrip("."))
            if not path:
                raise gdb.GdbError("collector report: this session has recorded no experiment yet; name one: "
                                   "collector report DIRECTORY/test.1.er")
        if not os.path.isdir(path):
            raise gdb.GdbError("collector report: %s is not an experiment directory." % path)
        if since_stop:
            options += ["--since-stop", str(self._stops_so_far(path))]
        try:
            done = subprocess.run([self.report_path, "--within-gdb"] + options + [path], capture_output=True, text=True,
                                  timeout=REPORT_TIMEOUT_S, stdin=subprocess.DEVNULL, errors="replace")
        except (OSError, subprocess.TimeoutExpired) as e:
            raise gdb.GdbError("collector report: the report could not run (%s)." % e)
        say(done.stdout)
        if done.returncode != 0:
            message = done.stderr.strip().replace("gdbcol-report: ", "")
            raise gdb.GdbError("collector report: %s" % (message or "failed (exit status %d)" % done.returncode))

    def _stops_so_far(self, path):
        """The number of GDB's stops the experiment at PATH counted, the
        current one included (since last-stop needs it recording, stopped)."""
        active = self.state.session.active_experiment()
        if not active or os.path.realpath(active.get("experiment", "")) != os.path.realpath(path):
            raise gdb.GdbError("collector report since last-stop: needs the program stopped in GDB with the "
                               "experiment recording (between N M takes any experiment's sample points).")
        stops = self.state.stop_samples.stops_so_far(active)
        if not stops:
            raise gdb.GdbError("collector report since last-stop: no stop of GDB's is among the experiment's sample "
                               "points yet (collector dbxsample %s)."
                               % ("on: the program has not stopped since the experiment began"
                                  if self.state.stop_samples.enabled else "is off: turn it on"))
        return stops

    def complete(self, text, word):
        words = gdb.string_to_argv(text)
        if text and not text.endswith(" ") and words:
            words = words[:-1]
        if words and words[-1] in ("flamegraph", "folded", "html"):
            return gdb.COMPLETE_FILENAME
        if words and words[-1] == "mode":
            return [m for m in ("user", "machine") if m.startswith(word or "")]
        if words and words[-1] in ("callers", "callees", "metric", "limit"):
            return gdb.COMPLETE_NONE
        if words and words[-1] == "since":
            return ["last-stop"] if "last-stop".startswith(word or "") else []
        try:
            views = sum(self.views(), ())
        except gdb.GdbError:
            views = ()
        keywords = [w for w in views + OPTIONS + ("noinline", "since", "between")
                    if w.startswith(word or "")]
        return keywords if keywords or not word else gdb.COMPLETE_FILENAME
