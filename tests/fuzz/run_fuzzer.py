"""A short fuzzing run of the experiment reader (fuzz_reader, libFuzzer
with AddressSanitizer): the seed corpus is experiments recorded now by real
GDB sessions (a threaded program, a recursive one, a program that loads a
library), packed with pack_experiment.py, plus every regression input.
A crash fails the test and leaves its input, to be added to
tests/fuzz/regressions/.
    run_fuzzer.py FUZZ_READER SECONDS"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from harness import check, finish, program, run_gdb, workdir  # noqa: E402
from pack_experiment import pack  # noqa: E402

fuzzer, seconds = sys.argv[1], int(sys.argv[2])
work = workdir()
corpus = os.path.join(work, "corpus")
os.mkdir(corpus)
runs = [(["collector profile timer hi", "collector enable", "run"], [program("split_work"), "0.4", "2"]),
        (["collector enable", "run"], [program("recursive"), "0.5"]),
        (["collector sample period 0.1", "collector enable", "run"], [program("stack_churn"), "0.5"])]
for i, (commands, args) in enumerate(runs):
    run_gdb(commands, args, cwd=work)
    exp = os.path.join(work, "test.%d.er" % (i + 1))
    check(os.path.isdir(exp), "seed experiment %s recorded" % exp)
    if os.path.isdir(exp):
        pack(exp, os.path.join(corpus, "seed-%d" % i))
regressions = os.path.join(os.path.dirname(__file__), "regressions")
for name in os.listdir(regressions):
    shutil.copy(os.path.join(regressions, name), corpus)

artifacts = os.path.join(work, "crashes") + "/"
os.mkdir(artifacts)
result = subprocess.run([fuzzer, "-max_total_time=%d" % seconds, "-timeout=10", "-rss_limit_mb=4096",
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
