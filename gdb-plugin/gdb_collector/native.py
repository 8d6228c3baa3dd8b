"""ctypes bindings to libgdbcol-shared.so: the naming and parsing rules
live in C (experiment/), shared with the runtime and unit-tested there, so
the plugin never re-implements them."""

import collections
import ctypes
import os

_lib = None


class TimerSpec:
    """An effective clock-profiling interval and how it was derived."""

    def __init__(self, interval_us, raised, rounded):
        self.interval_us = interval_us
        self.raised_to_minimum = raised
        self.rounded_down = rounded


DataKind = collections.namedtuple("DataKind", "name setting command title one many traced")


def load(path):
    global _lib
    lib = ctypes.CDLL(path)
    lib.gdbcol_parse_timer.argtypes = [
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_long),
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_char_p,
        ctypes.c_int,
    ]
    lib.gdbcol_check_experiment_name.argtypes = [ctypes.c_char_p]
    lib.gdbcol_check_experiment_name.restype = ctypes.c_char_p
    lib.gdbcol_next_experiment_name.argtypes = [
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_int,
    ]
    lib.gdbcol_process_kind.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_process_has_object.argtypes = [ctypes.c_int, ctypes.c_char_p]
    lib.gdbcol_process_symbol.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p]
    lib.gdbcol_process_symbol.restype = ctypes.c_uint64
    lib.gdbcol_check_group_name.argtypes = [ctypes.c_char_p]
    lib.gdbcol_check_descendants.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_check_group_name.restype = ctypes.c_char_p
    lib.gdbcol_parse_hwc.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_group_experiment_name.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_parse_archive_mode.argtypes = [ctypes.c_char_p]
    lib.gdbcol_hwc_event.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_hwc_native_list.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_hwc_sources.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_hwc_sources.restype = None
    lib.gdbcol_hwc_preset.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_data_kind.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    lib.gdbcol_mpi_name.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_stop_label_prefix.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.gdbcol_layout.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_long)]
    lib.gdbcol_setting_default.argtypes = [ctypes.c_char_p]
    lib.gdbcol_setting_default.restype = ctypes.c_long
    lib.gdbcol_watchdog_start.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.gdbcol_walk_begin.argtypes = [ctypes.c_int]
    lib.gdbcol_walk_thread.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
    lib.gdbcol_walk_end.restype = None
    lib.gdbcol_thread_stack_pointer.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint64)]
    lib.gdbcol_set_thread_stack_pointer.argtypes = [ctypes.c_int, ctypes.c_uint64]
    lib.gdbcol_xstate_writes_completed.restype = ctypes.c_uint
    _lib = lib
    # GDB 13 on CPUs with AMX: its inferior calls fail without this
    # (native/xstate_writes.c); nothing changes where GDB's writes succeed.
    lib.gdbcol_complete_xstate_writes()


def xstate_writes_completed():
    """How many of GDB's register-state writes the plugin completed."""
    return _lib.gdbcol_xstate_writes_completed()


def stack_copy_limits():
    """(default, least, most) bytes of stack a clock sample copies."""
    values = [ctypes.c_long() for _ in range(3)]
    _lib.gdbcol_stack_copy_limits(*[ctypes.byref(v) for v in values])
    return tuple(v.value for v in values)


def parse_timer(value):
    """Returns a TimerSpec, or raises ValueError with the C parser's message."""
    interval = ctypes.c_long()
    flags = ctypes.c_int()
    err = ctypes.create_string_buffer(512)
    if _lib.gdbcol_parse_timer(value.encode(), interval, flags, err, len(err)) != 0:
        raise ValueError(err.value.decode())
    return TimerSpec(interval.value, bool(flags.value & 1), bool(flags.value & 2))


def check_experiment_name(name):
    """None, or why NAME cannot be an experiment name."""
    problem = _lib.gdbcol_check_experiment_name(name.encode())
    return problem.decode() if problem else None


def check_group_name(name):
    """None, or why NAME cannot name an experiment group."""
    problem = _lib.gdbcol_check_group_name(name.encode())
    return problem.decode() if problem else None


def group_experiment_name(group):
    """The experiment name a group implies (runs.erg: runs.1.er)."""
    out = ctypes.create_string_buffer(4096)
    _lib.gdbcol_group_experiment_name(group.encode(), out, len(out))
    return out.value.decode()


class MachineLacks(ValueError):
    """What was asked for is right, and this machine cannot do it (a
    hardware counter where no PMU is exposed)."""


