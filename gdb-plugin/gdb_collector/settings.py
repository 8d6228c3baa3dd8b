"""The collector settings a user can change, with their defaults.  They
apply to the next experiment; an active experiment keeps the settings it
started with."""

import os

from . import native


def _format_interval(us):
    return "%.3f ms" % (us / 1000.0)


class Settings:
    def __init__(self):
        self.clock_profiling = True
        self.clock_interval_us = 10007  # ER_TIMER_ON_US
        self.store_directory = None  # None: the program's working directory
        self.experiment_name = None  # None: the next test.N.er
        self.sample_periodic = True
        self.sample_period_ms = 1000

    def effective_sample_period_ms(self):
        """What the runtime gets: 0 means manual sampling."""
        return self.sample_period_ms if self.sample_periodic else 0

    def describe_sampling(self):
        if not self.sample_periodic:
            return "manual (period %.3f s when periodic)" % (self.sample_period_ms / 1000.0)
        return "periodic, every %.3f s" % (self.sample_period_ms / 1000.0)

    def set_timer(self, value):
        """Parses VALUE; returns the message that reports the effective interval."""
        spec = native.parse_timer(value)
        self.clock_interval_us = spec.interval_us
        notes = []
        if spec.raised_to_minimum:
            notes.append("raised to the minimum")
        if spec.rounded_down:
            notes.append("rounded down to the timer resolution")
        suffix = " (%s)" % ", ".join(notes) if notes else ""
        return "Clock-profiling interval set to %s%s." % (_format_interval(spec.interval_us), suffix)

    def set_directory(self, directory):
        path = os.path.abspath(os.path.expanduser(directory))
        if not os.path.isdir(path):
            raise ValueError("%s is not a directory" % path)
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError("cannot create experiments in %s: permission denied" % path)
        self.store_directory = path

    def set_experiment_name(self, name):
        problem = native.check_experiment_name(name)
        if problem:
            raise ValueError(problem)
        self.experiment_name = name

    def describe(self):
        """`collector show`: every setting, one a line."""
        interval = _format_interval(self.clock_interval_us)
        directory = self.store_directory or "(the program's working directory)"
        name = self.experiment_name or "(next test.N.er)"
        return "\n".join(
            [
                "Clock profiling:        %s, interval %s"
                % ("on" if self.clock_profiling else "off", interval),
                "Store directory:        %s" % directory,
                "Experiment name:        %s" % name,
                "Sample points:          %s" % self.describe_sampling(),
            ]
        )
