"""Helpers for the end-to-end tests: run real `gdb -batch` sessions with the
collector loaded, then read the experiment twice, with the project's reader
(er-dump) and with gprofng.  Nothing here mocks GDB, the kernel or a reader.

Paths come from the environment that CMake's add_test sets:
  GDBCOL_BUILD  the build tree;  GDBCOL_PROGRAMS  the built test programs;
  GDBCOL_TEST_NO_PERF=1: every GDB and every program a test starts runs
  where the kernel refuses perf events (tests/programs/no_perf_events, a
  seccomp filter): the same checks, as a user of a stock Debian or Ubuntu
  kernel, a container or a CI runner gets them (ctest label no_perf)."""

import atexit
import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("GDBCOL_BUILD", "build")
PROGRAMS = os.environ.get("GDBCOL_PROGRAMS", os.path.join(BUILD, "tests"))
COLLECTOR_GDB = os.path.join(BUILD, "share", "gdb", "collector.gdb")
ER_DUMP = os.path.join(BUILD, "experiment", "er-dump")

failures = []


def perf_events_refused():
    """Whether this run's programs and GDB run where perf events are
    refused (GDBCOL_TEST_NO_PERF: the no_perf label)."""
    return os.environ.get("GDBCOL_TEST_NO_PERF") == "1"


def clock_source_said(comments):
    """Whether log.xml's comments name the clock's source this run must
    have: the sampler process's own events, or (perf events refused) the
    samples the program's threads took themselves for it."""
    if perf_events_refused():
        return any("the program's threads took themselves" in c for c in comments)
    return any("sampler process" in c and "outside the program" in c for c in comments)


def no_perf_prefix():
    """The command prefix of a run where perf events are refused, when this
    test runs so (GDBCOL_TEST_NO_PERF), else []."""
    if not perf_events_refused():
        return []
    return [os.path.join(PROGRAMS, "no_perf_events")]


def program(name):
    return os.path.join(PROGRAMS, name)


def check(condition, message):
    """Records a failed check (the test goes on, to report every problem)."""
    if condition:
        print("ok: " + message)
    else:
        print("FAILED: " + message)
        failures.append(message)
    return condition


def finish():
    if failures:
        # Listed again at the end: a CI log keeps only the tail.
        for message in failures:
            print("FAILED: " + message)
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")
    sys.exit(0)


def skip_rest(reason):
    """The rest of this test cannot run here: a ctest skip with REASON,
    unless a check before failed (then that failure is the result)."""
    if failures:
        finish()
    skip_test(reason)


def workdir():
    path = tempfile.mkdtemp(prefix="gdbcol-e2e-")
    return path


SKIP = 77  # ctest's SKIP_RETURN_CODE for the e2e tests


SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIPPED_LOG = os.path.join(BUILD, "Testing", "skipped.txt")  # listed at the suite's end (CTestCustom.cmake)


def skip_part(reason):
    """A part of this test the machine cannot run: printed, and listed with
    its reason when the suite ends (never a silent pass)."""
    label = " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:])
    reason = " ".join(reason.split())  # one line each in the list (a tool's message may hold several)
    print("SKIPPED (part): " + reason)
    try:
        os.makedirs(os.path.dirname(SKIPPED_LOG), exist_ok=True)
        with open(SKIPPED_LOG, "a") as log:
            log.write("%s: %s\n" % (label, reason))
    except OSError as error:  # a build tree this user cannot write: printed only
        print("(not listed: %s)" % error)


def skip_test(reason):
    """The whole test cannot run here: a ctest skip (exit 77), listed."""
    skip_part(reason)
    print("SKIPPED: " + reason)
    sys.exit(SKIP)


def _unreachable(paths):
    """The directories on the way to PATHS that other users cannot traverse."""
    out = []
    for path in paths:
        path = os.path.realpath(path)
        while path != "/":
            path = os.path.dirname(path)
            if not os.stat(path).st_mode & 0o001:
                out.append(path)
    return out


