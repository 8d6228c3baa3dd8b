"""The collector settings a user can change, with their defaults.  They
apply to the next experiment; an active experiment keeps the settings it
started with."""

import os

from . import native, values

# Call-stack depth: the most frames a stack keeps (by default gprofng's
# collector's 256, ER_DEFAULT_STACK_DEPTH; its ceiling ER_MAX_STACK_DEPTH),
# and the environment variables its users set: GPROFNG_MAX_CALL_STACK_DEPTH
# (frames) and dbx's SP_COLLECTOR_STACKBUFSZ ("to support deeper stacks",
# bytes: here the stack copied per sample; a larger copy asked for raises
# the default depth to the ceiling).  Typed settings win over them.
FRAMES_VARIABLE, STACK_BUFFER_VARIABLE = "GPROFNG_MAX_CALL_STACK_DEPTH", "SP_COLLECTOR_STACKBUFSZ"


def frame_limits():
    """(least, most) frames a stack may keep."""
    return native.setting_default("min_frames"), native.setting_default("max_frames")


def default_frames(copy_bytes):
    """The frames a stack keeps where no depth is set: gprofng's default,
    or the ceiling where a stack copy larger than the default's was asked
    for (COPY_BYTES: None for the default)."""
    _, most = frame_limits()
    default_copy = native.stack_copy_limits()[0]
    return most if copy_bytes and copy_bytes > default_copy else native.setting_default("default_frames")
def _no_environment(name):
    return None


def _format_interval(us):
    return "%.3f ms" % (us / 1000.0)


