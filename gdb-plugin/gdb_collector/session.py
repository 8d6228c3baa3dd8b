"""What the plugin knows about experiments in this GDB session: the status
file the runtime keeps up to date, and reports when a run ends."""

import errno
import os
import shutil
import tempfile
import time

import gdb

from . import native, sampler_children
from .elf_symbols import statically_linked
from .procfs import process_alive
from .text import decode_value, say


# Closing includes archiving the load objects (copies with archive copy).
SAMPLER_CLOSE_WAIT_S = 60
# The sampler process takes a moved status file within a cycle (250 ms).
STATUS_MOVE_WAIT_S = 5
# How a status's closed detail names the program's own ends (the others,
# such as "collector disable", ended the experiment while it ran on).
PROGRAM_ENDS = ("exit", "_exit", "_Exit", "killed", "")


def read_status(path):
    """The runtime's status file as a dict ({} when there is none yet)."""
    status = {}
    try:
        with open(path, errors="surrogateescape") as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition("=")
                if sep:
                    status[key] = decode_value(value)  # paths come encoded when not plain
    except OSError:
        pass
    return status


def write_error_text(errno_value):
    """A write error as the user should read it."""
    errno_value = int(errno_value or 0)
    text = os.strerror(errno_value)
    if errno_value in (errno.ENOSPC, errno.EDQUOT):
        text += " (the experiment's file system is full)"
    return text


def _number(status, key):
    try:
        return int(status.get(key, "0") or 0)
    except ValueError:
        return 0


def _size(count):
    if count < 1024 * 1024:
        return "%.1f KB" % (count / 1024.0)
    return "%.1f MB" % (count / (1024.0 * 1024.0))




# Notes about what this machine cannot give, said once a GDB session (the
# same for every experiment: the kernel's limits).
_ONCE_A_SESSION = ("off-CPU time recorded without the stacks where threads waited",
                   "off-CPU stacks read from the waiting threads")
_said_once = set()


def _notes_once(note):
    """NOTE's parts ("; "-separated), those said already this session left
    out."""
    parts = []
    for part in note.split("; "):
        once = next((p for p in _ONCE_A_SESSION if part.startswith(p)), None)
        if once is not None and once in _said_once:
            continue
        if once is not None:
            _said_once.add(once)
        parts.append(part)
    return "; ".join(parts)


def _mid_sentence(title):
    """A kind's title inside a sentence: "Heap tracing" -> "heap tracing",
    "I/O tracing" kept."""
    return title[0].lower() + title[1:] if len(title) > 1 and title[1].islower() else title