_prefix = False  # not decided yet


def unprivileged_prefix():
    """The command prefix that runs a command as an ordinary user (nobody)
    when the tests run as root, or [] when they already run unprivileged.
    Wherever the checkout lies: where a directory on the way is closed to
    other users (/root, a home of mode 700), the command runs in a private
    mount namespace that opens the way to the checkout only (as_user.py).
    None when root cannot run as nobody here, the reason listed as a
    skipped part."""
    global _prefix
    if _prefix is not False:
        return _prefix
    _prefix = _decide_prefix()
    return _prefix


def _decide_prefix():
    if os.geteuid() != 0:
        return []
    for tool in ("setpriv", "unshare"):
        if shutil.which(tool) is None:
            skip_part("the ordinary-user runs (no %s: install util-linux)" % tool)
            return None
    nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    targets = [SOURCE, os.path.abspath(BUILD)]
    prefix = nobody
    if _unreachable(targets):
        prefix = ["unshare", "-m", "--propagation", "private", sys.executable,
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "as_user.py")] + targets + ["--"]
    probe = subprocess.run(prefix + ["test", "-r", COLLECTOR_GDB], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
    if probe.returncode != 0:
        skip_part("the ordinary-user runs (nobody cannot read %s%s: %s)" % (
            COLLECTOR_GDB, ", the way opened by a mount namespace" if prefix is not nobody else "",
            (probe.stderr.strip() or "permission denied").splitlines()[-1]))
        return None
    return prefix


def prefix_beside(pid, prefix):
    """PREFIX for a command that must see the mount namespace of PID, a
    process started with PREFIX: as_user.py gives each command a namespace
    of its own, and GDB run as an ordinary user cannot read the files of a
    process in another one (its setns is refused: "could not open as an
    executable file: Operation not permitted").  So GDB enters the
    program's namespace (as root, with its root and working directory),
    then becomes nobody; what PREFIX adds after as_user.py's part (the
    filter that refuses perf events) follows."""
    if not prefix or prefix[0] != "unshare":
        return prefix
    tail = list(prefix[prefix.index("--") + 1:]) if "--" in prefix else []
    return (["nsenter", "-t", str(pid), "-m", "-r", "-w",
             "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + tail)


def shared_workdir():
    """A work directory an unprivileged user can write too."""
    path = workdir()
    os.chmod(path, 0o777)
    return path


def run_gdb(commands, args, cwd, timeout=120, env=None, prefix=()):
    """Runs `gdb -batch` with collector.gdb and one -ex per command; PREFIX
    runs it as another user (unprivileged_prefix)."""
    cmd = list(prefix) + no_perf_prefix() + ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB]
    for c in commands:
        cmd += ["-ex", c]
    cmd += ["--args"] + list(args)
    # The program sees the environment a user's GDB would give it: none of
    # this harness's own variables.
    full_env = _user_env()
    if env:
        full_env.update(env)
    if prefix:
        # GDB and Python want a home; GDB starts the program with $SHELL
        # (nobody's login shell refuses).
        full_env.update(HOME=cwd, SHELL="/bin/sh")
    steal_before = steal_seconds()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env,
                            stdin=subprocess.DEVNULL)
    # (the kernel's task-clock, which samples the program, counts the time
    # the host took from this VM while a thread ran; the thread's own CPU
    # clock, most tests' truth, does not: printed for a failure's reader)
    global LAST_RUN_STEAL
    LAST_RUN_STEAL = steal_seconds() - steal_before
    print("[harness] host steal time during this GDB run: %.3f s (all CPUs)" % LAST_RUN_STEAL)
    return result.stdout + result.stderr


LAST_RUN_STEAL = 0.0  # the host's steal during the last run_gdb, all CPUs (seconds)


def steal_seconds():
    """The time the host took from this VM's CPUs so far (/proc/stat's
    steal, all CPUs), in seconds."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / float(os.sysconf("SC_CLK_TCK"))
    except (OSError, IndexError, ValueError):
        return 0.0


def _user_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("GDBCOL_") and k != "LD_PRELOAD"}


_backgrounds = []


@atexit.register
def _kill_backgrounds():
    """A test that died on an exception (a GDB that timed out) leaves no
    program of its own running: a deadlocked target stayed 45 minutes after
    e2e.deadlocks' GDB timed out, and its sampler process with it."""
    for background in _backgrounds:
        if background.proc.poll() is None:
            background.proc.kill()
            background.proc.wait()


class Background:
    """A test program running on its own (as a process users attach to),
    its output collected; waits for its "ready" line."""

    def __init__(self, args, cwd, ready="ready", prefix=(), env=None):
        """PREFIX runs it as another user (unprivileged_prefix); ENV: more
        variables (LD_PRELOAD among them)."""
        full_env = _user_env()
        full_env.update(env or {})
        self.proc = subprocess.Popen(list(prefix) + no_perf_prefix() + list(args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     stdin=subprocess.DEVNULL, env=full_env)
        _backgrounds.append(self)
        self.first_line = self.proc.stdout.readline().strip()
        if ready is not None and self.first_line != ready:
            raise RuntimeError("%s did not start: %r" % (args[0], self.first_line))
        self.pid = self.proc.pid

    def finish(self, timeout=120):
        """(exit status, the rest of its output)."""
        out, _ = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out


def stop_attach_target(target, busy):
    """Ends an attach_target run (SIGUSR1) and checks that its exit status
    and last line are its own; returns its output and the truth it
    measured: each function's thread CPU since the runtime appeared
    ({} when it said none).  BUSY: its main thread churned malloc too."""
    target.proc.send_signal(signal.SIGUSR1)
    status, out = target.finish()
    print(out)
    check(status == 3, "the program's exit status is unchanged (%s)" % status)
    check(out.strip().endswith("attach_target: finished, 3 workers, late threads started: yes"),
          "the program's output is unchanged")
    m = re.search(r"cpu_since_runtime compute=([0-9.]+) churn=([0-9.]+) main=([0-9.]+)", out)
    check(m is not None, "the program measured its threads' CPU since the attach")
    if m is None:
        return out, {}
    return out, {"compute_loop": float(m.group(1)),
                 "churn_malloc": float(m.group(2)) + (float(m.group(3)) if busy else 0)}


def attach_gdb(pid, commands, cwd, timeout=120, prefix=()):
    """`gdb -batch -p PID` with collector.gdb and one -ex per command; PREFIX
    runs GDB as another user (unprivileged_prefix), in PID's mount
    namespace (prefix_beside: in one of its own, GDB as nobody could not
    read the program's files and showed its frames as `?? ()`, Debian 13)."""
    cmd = list(prefix_beside(pid, prefix)) + no_perf_prefix() + ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-p",
                                                                 str(pid)]
    for c in commands:
        cmd += ["-ex", c]
    env = _user_env()
    if prefix:
        env.update(HOME=cwd, SHELL="/bin/sh")
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env,
                            stdin=subprocess.DEVNULL)
    return result.stdout + result.stderr


