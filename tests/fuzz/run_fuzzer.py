"""A short fuzzing run of the experiment reader (fuzz_reader, libFuzzer
with AddressSanitizer): the seed corpus is experiments recorded now by real
GDB sessions, one of every data kind (clock profiles of a threaded, a
recursive and a stack-churning program; synctrace, iotrace, heaptrace,
counters; descendants; an archive copy whose program is gone since; a
group file), packed with pack_experiment.py, plus every regression input.
A crash fails the test and leaves its input, to be added to
tests/fuzz/regressions/.
    run_fuzzer.py FUZZ_READER SECONDS [CORPUS]
CORPUS: keep the corpus in that directory (seeds are recorded only when it
is empty), for longer runs by hand."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from harness import check, finish, program, run_gdb, workdir  # noqa: E402
from pack_experiment import pack  # noqa: E402

fuzzer, seconds = sys.argv[1], int(sys.argv[2])
work = workdir()
corpus = sys.argv[3] if len(sys.argv) > 3 else os.path.join(work, "corpus")
os.makedirs(corpus, exist_ok=True)

# (name, GDB commands, program and arguments, the .erg the run joins or None)
RUNS = [
    ("clock-threads", ["collector profile timer hi", "collector enable", "run"], [program("split_work"), "0.4", "2"],
     None),
    ("clock-recursive", ["collector enable", "run"], [program("recursive"), "0.5"], None),
    ("clock-samples", ["collector sample period 0.1", "collector enable", "run"], [program("stack_churn"), "0.5"],
     None),
    ("synctrace", ["collector synctrace on", "collector enable", "run"], [program("sync_waits")], None),
    ("iotrace", ["collector iotrace on", "collector enable", "run"], [program("io_activity")], None),
    ("heaptrace", ["collector heaptrace on", "collector enable", "run"], [program("heap_known")], None),
    ("hwcounters", ["collector profile on", "collector hwprofile counter page-faults,100", "collector hwprofile on",
                    "collector enable", "run"], [program("counters"), "pages", "2000", "0.2"], None),
    # Descendants (_f1.er, ... inside the founder) and archive.log.
    ("descendants", ["collector enable", "run"], [program("descendants"), "mix", "20"], None),
    # Copies in archives/ that the reader names from: the program is
    # deleted after the run.
    ("archive-copy", ["collector archive copy", "collector enable", "run"], ["@gone/split_work", "0.2", "1"], None),
    ("group", ["collector store group runs.erg", "collector archive off", "collector enable", "run"],
     [program("split_work"), "0.2", "0"], "runs.erg"),
]


def record(name, commands, args, group):
    cwd = os.path.join(work, name)
    os.mkdir(cwd)
    gone = None
    if args[0].startswith("@"):
        gone = os.path.join(cwd, args[0][1:])
        os.makedirs(os.path.dirname(gone))
        shutil.copy(program(os.path.basename(gone)), gone)
        args = [gone] + args[1:]
    out = run_gdb(commands, args, cwd=cwd, timeout=180)
    if gone is not None:
        os.unlink(gone)
    exp = os.path.join(cwd, "runs.1.er" if group else "test.1.er")
    if not check(os.path.isdir(exp), "seed %s: experiment recorded" % name):
        print(out[-2000:])
        return
    pack(exp, os.path.join(corpus, "seed-" + name), group=os.path.join(cwd, group) if group else None)


if not os.listdir(corpus):
    for run in RUNS:
        record(*run)
regressions = os.path.join(os.path.dirname(__file__), "regressions")
for name in os.listdir(regressions):
    shutil.copy(os.path.join(regressions, name), corpus)

artifacts = os.path.join(work, "crashes") + "/"
os.mkdir(artifacts)
# -close_fd_mask=1: what er-dump prints (the target runs it) is not wanted.
result = subprocess.run([fuzzer, "-max_total_time=%d" % seconds, "-timeout=10", "-rss_limit_mb=4096",
                         "-close_fd_mask=1", "-dict=" + os.path.join(os.path.dirname(__file__), "reader.dict"),
                         "-artifact_prefix=" + artifacts, "-print_final_stats=1", corpus],
                        capture_output=True, text=True, timeout=seconds + 300)
print(result.stderr[-4000:])
found = os.listdir(artifacts)
check(result.returncode == 0 and not found,
      "%d s of fuzzing found no crash, hang or leak (exit %d%s)" %
      (seconds, result.returncode, "; inputs kept in " + artifacts + ": " + ", ".join(found) if found else ""))
if result.returncode == 0 and not found:
    shutil.rmtree(work, ignore_errors=True)
finish()