def _format_bytes(count):
    return "%d KiB" % (count // 1024) if count % 1024 == 0 else "%d bytes" % count


def _on_off(flag):
    return "on" if flag else "off"


def counters_problem(canonical):
    """What this version cannot count in a checked counter list, or None:
    no backtracking, attributes or registers (the kernel's software
    counters have none)."""
    for name in canonical.split(",")[0::2]:
        if name.startswith("+") or "~" in name or "/" in name:
            return ("counter %s: backtracking (+), attributes (~) and registers (/) need hardware counters "
                    "this version does not program; give the counter's name alone" % name)
    return None


def default_counters():
    """What `collector hwprofile on` counts without a counter list: cycles
    and instructions where the kernel exposes a hardware PMU, page faults
    where it does not."""
    return "cycles,on,insts,on" if os.path.isdir("/sys/bus/event_source/devices/cpu") else "page-faults,on"


class Settings:
    def __init__(self):
        self.clock_profiling = True
        self.clock_asked = False  # the user set clock profiling (collector profile ...)
        self.clock_interval_us = native.setting_default("clock_us")
        self.stack_bytes = None  # None: the runtime's default copy per sample
        self.max_frames = None  # None: the most (frame_limits), or GPROFNG_MAX_CALL_STACK_DEPTH
        self.offcpu = True  # threads' time off their CPU, by reason (collector profile offcpu)
        self.store_directory = None  # None: the program's working directory
        self.experiment_name = None  # None: the next test.N.er
        self.group = None  # None: no experiment group
        self.sample_periodic = True
        self.sample_period_ms = native.setting_default("sample_period_ms")
        self.limit_mb = native.setting_default("limit_mb")  # 0: no limit
        self.archive = "on"
        self.descendants = "on"
        # The data kinds' settings (the traced on/off kinds from the kinds'
        # table, below); tha: "off" or "deadlock" (data_kinds.py; races are
        # not built yet and refused plainly).
        self.hwprofile = False
        self.hwc_counters = None  # canonical list, None: the default counters
        self.synctrace = False
        self.synctrace_threshold = "calibrate"  # or microseconds as an int
        for kind in on_off_traced_kinds():  # iotrace, heaptrace, ...: on or off, nothing more
            setattr(self, kind.command, False)
        self.tha = "off"

    def effective_sample_period_ms(self):
        """What the runtime gets: 0 means manual sampling."""
        return self.sample_period_ms if self.sample_periodic else 0

    def describe_sampling(self):
        if not self.sample_periodic:
            return "manual (period %.3f s when periodic)" % (self.sample_period_ms / 1000.0)
        return "periodic, every %.3f s" % (self.sample_period_ms / 1000.0)

    def describe_limit(self):
        return "%d MB" % self.limit_mb if self.limit_mb else "none"

    def set_timer(self, value):
        """Parses VALUE; returns the message that reports the effective interval."""
        spec = native.parse_timer(value)
        self.clock_interval_us = spec.interval_us
        self.clock_asked = True
        notes = []
        if spec.raised_to_minimum:
            notes.append("raised to the minimum")
        if spec.rounded_down:
            notes.append("rounded down to the timer resolution")
        suffix = " (%s)" % ", ".join(notes) if notes else ""
        return "Clock-profiling interval set to %s%s." % (_format_interval(spec.interval_us), suffix)

    def set_stack_bytes(self, value):
        """Parses `collector profile stack VALUE`; returns the message."""
        text = value.strip().lower()
        default, least, most = native.stack_copy_limits()
        if text == "default":
            self.stack_bytes = None
            return "Stack copy per sample: the default, %s." % _format_bytes(default)
        number = text[:-1] if text.endswith("k") else text
        if not number.isdigit():
            raise ValueError("\"%s\" is not a size: give bytes (32768), KiB with k (32k), or default" % value)
        size = int(number) * (1024 if text.endswith("k") else 1)
        if size < least or size > most + 8:
            raise ValueError("%s is out of range: from %dk to 64k (the kernel copies at most %d bytes)"
                             % (value, least // 1024, most))
        self.stack_bytes = min(size, most) // 8 * 8
        return "Stack copy per sample: %s (deeper call stacks are cut)." % _format_bytes(self.stack_bytes)

    def set_offcpu(self, value):
        """Parses `collector profile offcpu on|off`; returns the message."""
        text = value.strip().lower()
        if text not in ("on", "off"):
            raise ValueError("\"%s\" is neither on nor off" % value)
        self.offcpu = text == "on"
        if not self.offcpu:
            return "Off-CPU time: not recorded (clock samples show CPU time only)."
        return ("Off-CPU time: recorded with the clock profile, each thread's time waiting for a CPU, asleep, in "
                "I/O or on a lock, with where it waited (gprofng's micro-state metrics; collector report states).")

    def set_max_frames(self, value):
        """Parses `collector profile depth VALUE`; returns the message."""
        text = value.strip().lower()
        least, most = frame_limits()
        if text == "default":
            self.max_frames = None
            return ("Call stacks: up to %d frames (the default; %d where a larger stack copy is set)."
                    % (native.setting_default("default_frames"), most))
        frames = values.whole_number(text, least, most, "The call-stack depth in frames", "400")
        self.max_frames = frames
        return "Call stacks: up to %d frames (deeper ones are cut)." % frames

    def depth_limits(self, environment=_no_environment):
        """(frames, stack copy bytes or None for the runtime's default, where
        each comes from): the typed settings, else the environment
        variables the program is given, else the defaults."""
        frames, frames_from = self.max_frames, "typed"
        least, most = frame_limits()
        if frames is None:
            frames, frames_from = _environment_number(environment, FRAMES_VARIABLE, least, most)
        copy, copy_from = self.stack_bytes, "typed"
        if copy is None:
            _, least, most = native.stack_copy_limits()
            copy, copy_from = _environment_number(environment, STACK_BUFFER_VARIABLE, least, most)
            copy = copy // 8 * 8 if copy else None
        return (frames or default_frames(copy), frames_from or "default"), (copy, copy_from or "default")

    def set_directory(self, directory):
        path = os.path.abspath(os.path.expanduser(directory))
        problem = values.writable_directory_problem(path)
        if problem:
            raise ValueError("cannot store experiments there: " + problem)
        self.store_directory = path

    def experiment_directory(self):
        """Where the next experiment goes as far as GDB can tell: the store
        directory, else GDB's working directory (which the program gets)."""
        return self.store_directory or os.getcwd()

    def set_experiment_name(self, name):
        problem = native.check_experiment_name(name) or self._taken_name_problem(name)
        if problem:
            raise ValueError(problem)
        self.experiment_name = name

    def fixed_name_taken(self):
        """What stops the next run from recording under its fixed name (it
        exists now), or None; None without a fixed name."""
        return self._taken_name_problem(self.experiment_name) if self.experiment_name else None

    def _taken_name_problem(self, name):
        directory = self.experiment_directory()
        if os.path.isdir(directory) and native.next_experiment_name(directory, name) is None:
            return ("%s already exists in %s; choose another name, or a numbered one (NAME.1.er) that moves on "
                    "to the next free number" % (name, directory))
        return None

    def group_path(self, name=None):
        """The group file as the runtime will open it: a relative name is in
        the experiment directory."""
        name = os.path.expanduser(name or self.group)
        return name if os.path.isabs(name) else os.path.join(self.experiment_directory(), name)

    def set_group(self, name):
        problem = native.check_group_name(name) or values.group_file_problem(self.group_path(name))
        if problem:
            raise ValueError(problem)
        self.group = os.path.expanduser(name)

    def clock_for_experiment(self):
        """Clock profiling in the next experiment: asking for counters
        without asking for clock profiling turns it off (collector-commands.md)."""
        return self.clock_profiling and (self.clock_asked or not self.hwprofile)

    def problems_before_run(self):
        """What would make the next experiment fail, checked again at
        `collector enable` (things may have changed since they were set)."""
        problems = []
        if self.store_directory:
            problem = values.writable_directory_problem(self.store_directory)
            if problem:
                problems.append("cannot store experiments there: " + problem)
        if self.experiment_name and not problems:
            problem = self._taken_name_problem(self.experiment_name)
            if problem:
                problems.append(problem)
        if self.group:
            problem = values.group_file_problem(self.group_path())
            if problem:
                problems.append(problem)
        if self.hwprofile:
            problem = counters_problem(self.hwc_counters or default_counters())
            if problem:
                problems.append(problem)

        return problems

    def named_experiment(self):
        """The name asked for, or the one a group implies (runs.erg: runs.1.er,
        numbered on as taken); None for the next test.N.er."""
        if self.experiment_name:
            return self.experiment_name
        if self.group:
            return native.group_experiment_name(self.group)
        return None

    def runtime_variables(self, status_path, environment=_no_environment):
        """The GDBCOL_* settings the runtime reads (libcollector/config.c), in
        the environment at launch or as text when attaching.  ENVIRONMENT:
        the program's variables by name (GPROFNG_MAX_CALL_STACK_DEPTH,
        SP_COLLECTOR_STACKBUFSZ)."""
        (frames, _), (copy, _) = self.depth_limits(environment)
        return {
            "GDBCOL_MAX_FRAMES": str(frames),
            "GDBCOL_EXPERIMENT_DIR": self.store_directory,
            "GDBCOL_EXPERIMENT_NAME": self.experiment_name,
            "GDBCOL_STATUS_FILE": status_path,
            "GDBCOL_SAMPLE_PERIOD_MS": str(self.effective_sample_period_ms()),
            "GDBCOL_LIMIT_MB": str(self.limit_mb),
            "GDBCOL_ARCHIVE": self.archive,
            "GDBCOL_DESCENDANTS": self.descendants,
            "GDBCOL_GROUP": self.group,
            "GDBCOL_STACK_BYTES": str(copy) if copy else "",
            "GDBCOL_OFFCPU": "on" if self.offcpu and self.clock_for_experiment() else "off",
            "GDBCOL_HWC_NATIVE": native.hwc_native_list(self.hwc_counters or default_counters())
            if self.hwprofile else "",
        } | self._data_kind_variables()

    def _data_kind_variables(self):
        """Each data kind's setting, under the name the table gives it."""
        values = {
            "profile": str(self.clock_interval_us if self.clock_for_experiment() else 0),
            "synctrace": str(self.synctrace_threshold) if self.synctrace else "off",
            "hwprofile": (self.hwc_counters or default_counters()) if self.hwprofile else "",
            "deadlocktrace": "on" if "deadlock" in self.tha.split(",") else "off",
            "racetrace": "on" if "race" in self.tha.split(",") else "off",
        }
        values.update({kind.command: "on" if getattr(self, kind.command) else "off" for kind in on_off_traced_kinds()})
        return {kind.setting: values[kind.name if kind.command == "tha" else kind.command]
                for kind in native.data_kinds()}

    def describe(self, environment=_no_environment):
        """`collector show`: every setting, one a line."""
        (frames, frames_from), (copy, copy_from) = self.depth_limits(environment)
        origin = {"typed": "", "default": " (default)", FRAMES_VARIABLE: " (from %s)" % FRAMES_VARIABLE,
                  STACK_BUFFER_VARIABLE: " (from %s)" % STACK_BUFFER_VARIABLE}
        interval = _format_interval(self.clock_interval_us)
        directory = self.store_directory or "(the program's working directory)"
        if self.experiment_name:
            name = self.experiment_name
        elif self.group:
            name = "(next %s, from the group)" % self.named_experiment().replace(".1.er", ".N.er")
        else:
            name = "(next test.N.er)"
        if isinstance(self.synctrace_threshold, int):
            threshold = "%d us" % self.synctrace_threshold
        else:
            threshold = self.synctrace_threshold
        return "\n".join(
            [
                "Clock profiling:        %s, interval %s%s"
                % (_on_off(self.clock_profiling), interval,
                   " (off in the next experiment: counters were asked for without it)"
                   if self.clock_profiling and not self.clock_for_experiment() else ""),
                "Stack copy:             %s per sample%s"
                % (_format_bytes(copy or native.stack_copy_limits()[0]), origin[copy_from]),
                "Call-stack depth:       up to %d frames%s" % (frames, origin[frames_from]),
                "Off-CPU time:           %s" % _on_off(self.offcpu),
                "HW counter profiling:   %s, counters %s"
                % (_on_off(self.hwprofile), self.hwc_counters or "(default: %s)" % default_counters()),
                "Sync wait tracing:      %s, threshold %s" % (_on_off(self.synctrace), threshold),
            ] + [
                "%-24s%s" % (kind.title + ":", _on_off(getattr(self, kind.command))) for kind in on_off_traced_kinds()
            ] + [
                "Thread analyzer (tha):  %s" % describe_tha(self.tha),
                "Sample points:          %s" % self.describe_sampling(),
                "Data limit:             %s" % self.describe_limit(),
                "Archive:                %s" % self.archive,
                "Descendants:            %s" % self.descendants,
                "Store directory:        %s" % directory,
                "Experiment name:        %s" % name,
                "Experiment group:       %s" % (self.group or "(none)"),
            ]
        )


def describe_tha(setting):
    """`collector tha`'s SETTING ("race,deadlock,stop") in words."""
    options = setting.split(",")
    parts = []
    if "race" in options:
        parts.append("data races (ThreadSanitizer's, -fsanitize=thread; collector report races%s)"
                     % (", GDB stops at each" if "stop" in options else ""))
    if "deadlock" in options:
        parts.append("deadlock detection (lock orders; potential deadlocks: collector report deadlocks)")
    return " and ".join(parts) or "off"


def on_off_traced_kinds():
    """The traced kinds that are only on or off (synctrace has a threshold
    too): one setting each, named after its subcommand."""
    return [kind for kind in native.data_kinds() if kind.traced and kind.command not in ("synctrace", "tha")]


def _environment_number(environment, name, least, most):
    """(the whole number NAME holds in the program's environment, within
    LEAST..MOST, NAME), or (None, None) when unset or not a number there."""
    text = (environment(name) or "").strip()
    if not text.isdigit():
        return None, None
    return min(max(int(text), least), most), name