def attach_then_go(args, commands, cwd, go_name="go", prefix=(), env=None):
    """A program that waits to be told to go (tests/programs/wait_for_go.h:
    ARGS then "wait GO"), GDB attached to it with COMMANDS then detached,
    and the program told to go.  (the Background, GDB's output, the
    seconds from the attach's end to the go).  PREFIX: both run as
    another user (unprivileged_prefix)."""
    go = os.path.join(cwd, go_name)
    target = Background(list(args) + ["wait", go], cwd, prefix=prefix, env=env)
    out = attach_gdb(target.pid, list(commands) + ["detach"], cwd, prefix=prefix)
    print(out)
    attached_at = time.monotonic()
    open(go, "w").close()
    return target, out, time.monotonic() - attached_at


ER_DUMP_STATUS = {0: "read", 1: "unreadable", 2: "usage", 3: "damaged: numbers not to be trusted"}


def er_dump(path, expect_status=0):
    """er-dump's output as (summary dict, {function: (excl, incl)}, raw text).
    Its exit status is checked against EXPECT_STATUS (None: a test that reads
    experiments still being written, or damaged ones on purpose), and kept
    as summary["exit_status"]."""
    done = subprocess.run([ER_DUMP, path], capture_output=True, text=True, timeout=120)
    out = done.stdout
    if expect_status is not None and done.returncode != expect_status:
        check(False, "er-dump %s: exit status %d (%s), expected %d; %s" % (
            path, done.returncode, ER_DUMP_STATUS.get(done.returncode, "?"), expect_status,
            done.stderr.strip()[:300]))
    summary, funcs, in_funcs = {}, {}, False
    comments = []
    for line in out.splitlines():
        if line == "functions:":
            in_funcs = True
        elif line in ("sync_functions:", "heap_sites:", "hwc_functions:"):
            in_funcs = False  # per-function waits or heap sites follow (their tests read them)
        elif in_funcs:
            excl, incl, name = line.split(" ", 2)
            funcs[name] = (float(excl), float(incl))
        elif line.startswith("comment: "):
            comments.append(line[len("comment: "):])
        elif ": " in line and not line.startswith("thread "):
            key, value = line.split(": ", 1)
            summary[key] = value
    summary["comments"] = comments
    summary["exit_status"] = done.returncode
    summary["thread_lines"] = [l for l in out.splitlines() if l.startswith("thread ")]
    return summary, funcs, out


