"""Experiments in a running process (after `gdb -p PID`, or in a launched
program after `collector disable`): load the runtime with an inferior
dlopen call, then start or end an experiment with calls into it.

Addresses come from the process's own files (native.process_symbol), so
neither debug information nor GDB's symbol lookup is needed; strings go
below the calling thread's stack pointer (or, where its stack has too little
room, into a page the call session maps), so no call ever needs the
program's malloc."""

import os

import gdb

from . import native, sampler_process
from .gdb_state import handle_signals, inferior_env, restore_signal_states, signal_states
from .launch import runtime_signals
from .inferior_calls import CallSession, CallTimeout
from .procfs import mapping_around, proc_status, process_alive
from .session import read_status
from .text import encode_value
from .text import say

RTLD_NOW = 2
RTLD_DLOPEN_INTERNAL = 0x80000000  # __libc_dlopen_mode's flag before glibc 2.34
PAGE_BYTES = 16384
# Below a thread's stack pointer its innermost function may keep data (the
# x86-64 ABI's red zone): strings go below that.
RED_ZONE_BYTES = 128
# What the stack must still hold below the strings for the call's own
# frames (the loader's, the runtime's start); else the strings go into a
# mapped page.
STACK_ROOM_BYTES = 65536
CALL_TIMEOUT_S = 10.0
# Settings a user or test can give with `set environment` that the runtime
# also honours in a running process.
PASSED_THROUGH = ("GDBCOL_CLOCK_SOURCE", "GDBCOL_UNWIND_CHECK", "GDBCOL_STACK_BYTES", "GDBCOL_STEAL_CHECK")


def live_pid():
    inferior = gdb.selected_inferior()
    return inferior.pid if inferior.pid and inferior.threads() else 0


def other_user(pid):
    """The user name or id PID's files are opened as, when it is not GDB's
    (root's GDB recording another user's process); else None."""
    fields = proc_status(pid)
    ids = fields.get("Uid", "").split()[3:4] + fields.get("Gid", "").split()[3:4]
    if len(ids) < 2 or (ids[0] == str(os.geteuid()) and ids[1] == str(os.getegid())):
        return None
    try:
        import pwd
        return "%s (uid %s)" % (pwd.getpwuid(int(ids[0])).pw_name, ids[0])
    except (KeyError, ValueError):
        return "uid %s" % ids[0]


def _process_gone(pid):
    return not process_alive(pid) or live_pid() != pid