def parse_counters(text):
    """The canonical counter list of `collector hwprofile counter TEXT`, or
    ValueError with the C parser's message (MachineLacks where the machine
    has no hardware PMU for a hardware counter)."""
    out = ctypes.create_string_buffer(4096)
    err = ctypes.create_string_buffer(1024)
    rc = _lib.gdbcol_parse_hwc(text.encode(), out, len(out), err, len(err))
    if rc == -2:  # ER_HWC_NO_PMU
        raise MachineLacks(err.value.decode())
    if rc < 0:
        raise ValueError(err.value.decode())
    return out.value.decode()


def hwc_events():
    """The counters this machine offers: (name, alias_of, hardware, default interval, description)."""
    events, out = [], ctypes.create_string_buffer(512)
    while _lib.gdbcol_hwc_event(len(events), out, len(out)) == 0:
        name, alias_of, hardware, interval, description = out.value.decode().split("|", 4)
        events.append((name, alias_of, hardware == "1", int(interval), description))
    return events


def hwc_native_list(canonical):
    """The perf encodings of the PAPI and libpfm4 names in a checked counter
    list, as the runtime reads them ("" when it has none)."""
    out = ctypes.create_string_buffer(4096)
    if _lib.gdbcol_hwc_native_list(canonical.encode(), out, len(out)) != 0:
        return ""
    return out.value.decode()


def hwc_check_access(canonical):
    """None when this user may count every counter of a checked list here,
    else why not and how to (the kernel asked, as the sampler will open them)."""
    err = ctypes.create_string_buffer(1024)
    if _lib.gdbcol_hwc_check_access(canonical.encode(), err, len(err)) != 0:
        return err.value.decode(errors="replace")
    return None


def perf_access_hint(needed_level):
    """How this user gets perf events up to kernel.perf_event_paranoid
    NEEDED_LEVEL here: the sysctl, or what else refuses them."""
    out = ctypes.create_string_buffer(256)
    _lib.gdbcol_perf_access_hint(needed_level, out, len(out))
    return out.value.decode(errors="replace")


def mark_abandoned(path, why):
    """Marks the end of the experiment at PATH whose writer died: (1 marked,
    0 had its end, negative errno; seconds from the run to its last
    record)."""
    ended_at = ctypes.c_double(0.0)
    rc = _lib.gdbcol_mark_abandoned(os.fsencode(path), why.encode(), ctypes.byref(ended_at))
    return rc, ended_at.value


def hwc_sources():
    """One line on PAPI's and libpfm4's state on this machine."""
    out = ctypes.create_string_buffer(1024)
    _lib.gdbcol_hwc_sources(out, len(out))
    return out.value.decode(errors="replace")


def hwc_presets():
    """The PAPI presets this machine can sample: [(name, description)]."""
    presets, out = [], ctypes.create_string_buffer(512)
    while _lib.gdbcol_hwc_preset(len(presets), out, len(out)) == 0:
        presets.append(tuple(out.value.decode(errors="replace").split("|", 1)))
    return presets


def descendants_problem(text):
    """None when TEXT is a valid `collector descendants` value, else why not."""
    err = ctypes.create_string_buffer(400)
    if _lib.gdbcol_check_descendants(text.encode(), err, len(err)) == 0:
        return None
    return err.value.decode(errors="replace")


def valid_archive_mode(text):
    return _lib.gdbcol_parse_archive_mode(text.encode()) >= 0


def next_experiment_name(directory, name):
    """The name the next experiment would get in DIRECTORY, or None."""
    out = ctypes.create_string_buffer(4096)
    rc = _lib.gdbcol_next_experiment_name(directory.encode(), (name or "").encode(), out, len(out))
    return out.value.decode() if rc == 0 else None


# Process kinds (gdb-plugin/native/process_inspect.h).
PROCESS_GLIBC, PROCESS_STATIC, PROCESS_MUSL, PROCESS_OTHER_LIBC, PROCESS_UNREADABLE = range(5)


def process_kind(pid):
    """(kind, glibc's path or "", the dynamic loader's path or "")."""
    libc = ctypes.create_string_buffer(4096)
    loader = ctypes.create_string_buffer(4096)
    kind = _lib.gdbcol_process_kind(pid, libc, loader, 4096)
    return kind, libc.value.decode(), loader.value.decode()


def process_has_object(pid, path):
    return bool(_lib.gdbcol_process_has_object(pid, path.encode()))


def process_symbol(pid, object_path, name):
    """Run-time address of NAME exported by OBJECT_PATH in PID, or 0."""
    return _lib.gdbcol_process_symbol(pid, object_path.encode(), name.encode())