def wait_for_data(path, enough=lambda summary, funcs: int(summary.get("ticks", 0) or 0) > 0, timeout_s=60.0):
    """Until the experiment being written at PATH holds what ENOUGH asks of
    er-dump's (summary, functions), e.g. a first sample: an event, never a
    fixed time.  False at the timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        summary, funcs, _ = er_dump(path, expect_status=None)
        if enough(summary, funcs):
            return True
        time.sleep(0.05)
    return False


def wait_closed(*paths, timeout_s=30.0):
    """Until every experiment in PATHS reads closed.  A process that ran on
    after GDB detached ends on its own: the sampler process closes its
    experiment a little after the exit, once the process is gone.  False at
    the timeout (the checks that follow then say what is missing)."""
    closed = lambda summary, funcs: summary.get("closed") == "yes"
    return all(wait_for_data(path, closed, timeout_s) for path in paths)


def check_recorded(path, label):
    """An absence check's first half: the experiment exists, was closed at
    the program's exit and reads whole (so "no X in it" means something)."""
    summary = er_dump(path)[0]
    check(summary.get("closed") == "yes" and summary.get("ended_by") == "exit" and summary["exit_status"] == 0 and
          os.path.isfile(os.path.join(path, "log.xml")),
          "%s: the run was recorded (%s closed at its exit, read whole: closed %s, ended_by %s, reader status %s)"
          % (label, os.path.basename(path), summary.get("closed"), summary.get("ended_by"), summary.get("exit_status")))
    return summary


def gprofng_functions(path):
    """gprofng's function list as ({name: (excl_s, incl_s)}, total_s, raw):
    CPU time only, whatever else the experiment has (counters add columns)."""
    out = subprocess.run(["gprofng", "display", "text", "-metrics", "e.%totalcpu:i.%totalcpu", "-functions", path],
                         capture_output=True, text=True, timeout=120)
    text = out.stdout + out.stderr
    funcs = {}
    row = re.compile(r"^\s*([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(.+?)\s*$")
    for line in text.splitlines():
        m = row.match(line)
        if m:  # by name: two load objects can each have a function of that name (a wrapper and libc's);
            # exclusive times add up, inclusive ones may nest (the wrapper calls libc's): the larger
            excl, incl = funcs.get(m.group(5), (0.0, 0.0))
            funcs[m.group(5)] = (excl + float(m.group(1)), max(incl, float(m.group(3))))
    total = funcs.get("<Total>", (0.0, 0.0))[0]
    return funcs, total, text