class ProcessCalls(CallSession):
    """A call session that can also pass strings to the functions it calls."""

    def __init__(self, pid, library_paths, libc_path, own_paths):
        super().__init__(pid, library_paths, CALL_TIMEOUT_S, own_paths)
        self.libc_path = libc_path
        self._page = None
        self._lent_stack = None  # (thread, its stack pointer before the session)

    def libc(self, name):
        address = native.process_symbol(self.pid, self.libc_path, name)
        if not address:
            raise gdb.GdbError("cannot find %s in %s (process %d)" % (name, self.libc_path, self.pid))
        return address

    def string(self, text):
        """Address of TEXT (NUL-terminated) in the process, valid for the next
        call on the selected thread."""
        data = os.fsencode(text) + b"\0"  # a path's bytes, whatever they are
        if len(data) > PAGE_BYTES:
            raise gdb.GdbError("collector: setting too long (%d bytes)" % len(data))
        address = self._below_stack_pointer(data)
        if address is None:
            address = self._mapped_page()
        gdb.selected_inferior().write_memory(address, data)
        return address

    def _below_stack_pointer(self, data):
        """Lowers the selected thread's stack pointer below room for DATA (the
        call's frames then go below it; the session puts it back at its end):
        each mapped page costs two more calls (mmap, munmap), a few
        milliseconds of the process stopped.  None where the stack is too
        short or another thread already lent its stack."""
        thread = gdb.selected_thread()
        if self._lent_stack is None:
            stack_pointer = native.thread_stack_pointer(thread.ptid[1])
            if stack_pointer is None:
                stack_pointer = int(gdb.parse_and_eval("$sp")) & 0xFFFFFFFFFFFFFFFF
            self._lent_stack = (thread, stack_pointer)
        lender, stack_pointer = self._lent_stack
        if lender != thread:
            return None
        address = (stack_pointer - RED_ZONE_BYTES - len(data)) & ~63
        mapping = mapping_around(self.pid, stack_pointer)
        if mapping is None or address - STACK_ROOM_BYTES < mapping[0]:
            return None
        self._set_stack_pointer(address)
        return address

    def _mapped_page(self):
        if self._page is None:
            page = int(self.run("((void *(*)(void *, unsigned long, int, int, int, long))0x%x)(0, %d, 3, 0x22, -1, 0)"
                                % (self.libc("mmap"), PAGE_BYTES)))
            if page in (0, 0xFFFFFFFFFFFFFFFF):
                raise gdb.GdbError("collector: cannot map a page in process %d" % self.pid)
            self._page = page
        return self._page

    @staticmethod
    def _set_stack_pointer(value):
        """The selected thread's; not by GDB's `set $sp`, which waits for
        GDB's index of the debug information (native/thread_registers.c)."""
        if native.set_thread_stack_pointer(gdb.selected_thread().ptid[1], value):
            try:
                gdb.execute("maintenance flush register-cache", to_string=True)  # GDB keeps registers
                return
            except gdb.error:
                pass  # (a GDB without it: GDB writes the same value through its own cache)
        gdb.newest_frame().select()
        gdb.execute("set $sp = (void *) 0x%x" % value, to_string=True)

    def __exit__(self, *exc):
        # Never raises: an error of the calls themselves is what to report.
        if not _process_gone(self.pid):
            if self._lent_stack is not None and self._lent_stack[0].is_valid():
                try:
                    self._lent_stack[0].switch()
                    self._set_stack_pointer(self._lent_stack[1])
                except gdb.error as error:
                    say("collector: could not restore the stack pointer of thread %d (0x%x) after the calls: %s. "
                        "Set it before continuing (thread %d, then set $sp = 0x%x).\n"
                        % (self._lent_stack[0].num, self._lent_stack[1], error, self._lent_stack[0].num,
                           self._lent_stack[1]))
            if self._page is not None:
                try:
                    self.run("((int (*)(void *, unsigned long))0x%x)((void *)0x%x, %d)"
                             % (self.libc("munmap"), self._page, PAGE_BYTES))
                except (gdb.error, CallTimeout):
                    pass
        try:
            return super().__exit__(*exc)
        except gdb.error:
            return False