class ThreadWalks:
    """Walks of a stopped process's threads by the C library (native/
    thread_walk.c), not by GDB's unwinder: `with ThreadWalks(pid) as walks:
    walks.frames(tid)`."""

    MAX_FRAMES = 256

    def __init__(self, pid):
        self.ready = _lib.gdbcol_walk_begin(pid) == 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _lib.gdbcol_walk_end()
        return False

    def frames(self, tid):
        """Thread TID's code addresses, leaf first, then each caller's call
        site; None where the walk could not reach its outermost frame."""
        if not self.ready:
            return None
        pcs = (ctypes.c_uint64 * self.MAX_FRAMES)()
        count = _lib.gdbcol_walk_thread(tid, pcs, self.MAX_FRAMES)
        return list(pcs[:count]) if count > 0 else None


def thread_stack_pointer(tid):
    """Stopped thread TID's stack pointer, read by its tracer (GDB's thread
    that runs the plugin), or None."""
    sp = ctypes.c_uint64()
    return sp.value if _lib.gdbcol_thread_stack_pointer(tid, ctypes.byref(sp)) == 0 else None


def set_thread_stack_pointer(tid, sp):
    """Writes it (GDB must then read the registers again); True when done."""
    return _lib.gdbcol_set_thread_stack_pointer(tid, sp) == 0


def watchdog_start(pid, tid, signal_number, timeout_s):
    """Arms the C watchdog (gdb-plugin/native/call_watchdog.c): it runs while
    GDB holds Python's lock during an inferior call."""
    return _lib.gdbcol_watchdog_start(pid, tid, signal_number, int(timeout_s * 1000)) == 0


def watchdog_stop():
    """Disarms it; True when it had fired."""
    return bool(_lib.gdbcol_watchdog_stop())


def data_kinds():
    """The experiment's data kinds, from the table the writer and the reader
    use: DataKind(name: its <profile> name, setting: the runtime's
    variable, command: the collector subcommand, title: what messages call
    it, one, many: what its events are called ("" for the clock), traced:
    recorded by the runtime's wrappers, on or off)."""
    kinds, width = [], 64
    while True:
        names = ctypes.create_string_buffer(width * 6)
        traced = ctypes.c_int()
        if _lib.gdbcol_data_kind(len(kinds), names, width, ctypes.byref(traced)) != 0:
            return kinds
        fields = [names.raw[i * width:(i + 1) * width].split(b"\0", 1)[0].decode() for i in range(6)]
        kinds.append(DataKind(*fields, bool(traced.value)))

_layout = None


def mpi_names():
    """How MPI ranks' experiments are named, from er_naming.h: (the rank
    experiments' prefix "M_r", the job's group file "ranks.erg", the
    environment variables a rank is read from, in order, (Slurm's task
    number, its step's task count): a rank where none of those is set and
    the step has more than one task)."""
    names, out = [], ctypes.create_string_buffer(64)
    while _lib.gdbcol_mpi_name(len(names), out, len(out)) == 0:
        names.append(out.value.decode())
    return names[0], names[1], tuple(names[4:]), (names[2], names[3])


def stop_label_prefix():
    """What a GDB stop's sample point label begins with (er_gdb_layout.h)."""
    out = ctypes.create_string_buffer(64)
    _lib.gdbcol_stop_label_prefix(out, len(out))
    return out.value.decode()


def timer_signal():
    """The signal the runtime's in-process clock source uses (er_gdb_layout.h)."""
    return _lib.gdbcol_timer_signal()


def layout():
    """Where GDB reads and writes the runtime's memory and the control page
    directly: {"control.debugger_stops": offset, "progress.size": bytes,
    ...}, from the C structs (er_gdb_layout.h)."""
    global _layout
    if _layout is None:
        entries, name, offset = {}, ctypes.create_string_buffer(64), ctypes.c_long()
        while _lib.gdbcol_layout(len(entries), name, len(name), ctypes.byref(offset)) == 0:
            entries[name.value.decode()] = offset.value
        _layout = entries
    return _layout


def setting_default(name):
    """The runtime's default for NAME ("limit_mb", "sample_period_ms",
    "clock_us"; "max_frames", the deepest stack; "default_frames";
    "min_frames"), from the C constants (er_defaults.h, er_timer_spec.h,
    er_format.h)."""
    value = _lib.gdbcol_setting_default(name.encode())
    if value < 0:
        raise ValueError("no default for " + name)
    return value