def closed_summary(status):
    """What an experiment holds, as perf's end line says it: samples, CPU
    time and threads, bytes written and lost, stacks cut at the copy's end,
    what a write error kept out, and the descendants not recorded."""
    samples = status.get("samples", "0")
    failure = _number(status, "write_errno")
    text = "clock profiling off" if status.get("clock_us") == "0" else "%s samples" % samples
    if failure:
        text = "%s samples written; %s captured sample(s) not written: %s" % (
            samples, status.get("not_written", "0"), write_error_text(failure))
    # Each data kind beyond the clock, as the status file counts its events
    # (the kind's data file name + "_events", present when the kind is on).
    for kind in native.data_kinds():
        key = kind.name + "_events"
        if kind.one and key in status:
            count = _number(status, key)
            text += "; %d %s" % (count, kind.one if count == 1 else kind.many)
    cpu_ms, threads = _number(status, "cpu_ms"), _number(status, "threads")
    if cpu_ms:
        text += "; %.2f s of CPU%s" % (cpu_ms / 1000.0, " in %d thread%s" % (threads, "s" if threads > 1 else "")
                                         if threads else "")
    if "offcpu_ms" in status:
        text += "; %.2f s off CPU" % (_number(status, "offcpu_ms") / 1000.0)
    if "data_bytes" in status:
        text += "; %s written, %d lost" % (_size(_number(status, "data_bytes")), _number(status, "lost"))
    # Each limit that cut stacks, by name (the stack copy, the frame limit).
    stacks = _number(status, "stacks")
    truncated, at_depth = _number(status, "truncated"), _number(status, "truncated_depth")
    if stacks and truncated * 100 >= stacks:
        text += "; %.0f%% of call stacks cut at the stack copy's end (collector profile stack raises it)" % (
            100.0 * truncated / stacks)
    if stacks and at_depth * 100 >= stacks:
        text += "; %.0f%% of call stacks cut at %s frames (collector profile depth raises it)" % (
            100.0 * at_depth / stacks, status.get("max_frames", "the frame limit"))
    note = _notes_once(status.get("note", ""))
    if note:
        text += "; " + note
    if "unsampled_ms" in status:
        text += "; %.2f s of CPU not sampled: %s thread(s) blocked the collector's timer signal" % (
            _number(status, "unsampled_ms") / 1000.0, status.get("blocking_threads", "?"))
    if _number(status, "limit_reached"):
        text += "; the data limit (%s MB) was reached: profile data stopped there (collector limit raises it)" % (
            status.get("limit_mb", "?"))
    recorded = _number(status, "descendant_experiments")
    if recorded:
        text += "; %d descendant experiment(s) beside it" % recorded
    missed = _number(status, "descendants")
    if missed and status.get("clock_source") == "timer" and not _number(status, "descendant_cpu_ms"):
        # no samples of theirs, and no sum the kernel kept: their CPU is not known
        text += "; %d descendant process(es) not recorded (log.xml says why)" % missed
    elif missed:
        # (perf events refused, only a process that carries the runtime is
        # seen: a child's exec'd program does not, nor what it starts; the
        # kernel's sum covers them all: "1 descendant" for 2001 before)
        text += "; %d%s descendant process(es) not recorded, about %.2f s of CPU" % (
            missed, " or more" if status.get("clock_source") == "timer" else "",
            _number(status, "descendant_cpu_ms") / 1000.0)
    return text


def clock_source_note(status):
    """What a user gets where the kernel refuses them perf events (Debian's
    and Ubuntu's stock kernels, kernel.perf_event_paranoid 3 or 4, for
    anyone without CAP_PERFMON), and how to get more; "" otherwise."""
    refused = _number(status, "perf_errno")
    if status.get("clock_source") != "timer" or refused not in (errno.EACCES, errno.EPERM):
        return ""
    return ("collector: this user may not open perf events here (perf_event_open: %s), so the program sampled "
            "itself: a CPU-time timer and signal %d in each thread, kept deliverable where the program blocks "
            "signals (it still sees the masks and handlers it set). To be sampled from outside the program, as "
            "perf does: %s.\n"
            % (os.strerror(refused), native.timer_signal(), native.perf_access_hint(2)))


def look_at_it(path):
    """The line after an experiment closes: how to see it (an MPI job's
    ranks are M_r<rank>.er, which gprofng loads through the job's group
    file only)."""
    rank_prefix, ranks_group, _, _ = native.mpi_names()
    group = os.path.join(path, ranks_group)
    job = os.path.dirname(path)
    if os.path.basename(path).startswith(rank_prefix) and os.path.isfile(os.path.join(job, ranks_group)):
        # one GDB per rank: this rank's experiment is one of the job's
        return ("collector: to look at it: collector report (flamegraph FILE.svg, html FILE.html; mpi %s for the "
                "job), or gprofng display text -functions %s (every rank of the job that has ended so far)\n"
                % (job, os.path.join(job, ranks_group)))
    if os.path.isfile(group):
        ranks = len([name for name in os.listdir(path) if name.startswith(rank_prefix) and name.endswith(".er")])
        return ("collector: to look at it: collector report (flamegraph FILE.svg, html FILE.html), or gprofng display "
                "text -functions %s (the job and its %d rank(s); %s alone has the launcher's processes only)\n"
                % (group, ranks, path))
    return ("collector: to look at it: collector report (flamegraph FILE.svg, html FILE.html), or gprofng display "
            "text -functions %s\n" % path)