class Attacher:
    def __init__(self, runtime_path):
        self.runtime_path = runtime_path
        self.start_error = None
        self._saved_signals = {}  # the user's `handle` states of the runtime's signals, until the end

    def _check_process(self, pid):
        kind, libc, loader = native.process_kind(pid)
        if kind == native.PROCESS_STATIC:
            raise gdb.GdbError(
                "collector enable: process %d is a static executable: it has no dynamic loader, so the "
                "collector's runtime cannot be loaded into it. Started under GDB instead (collector enable, then "
                "run), its CPU is sampled from outside where the kernel allows perf events, without traced calls; "
                "link it dynamically to profile it fully." % pid)
        if kind == native.PROCESS_MUSL:
            raise gdb.GdbError(
                "collector enable: process %d runs on musl libc; the runtime is built for glibc and cannot be "
                "loaded into it." % pid)
        if kind == native.PROCESS_OTHER_LIBC:
            raise gdb.GdbError(
                "collector enable: process %d has a dynamic loader but no glibc (libc.so.6); the runtime "
                "needs glibc." % pid)
        if kind == native.PROCESS_UNREADABLE:
            raise gdb.GdbError("collector enable: cannot read /proc/%d/maps (the process is gone?)" % pid)
        return libc, loader

    def _settings(self, settings, status_path):
        variables = {name: value or "" for name, value in settings.runtime_variables(status_path, inferior_env).items()}
        variables["GDBCOL_EXPERIMENT_DIR"] = settings.store_directory or os.getcwd()
        for name in PASSED_THROUGH:
            value = inferior_env(name)
            if value is not None:
                variables[name] = value
        return variables

    @staticmethod
    def _sampler_wanted(variables):
        """Every data kind from the sampler process (the clock, counters and
        the traced kinds: it writes them all), unless none is on or the user
        chose a clock source inside the program.  The launcher's rule too
        (gdbcol_launch.c): a kind's variable is off when empty, 0 or off."""
        any_on = any(variables.get(setting, "") not in ("", "0", "off") for setting in (kind.setting for kind in native.data_kinds()))
        return any_on and variables.get("GDBCOL_CLOCK_SOURCE", "process") in ("", "process")

    def _sampled_outside(self, pid, variables, starting):
        """True when the sampler process records (STARTING: the one begun
        ahead of the calls, or None)."""
        if not self._sampler_wanted(variables):
            return False
        # Where the kernel refuses perf events the program's threads sample
        # themselves, with a timer signal that must never stop it in GDB.
        for sig in runtime_signals():
            self._saved_signals.update(signal_states(sig))
        handle_signals(runtime_signals(), (False, False, True))
        if starting.go() if starting else sampler_process.start(self.runtime_path, pid, variables):
            return True
        why = read_status(variables["GDBCOL_STATUS_FILE"]).get("detail") or "it did not start"
        say("collector: sampling from outside process %d failed (%s); the runtime samples inside it "
                  "instead.\n" % (pid, why))
        return False

    def _load_runtime(self, calls):
        dlopen = native.process_symbol(calls.pid, calls.libc_path, "dlopen")
        flags = RTLD_NOW
        if not dlopen:
            dlopen = native.process_symbol(calls.pid, calls.libc_path, "__libc_dlopen_mode")
            flags = RTLD_NOW | RTLD_DLOPEN_INTERNAL
        if not dlopen:
            raise gdb.GdbError("collector enable: neither dlopen nor __libc_dlopen_mode is exported by %s"
                               % calls.libc_path)
        path = calls.string(os.path.realpath(self.runtime_path))
        handle = int(calls.run("((void *(*)(const char *, int))0x%x)((const char *)0x%x, %d)" % (dlopen, path, flags)))
        if handle == 0:
            why = "unknown error"
            dlerror = native.process_symbol(calls.pid, calls.libc_path, "dlerror")
            if dlerror:
                message = calls.run("((char *(*)(void))0x%x)()" % dlerror)
                if int(message):
                    why = message.string()
            raise gdb.GdbError("collector enable: the process could not load %s: %s" % (self.runtime_path, why))

    def _runtime(self, pid, name):
        address = native.process_symbol(pid, self.runtime_path, name)
        if not address:
            raise gdb.GdbError("collector: the runtime loaded in process %d (%s) is another version than this "
                               "GDB's collector and lacks what this command needs; use the GDB plugin of that "
                               "version, or restart the program" % (pid, self.runtime_path))
        return address

    def _calls(self, pid):
        libc, loader = self._check_process(pid)
        return ProcessCalls(pid, [libc, loader], libc, [self.runtime_path])

    def _guarded(self, pid, what, action, status_path=None):
        """Runs ACTION(calls) in a call session; turns a hung call or the
        process's end into a clear error.  WHAT: "loading the runtime"...;
        STATUS_PATH: the status file of the experiment the calls start."""
        if any(thread.is_running() for thread in gdb.selected_inferior().threads()):
            raise gdb.GdbError("collector: process %d is running; %s needs it stopped. Interrupt it first "
                               "(Ctrl-C, or \"interrupt\" after \"continue &\")." % (pid, what))
        try:
            with self._calls(pid) as calls:
                calls.choose_thread()
                outcome = action(calls)
            # The process may end in the session's last call (the clean-up),
            # whose errors are not reported: what it did is incomplete.
            if _process_gone(pid):
                raise gdb.error("the process exited")
            return outcome
        except CallTimeout:
            raise gdb.GdbError(
                "collector: %s did not finish within %.0f s in process %d; GDB interrupted the call and "
                "restored the thread, and the process goes on as before. A thread may hold a lock the call "
                "needs: try again when the process is in a different phase." % (what, CALL_TIMEOUT_S, pid))
        except gdb.error as error:
            if _process_gone(pid):
                begun = read_status(status_path).get("experiment") if status_path else None
                raise gdb.GdbError("collector: process %d exited while GDB was %s; %s." % (
                    pid, what, "no experiment was started" if status_path and not begun else
                    "the experiment it had begun%s is incomplete" % (" (%s)" % begun if begun else "")))
            raise gdb.GdbError("collector: %s failed in process %d: %s" % (what, pid, error))

    def _start_error(self, pid):
        """Why the runtime could not join the sampler process (its
        gdbcol_start_error), or None."""
        address = native.process_symbol(pid, self.runtime_path, "gdbcol_start_error")
        if not address:
            return None
        text = bytes(gdb.selected_inferior().read_memory(address, 400)).split(b"\0", 1)[0]
        return os.fsdecode(text) or None

    def start(self, settings, status_path):
        """Starts an experiment in the live process; returns 0 (started),
        1 (one was already running and goes on) or -1 (start_error, or the
        status file, says why)."""
        pid = live_pid()
        self.start_error = None
        variables = self._settings(settings, status_path)

        self._check_process(pid)  # (a refusal before any sampler process starts)
        loaded = native.process_has_object(pid, self.runtime_path)
        # Not loaded yet: the sampler process sets itself up while the
        # calls load the runtime, and opens its events after them.
        starting = sampler_process.begin(self.runtime_path, pid, variables) \
            if not loaded and self._sampler_wanted(variables) else None

        def action(calls):
            busy = False
            if not loaded:
                # (The runtime needs the C library only: it brings no
                # library of its own into the program; inprocess/
                # unwind_libraries.h.)
                self._load_runtime(calls)
            else:  # an experiment an earlier session left running is adopted as it is
                busy = int(calls.run("((int (*)(void))0x%x)()" % self._runtime(pid, "gdbcol_collecting")))
            if not busy and self._sampled_outside(pid, variables, starting):
                variables["GDBCOL_CLOCK_SOURCE"] = "process"
            elif variables.get("GDBCOL_CLOCK_SOURCE", "") in ("", "process"):
                variables["GDBCOL_CLOCK_SOURCE"] = "inside"
            owner = other_user(pid)
            if not busy and owner and variables["GDBCOL_CLOCK_SOURCE"] != "process":
                # The runtime would write the experiment itself, with the
                # process's rights, into GDB's user's directory and files.
                raise gdb.GdbError(
                    "collector enable: process %d runs as %s, not as GDB's user; sampling from inside it "
                    "(GDBCOL_CLOCK_SOURCE, or the fallback when the sampler process cannot start) would have "
                    "the program write the experiment with that user's rights. Unset GDBCOL_CLOCK_SOURCE to "
                    "record from the sampler process, or run GDB as that user. Nothing was started."
                    % (pid, owner))
            start = self._runtime(pid, "gdbcol_attach_start")
            # One line a setting: a value that is not plain text goes encoded
            # (a newline in a path would end its line).
            text = "".join("%s=%s\n" % (name, encode_value(value)) for name, value in variables.items())
            outcome = int(calls.run("((int (*)(const char *))0x%x)((const char *)0x%x)"
                                    % (start, calls.string(text))))
            if outcome < 0 and variables["GDBCOL_CLOCK_SOURCE"] == "process":
                self.start_error = self._start_error(pid)
                sampler_process.stop(read_status(status_path))
            return outcome

        try:
            return self._guarded(pid, "loading the runtime", action, status_path)
        finally:
            if starting is not None:
                starting.abandon()  # (a sampler told to go is past it)

    def exported_address(self, name):
        """The address of the runtime's exported NAME in the live process, for
        a plain memory read or write (no call); 0 when there is none."""
        pid = live_pid()
        return native.process_symbol(pid, self.runtime_path, name) if pid else 0

    def runtime_loaded(self):
        pid = live_pid()
        return bool(pid) and native.process_has_object(pid, self.runtime_path)

    def call_runtime(self, function, text=None, command=None):
        """Calls the runtime's FUNCTION(void) or FUNCTION(const char *TEXT) in
        the live process, safely (thread choice, watchdog); COMMAND: the
        user's command, for messages (else named after FUNCTION)."""
        pid = live_pid()

        def action(calls):
            address = self._runtime(pid, function)
            if text is None:
                calls.run("((void (*)(void))0x%x)()" % address)
            else:
                calls.run("((void (*)(const char *))0x%x)((const char *)0x%x)" % (address, calls.string(text)))

        # The user's command, never the runtime's function, in messages.
        self._guarded(pid, "\"%s\"" % (command or "collector " + function.replace("gdbcol_", "").replace("_", " ")),
                      action)

    def close(self, status_path):
        """Ends the experiment in the live process (if one is running);
        True when the sampler process closes it (a little later)."""
        pid = live_pid()

        def action(calls):
            close = self._runtime(pid, "gdbcol_close_experiment")
            return int(calls.run("((int (*)(const char *))0x%x)((const char *)0x%x)"
                                 % (close, calls.string(status_path)))) == 2

        closed_outside = self._guarded(pid, "closing the experiment", action)
        # The timers are stopped: the user's own `handle` states come back.
        restore_signal_states(self._saved_signals)
        self._saved_signals = {}
        return closed_outside