def gprofng_text(path, *args):
    """`gprofng display text ARGS PATH`: what it prints."""
    return subprocess.run(["gprofng", "display", "text"] + list(args) + [path], capture_output=True, text=True,
                          timeout=120).stdout


# A frame of -leaks: "NAME + 0xOFFSET", and from gprofng 2.44 on, where the
# object has line numbers, ", line N in \"FILE\"" after it, or ", line N in
# alternate source context \"(unknown)\" <-- FILE:LINE" (an inlined body:
# our malloc wrapper's, Debian 13)
FRAME_END = r' \+ 0x[0-9A-Fa-f]+(?:, line \d+ in [^\n]*)?\n'


def gprofng_leaks(path):
    """-leaks as {caller of the allocator: (instances, bytes)} and the summary."""
    text = gprofng_text(path, "-leaks")
    leaks = {}
    for block in re.split(r"\n(?=Leak #)", text):
        m = re.match(r"Leak #\d+, Instances = (\d+), Bytes Leaked = (\d+)\n\s+(\S+)" + FRAME_END + r"\s+(\S+)", block)
        if m:
            caller = m.group(4)
            count, nbytes = leaks.get(caller, (0, 0))
            leaks[caller] = (count + int(m.group(1)), nbytes + int(m.group(2)))
    summary = re.search(r"Distinct Leaks = (\d+), Total Instances = (\d+), Total Bytes Leaked = (\d+)", text)
    return leaks, summary, text


def gprofng_rows(text):
    """The rows of a table gprofng printed: {name: [its figures]}."""
    table = {}
    for line in text.splitlines():
        m = re.match(r"^\s*((?:[0-9.]+\s+)+)(\S.*?)\s*$", line)
        if m:
            table[m.group(2)] = [float(x) for x in m.group(1).split()]
    return table


def check_gprofng_sync_events(path, count, function, filter_expression, what, in_function=None):
    """gprofng reads COUNT events of no length (lock orders, race accesses)
    as synchronization events, all in FUNCTION (IN_FUNCTION of them when
    given), and filters them with FILTER_EXPRESSION on their own fields."""
    rows = gprofng_rows(gprofng_text(path, "-metrics", "e.syncn", "-functions"))
    in_function = count if in_function is None else in_function
    check(rows.get("<Total>", [0])[0] == count and rows.get(function, [0])[0] == in_function,
          "gprofng reads the %s as synchronization events, %d in %s (Sync Wait Count %s)"
          % (what, in_function, function, rows.get("<Total>")))
    filtered = gprofng_rows(gprofng_text(path, "-filters", filter_expression, "-metrics", "e.syncn", "-functions"))
    check(filtered.get("<Total>", [0])[0] == count, "gprofng filters on their fields (%s)" % filter_expression)


def perf_event_paranoid():
    """kernel.perf_event_paranoid (2, Debian's floor for this test, when it
    cannot be read)."""
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 2


def yama_ptrace_scope():
    """kernel.yama.ptrace_scope, 0 where the kernel has no Yama."""
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0