def _program_path():
    """The program GDB runs, or "" where GDB cannot give its path as text
    (bytes that are not UTF-8: its own decoding fails)."""
    try:
        return gdb.current_progspace().filename or ""
    except UnicodeDecodeError:
        return ""


def _live_pids():
    pids = set()
    for inferior in gdb.inferiors():
        if inferior.pid:
            pids.add(inferior.pid)
    return pids


def _report_key(status):
    return (status.get("pid"), status.get("experiment"), status.get("state"))


def _session_parent():
    """Where the session's small shared files live (status, control page,
    trace ring): memory (the user's runtime directory, else /dev/shm) when
    one is writable.  The program's threads write the trace ring at high
    rates, and on a disk file each page faults again at its first write
    after every writeback (measured: 4 us per traced call on this VM)."""
    for candidate in (os.environ.get("XDG_RUNTIME_DIR"), "/dev/shm"):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            return candidate
    return None


def _others_can_reach(path):
    """True when every directory above PATH lets any user through."""
    parent = os.path.dirname(os.path.abspath(path))
    while True:
        try:
            if not os.stat(parent).st_mode & 0o001:
                return False
        except OSError:
            return False
        if parent == "/":
            return True
        parent = os.path.dirname(parent)


def _member_pid(name):
    """The pid in a session member's token (gdb-PID, sampler-PID), or None."""
    role, _, pid = name.partition("-")
    return int(pid) if role in ("gdb", "sampler") and pid.isdigit() else None