def requested_pid():
    """The PID GDB was asked to attach to on its command line (-p, --pid)."""
    try:
        with open("/proc/self/cmdline", "rb") as f:
            args = f.read().decode(errors="replace").split("\0")
    except OSError:
        return None
    for i, arg in enumerate(args):
        for flag in ("-p", "--pid", "-pid"):
            if arg == flag and i + 1 < len(args) and args[i + 1].isdigit():
                return int(args[i + 1])
            if arg.startswith(flag + "=") and arg[len(flag) + 1:].isdigit():
                return int(arg[len(flag) + 1:])
    return None


_pids_seen = set()


def note_live_process(event=None):
    """Remembers every process this GDB session had (new-thread events)."""
    pid = live_pid()
    if pid:
        _pids_seen.add(pid)


def runtime_loaded_in(pid):
    """Whether process PID has the collector's runtime mapped (readable
    /proc/PID/maps: the same user, or root)."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any(line.rstrip().endswith("/libcollector.so") for line in f)
    except OSError:
        return False


def diagnose_failed_attach():
    """When GDB was started with -p PID, never had that process, and the
    process exists, the attach failed: say why the kernel refused it and
    what to change.  None otherwise (then launch mode applies as usual)."""
    reason = failed_attach_reason()
    return reason + " No experiment was started." if reason else None


def failed_attach_reason():
    """diagnose_failed_attach's sentence, without what it meant for
    `collector enable` (`collector status` says it too)."""
    pid = requested_pid()
    if pid is None or pid in _pids_seen or not os.path.exists("/proc/%d" % pid):
        return None
    if proc_status(pid).get("State", "").startswith("Z"):
        # Its main thread exited (pthread_exit) while others run: the kernel
        # refuses to attach to a zombie leader, whatever the permissions (the
        # reasons below would mislead).
        others = len(os.listdir("/proc/%d/task" % pid)) - 1 if os.path.isdir("/proc/%d/task" % pid) else 0
        return ("GDB is not attached to process %d: its main thread has exited%s, and the kernel lets no "
                "debugger attach to a process whose main thread is gone."
                % (pid, " (%d other thread(s) still run)" % others if others > 0 else ""))
    reasons = []
    tracer = proc_status(pid).get("TracerPid", "0")
    if tracer not in ("0", str(os.getpid())):
        name = proc_status(int(tracer)).get("Name", "?")
        reasons.append("it is already traced by process %s (%s), and a process can have only one tracer: "
                       "detach that debugger or tracer first" % (tracer, name))
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            scope = f.read().strip()
        if scope != "0":
            reasons.append("kernel.yama.ptrace_scope is %s (0 lets a user trace any of their own processes: "
                           "sudo sysctl kernel.yama.ptrace_scope=0), or give gdb CAP_SYS_PTRACE" % scope)
    except OSError:
        pass
    owner = proc_status(pid).get("Uid", "").split()
    if owner and os.geteuid() != 0 and owner[0] != str(os.geteuid()):
        reasons.append("it belongs to user id %s: run GDB as that user, or as root" % owner[0])
    if not reasons:
        reasons.append("the kernel refused ptrace (see GDB's message above; CAP_SYS_PTRACE and "
                       "kernel.yama.ptrace_scope decide who may attach)")
    return "GDB is not attached to process %d: %s." % (pid, "; ".join(reasons))