def offcpu_stacks_here(prefix=(), short_waits=False, attached=False):
    """Whether off-CPU time comes with the stacks where threads waited for
    a run as this user (PREFIX: as another, unprivileged_prefix).  Every
    wait's stack (SHORT_WAITS) needs the kernel's samples at a switch:
    root's, or at perf_event_paranoid 1 or less.  Waits that last (tens of
    milliseconds and more) are also read from outside where this user may
    trace the program: no Yama restriction, or Yama's scope 1 at launch
    (the program declares the sampler process its tracer; ATTACHED: it
    could not).  Where perf events are refused (perf_events_refused) there
    are no switches to sample: the waits that last are read, as root
    too."""
    root = os.geteuid() == 0 and not prefix
    if (root or perf_event_paranoid() <= 1) and not perf_events_refused():
        return True
    if short_waits:
        return False
    if root:
        return True
    scope = yama_ptrace_scope()
    return scope == 0 or (scope == 1 and not attached)


def offcpu_read_note():
    """What GDB's closing line says where waits that last have their stacks
    read from outside and short ones have none: with perf events, read
    after the switch out; without, at /proc's polls."""
    return ("off-CPU time measured from /proc every" if perf_events_refused() else
            "off-CPU stacks read from the waiting threads")


STATE_COLUMNS = ("Wall", "On CPU", "Wait CPU", "Sleep", "I/O", "Lock", "Blocked", "Stopped", "Fault")


def states_rows(exp, prefix=()):
    """`collector report EXP states` (printed) as {label: seconds in each of
    STATE_COLUMNS}, a label's first row (each thread's id, then each
    function, inclusive), and the threads' rows in order."""
    report = run_gdb(["collector report %s states" % exp], ["/bin/true"], os.path.dirname(exp), prefix=prefix)
    print(report)
    rows, threads = {}, []
    number = r"\s+([0-9.]+)"
    for m in re.finditer(r"^(\S+)" + number * len(STATE_COLUMNS) + "$", report, re.M):
        values = [float(x) for x in m.groups()[1:]]
        rows.setdefault(m.group(1), values)
        if m.group(1).isdigit():
            threads.append(values)
    return rows, threads


def true_cpu_seconds(gdb_output):
    """The cpu_seconds=X line our test programs print (their own getrusage)."""
    m = re.search(r"cpu_seconds=([0-9.]+)", gdb_output)
    return float(m.group(1)) if m else None


def check_errors(out, expected):
    """Each command of EXPECTED ({command: message}) printed its message."""
    for command, message in expected.items():
        check(message in out, "%s -> error containing '%s'" % (command, message))


Z = 4.0  # bounds from sample counts: 4 standard deviations (a chance failure about 1 in 15 000)


def sampling_pp(share_pct, samples):
    """Z binomial standard deviations of a share of SAMPLES samples, in
    percentage points: what sampling alone can move it by."""
    p = min(max(share_pct / 100.0, 0.0), 1.0)
    return 100.0 * Z * (p * (1.0 - p) / max(samples, 1)) ** 0.5


def clock_samples(summary):
    """What an experiment's clock samples tell about shares, as a count of
    equal samples (er-dump's clock_effective_samples): where the kernel's
    CPU-time timers sample, under load they fire late and far between (on
    this VM beside two busy loops 6-69 signals per second of CPU for 1000
    asked, gaps up to 0.6 s), each sample weighted by the CPU time since the
    last: fewer than the packets."""
    return float(summary.get("clock_effective_samples", summary.get("clock_packets", 0)))


def merged_clock_samples(summaries):
    """clock_samples of several experiments read as one (a group)."""
    ticks = [float(s.get("ticks", 0)) for s in summaries]
    parts = [t * t / clock_samples(s) for t, s in zip(ticks, summaries) if clock_samples(s) > 0]
    return sum(ticks) ** 2 / sum(parts) if parts else 0.0


def sampling_seconds(seconds, interval_s):
    """Z standard deviations of the time recorded for SECONDS of CPU sampled
    every INTERVAL_S (a count of about seconds/interval samples), plus one
    sample for the phase."""
    return Z * (max(seconds, 0.0) / interval_s) ** 0.5 * interval_s + interval_s