class Session:
    """The session's directory is removed by whoever leaves it last: GDB at
    its exit or a sampler process at its end (libcollector/sampler/
    session_dir.h).  Each member holds a token named after it; one leaving
    removes its token, then the directory if no live member's is left."""

    def __init__(self):
        self._earlier = []  # (directory, token) this session left for another
        self.last_reported = None
        self._enter(tempfile.mkdtemp(prefix="gdbcol-", dir=_session_parent()))

    def _enter(self, directory):
        self._dir = directory
        self.status_path = os.path.join(directory, "status")
        self._token = os.path.join(directory, "gdb-%d" % os.getpid())
        os.close(os.open(self._token, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))

    def reachable_by_others(self):
        """Root's GDB recording another user's process: that process's
        runtime opens the session's control page and trace ring (made its
        own by the sampler process), so it must be able to pass through the
        session's directory, though not to list or change it (mode 711).
        A runtime directory of mode 700 (root's /run/user/0) lets no one
        through: the session moves to /dev/shm.  None, or why it cannot."""
        if not _others_can_reach(self._dir):
            if not (os.path.isdir("/dev/shm") and _others_can_reach("/dev/shm/x")):
                return "no directory other users can reach holds the collector's shared files (/dev/shm is missing)"
            self._earlier.append((self._dir, self._token))
            self._enter(tempfile.mkdtemp(prefix="gdbcol-", dir="/dev/shm"))
        os.chmod(self._dir, 0o711)
        return None

    def status(self):
        """The status file's; a sampler process it names that is GDB's
        child is reaped by GDB from now on."""
        st = read_status(self.status_path)
        if st.get("sampler_pid"):
            sampler_children.adopt(st["sampler_pid"], st.get("pid"))
        return st

    def active_experiment(self):
        """The status of the experiment open in a live inferior, or None."""
        st = self.status()
        if st.get("state") == "active" and st.get("pid", "").isdigit() and int(st["pid"]) in _live_pids():
            return st
        return None

    def remove_if_done(self):
        """At GDB's exit: the sampler processes of programs that have ended
        are waited for (bounded) and reaped; GDB leaves the session's
        directory, which goes unless a sampler process still records from
        it (after a detach; its descendants may still need the control page
        and the trace ring)."""
        self.status()
        sampler_children.wait_for_ended_programs(SAMPLER_CLOSE_WAIT_S)
        for directory, token in self._earlier + [(self._dir, self._token)]:
            try:
                os.unlink(token)
                members = [pid for pid in map(_member_pid, os.listdir(directory)) if pid and process_alive(pid)]
            except OSError:
                members = []
            if not members:
                shutil.rmtree(directory, ignore_errors=True)

    def forget(self):
        try:
            os.unlink(self.status_path)
        except OSError:
            pass

    def mark_reported(self, status):
        """STATUS was told to the user already: no second message at exit."""
        self.last_reported = _report_key(status)

    def wait_until_closed(self):
        """The sampler process (outside the program) ends the experiment a
        little after the program ends or GDB asks: wait for it, bounded.  A
        sampler process that an earlier session started first moves its
        reports to this session's status file."""
        start = time.monotonic()
        st = self.status()
        while time.monotonic() - start < SAMPLER_CLOSE_WAIT_S:
            if not st and time.monotonic() - start > STATUS_MOVE_WAIT_S:
                break
            if st and (st.get("state") != "active" or not process_alive(st.get("sampler_pid", ""))):
                break
            time.sleep(0.02)
            st = self.status()
        return self.status()  # it may have closed and left between the two reads

    def _first_status_of_run(self, st):
        """A launched program (static ones too: the sampler gdbcol-launch
        started beside it samples them from outside) that ended before its
        sampler process read the records that start its experiment (it
        drains every 250 ms unless woken; the program's end wakes it): its
        status comes once the sampler has read them, while it runs; bounded."""
        start = time.monotonic()
        while sampler_children.any_running() and time.monotonic() - start < STATUS_MOVE_WAIT_S:
            time.sleep(0.01)
            current = self.status()
            if current and _report_key(current) != self.last_reported:
                return current
        # one that ended since the last read told it then (a static
        # program's sampler: 1 run in 4 missed it, read before it wrote)
        current = self.status()
        return current if current and _report_key(current) != self.last_reported else st

    def wait_for_sampler(self, status):
        """Until the sampler process of STATUS has ended, bounded."""
        start = time.monotonic()
        while process_alive(status.get("sampler_pid", "")) and time.monotonic() - start < SAMPLER_CLOSE_WAIT_S:
            time.sleep(0.02)

    def report_end_of_run(self, launched=False, exit_code=None):
        """Called when GDB loses an inferior (exit, kill or detach): says what
        happened to the experiment.  LAUNCHED: the collector was enabled for
        the run that ended; a run that left no status of its own never had
        the runtime start in the program, which is said, not left silent.
        EXIT_CODE: the program's exit status where GDB saw it exit."""
        st = self.status()
        if launched and (not st or _report_key(st) == self.last_reported):
            st = self._first_status_of_run(st)
        program = _program_path() if launched else ""
        static = bool(program) and statically_linked(program)
        if static:
            # The sampler process may still have sampled it from outside
            # (then its experiment is reported below): said either way,
            # whichever came first.
            # each traced kind that was on, by name: its 0 events are this
            # (before, "0 allocations and frees" with "no traced calls")
            traced = [kind.title for kind in native.data_kinds()
                      if kind.traced and st and kind.name + "_events" in st]
            missing = ["%s recorded nothing" % _mid_sentence(title) for title in traced]
            if exit_code is None:  # (GDB saw none either)
                missing.append("no exit status")
            if not (st and _report_key(st) != self.last_reported):
                missing.append("no experiment recorded")
            say("collector: %s is statically linked: the collector's runtime, which only the dynamic loader can "
                "load, was not in it%s; link it dynamically to profile it fully.\n"
                % (program, " (%s)" % ", ".join(missing) if missing else ""))
            if not st or _report_key(st) == self.last_reported:
                return
        elif launched and (not st or _report_key(st) == self.last_reported):
            say("collector: no experiment was recorded: the collector's runtime never started in the program. "
                "It reaches the program through LD_PRELOAD, which something replaced on the way (an "
                "exec-wrapper such as `env LD_PRELOAD=...`, or a launcher); set the variable with `set "
                "environment LD_PRELOAD=...` instead, which the collector adds itself to.\n")
            return
        if st and not process_alive(st.get("pid", "")):
            st = self.wait_until_closed()
        if st.get("state") == "active" and process_alive(st.get("pid", "")):
            say("collector: experiment %s goes on recording in process %s; it closes when the process "
                      "exits, or attach again and use \"collector disable\".\n" % (st.get("experiment"), st["pid"]))
            return
        if not st or _report_key(st) == self.last_reported:
            return
        self.mark_reported(st)
        state = st.get("state")
        path = st.get("experiment", "")
        if state == "closed" and st.get("detail") == "killed" and exit_code is not None:
            # GDB saw it exit: through a call the runtime does not see (a
            # static program, Go's and the sanitizers' direct exit system
            # call), not killed (before: "killed by a signal, or it crashed")
            say("collector: process %s exited with code %d; experiment %s closed at its end (%s).\n"
                % (st.get("pid"), exit_code, path, closed_summary(st)))
            say(look_at_it(path))
        elif state == "closed" and st.get("detail") == "killed" and static:
            # (no runtime in it to tell its exit: its end is not known to be a kill)
            say("collector: process %s ended; experiment %s closed at its end (%s).\n"
                % (st.get("pid"), path, closed_summary(st)))
            say(look_at_it(path))
        elif state == "closed" and st.get("detail") == "killed":
            say("collector: process %s ended without exiting (killed by a signal, or it crashed); experiment %s "
                "closed at its end (%s).\n" % (st.get("pid"), path, closed_summary(st)))
            say(look_at_it(path))
        elif state == "closed":
            say("collector: experiment %s closed (%s).\n" % (path, closed_summary(st)))
            if st.get("detail", "exit") not in PROGRAM_ENDS:
                say("collector: it ended before the program did: %s.\n" % st["detail"])
            say(clock_source_note(st))
            say(look_at_it(path))
        elif state == "exec":
            after = "It is recorded as _x1.er inside it." if st.get("exec_followed") == "1" else \
                "The new program was not profiled."
            say("collector: the process exec'd %s; experiment %s closed (%s). %s\n"
                      % (st.get("detail", "a new program"), path, closed_summary(st), after))
            if st.get("exec_followed") == "1":
                # The new image and its descendants (Open MPI 5's mpirun execs
                # prterun, whose ranks are M_r<rank>.er here) close when the
                # sampler process ends, a little after the program.
                self.wait_for_sampler(st)
                say(look_at_it(path))
        elif state == "error":
            say("collector: no experiment was recorded: %s\n" % st.get("detail", "unknown error"))
        elif state == "active" and st.get("sampler_pid", "0") not in ("", "0") and \
                not process_alive(st["sampler_pid"]):
            # The writer died, not the program (a kill -9 of the sampler):
            # said so, and the experiment's end marked at its last record.
            rc, ended_at = native.mark_abandoned(path, "The sampler process ended before the experiment closed "
                                                       "(it was killed, or it crashed): nothing was recorded after "
                                                       "its last record")
            say("collector: the sampler process (pid %s) ended before experiment %s closed (it was killed, or it "
                "crashed); the program was not harmed. What it recorded up to %.2f s is readable%s.\n"
                % (st["sampler_pid"], path, ended_at, "; the end is marked in the experiment" if rc == 1 else ""))
        elif state == "active":
            say(
                "collector: the process ended without closing experiment %s (killed or crashed); "
                "the data recorded up to then is readable.\n" % path
            )