def boundary_seconds(boundaries, interval_s):
    """Z standard deviations of the time recorded for a function entered
    and left BOUNDARIES times in all, sampled every INTERVAL_S: the sample
    that straddles an edge goes whole to one side, off by a uniform part
    of an interval (deviation interval/sqrt(12)), the edges independent
    where the samples' phase wanders (the kernel's tick under CPU-time
    timers), plus one sample.  Measured without perf events, split_work's
    work_thirty (20 edges, 10 ms): 0.59-0.62 s for its 0.60 s."""
    return Z * interval_s * (max(boundaries, 0) / 12.0) ** 0.5 + interval_s


def sampled_every_s(summary, interval_s):
    """How often an experiment's threads were sampled, from its er-dump
    SUMMARY: INTERVAL_S, or what the kernel's CPU-time timers gave where
    perf events are refused: they fire at its scheduler tick (every 3.8 ms
    for 1 ms here, a quarter of the samples), and under load late and far
    between, each sample weighted by the CPU time since the last: the CPU
    time one effective sample stands for (clock_samples)."""
    every = interval_s
    for comment in summary.get("comments", []):
        m = re.search(r"CPU-time timers fired every ([0-9.]+) ms on average", comment)
        if m:
            every = max(float(m.group(1)) / 1000.0, every)
    samples, seconds = clock_samples(summary), float(summary.get("cpu_seconds", 0))
    return max(seconds / samples, every) if samples > 0 else every


NOT_SAMPLED = "<Not-sampled-under-load>"


def not_sampled_seconds(funcs):
    """The CPU time an experiment has under <Not-sampled-under-load> (er-dump's
    FUNCS): time the program's CPU-time timers found no sample of while its
    threads were preempted for others (the kernel checks them at its tick,
    for the thread running then); where it ran is not known."""
    return funcs.get(NOT_SAMPLED, (0.0, 0.0))[0]


def within_truth(got, truth, bound, not_sampled=0.0):
    """GOT seconds recorded for TRUTH measured, within BOUND; short by up to
    NOT_SAMPLED more (not_sampled_seconds: some of its time may be there,
    none of another's is in GOT)."""
    return truth - bound - not_sampled <= got <= truth + bound


def check_shares(funcs, total, expected, label, tolerance_pp=3.0, samples=None):
    """Each function's inclusive share within TOLERANCE percentage points,
    or within what sampling allows for SAMPLES samples when that is more
    (a source whose samples are not systematic: timers, thread tails).
    Shares of the time the samples placed: TOTAL less what is under
    NOT_SAMPLED (functions of one kind of code, as the tests' are, keep
    their shares among the samples the late timers gave)."""
    placed = total - not_sampled_seconds(funcs)
    for name, share in expected.items():
        incl = funcs.get(name, (0.0, 0.0))[1]
        got = 100.0 * incl / placed if placed > 0 else 0.0
        bound = max(tolerance_pp, sampling_pp(share, samples)) if samples else tolerance_pp
        check(abs(got - share) <= bound,
              "%s: %s has %.1f%% of the time (expected %.0f%% +- %.1f)" % (label, name, got, share, bound))


SPLIT_WORK_SHARES = {"work_fifty": 50, "work_thirty": 30, "work_twenty": 20}


def check_split_work(exp, out, label):
    """split_work 2.5 1 as the in-process timer source records it: its CPU
    within 5 % of what it measured, both threads, each function's share
    (what sampling allows) in our reader and in gprofng.  The summary."""
    summary, funcs, raw = er_dump(exp)
    print(raw)
    true_cpu = true_cpu_seconds(out)
    recorded = float(summary.get("cpu_seconds", 0))
    check(true_cpu and 0.95 * true_cpu <= recorded <= 1.05 * true_cpu,
          "%s: recorded %.3f s of the program's %.3f s of CPU (within 5 %%)" % (label, recorded, true_cpu or 0))
    check(int(summary.get("threads", 0)) == 2, "%s: both threads sampled" % label)
    samples = clock_samples(summary)
    check_shares(funcs, recorded, SPLIT_WORK_SHARES, "%s, reader" % label, samples=samples)
    gfuncs, gtotal, _ = gprofng_functions(exp)
    check_shares(gfuncs, gtotal, SPLIT_WORK_SHARES, "%s, gprofng" % label, samples=samples)
    return summary


def private_runtime_dir(work):
    """A runtime directory of this test's own under WORK, in the environment
    the GDBs and programs it runs inherit: the session directories there
    are this test's (other tests' samplers run beside it)."""
    path = tempfile.mkdtemp(prefix="runtime-", dir=work)
    os.environ["XDG_RUNTIME_DIR"] = path
    return path


def session_sampler_pid(runtime_dir, timeout_s=30.0):
    """The pid of the sampler process recording from RUNTIME_DIR (its
    session token, "sampler-PID"), waiting for it to start; None if none
    did within TIMEOUT_S."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for session in os.listdir(runtime_dir):
            for name in os.listdir(os.path.join(runtime_dir, session)):
                if name.startswith("sampler-"):
                    return int(name[len("sampler-"):])
        time.sleep(0.01)
    return None


def cleanup(path):
    """Removes PATH when every check passed.  A sampler process may still
    be archiving into an experiment that reads closed (its copies come
    after the exit event): the removal is tried again until it holds."""
    if failures:
        print("experiment left for inspection in " + path)
        return
    deadline = time.monotonic() + 10
    while True:
        shutil.rmtree(path, ignore_errors=True)
        time.sleep(0.3)
        if not os.path.exists(path) or time.monotonic() > deadline:
            break


PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE = 0, 1
PERF_COUNT_HW_CPU_CYCLES = 0
PERF_COUNT_SW_CONTEXT_SWITCHES = 3


# What GDB says when a counter is typed where the kernel refuses perf events.
COUNTERS_REFUSED_SAID = "cannot be recorded: this user may not open perf events here"


def counters_refused_here(label):
    """Where this run's perf events are refused (perf_events_refused):
    GDB refuses a counter when it is typed, naming the reason and how to
    get it, and goes on; the test's counter checks cannot hold there and
    are a skip with that reason.  False where counters can be counted."""
    if not perf_events_refused():
        return False
    out = run_gdb(["collector hwprofile counter page-faults,100", "collector show hwprofile", "echo still-running\\n"],
                  ["/bin/true"], cwd=os.getcwd())
    print(out)
    check(COUNTERS_REFUSED_SAID in out and "allow perf_event_open" in out and "still-running" in out and
          re.search(r"HW counter profiling:\s+off, counters \(default", out) is not None,
          "%s: perf events refused: GDB refuses the counter when typed, says why and how to count, keeps the list "
          "and goes on" % label)
    return True


def kernel_counts(perf_type, config, exclude_kernel):
    """0 when the kernel opens this event for this process (as the sampler
    would, on one thread, any CPU), else the errno it refuses with: what the
    machine can count, asked of the kernel itself (EACCES where this run's
    perf events are refused: perf_events_refused)."""
    if perf_events_refused():
        return errno.EACCES
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    attr = bytearray(128)  # struct perf_event_attr, PERF_ATTR_SIZE_VER7
    attr[0:4] = perf_type.to_bytes(4, "little")
    attr[4:8] = len(attr).to_bytes(4, "little")
    attr[8:16] = config.to_bytes(8, "little")
    flags = 1 | (1 << 5 if exclude_kernel else 0) | (1 << 6)  # disabled, exclude_kernel, exclude_hv
    attr[40:48] = flags.to_bytes(8, "little")
    buf = (ctypes.c_char * len(attr)).from_buffer(attr)
    SYS_perf_event_open = 298  # x86_64
    fd = libc.syscall(SYS_perf_event_open, buf, 0, -1, -1, 0)
    if fd < 0:
        return ctypes.get_errno()
    os.close(fd)
    return 0
