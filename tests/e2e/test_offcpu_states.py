"""Off-CPU time (issue 30, `collector profile offcpu on`): offcpu_mix.c's
main thread computes, sleeps, waits on a pipe and waits on a mutex, about
a second each, and measures each phase itself.  gprofng's micro-state
metrics hold each phase where it happened (compute_phase's User CPU,
sleep_phase's and pipe_phase's Sleep, lock_phase's User Lock) and our
`collector report states` has them by reason (On CPU, Sleep, I/O, Lock),
each within 10 % (+ two clock periods: a phase's ticks are its time
crossing the sampling grid); main's inclusive Total Thread Time is the
program's own wall time within 5 %.  At launch, and after gdb -p (the
program waits, then runs its phases).  Where the kernel refuses samples at
a context switch (an ordinary user at perf_event_paranoid >= 2), each
thread's time is still split by reason, the waits without their stack,
and GDB's closing line says so and how to get them.  The HTML report's
timeline shows both threads with those states, in headless Chromium.
server_waits.c (threads that mostly wait: workers on a condition
variable, a listener in read()): each kind of thread's time in its state
against the threads' own clocks, at launch and after gdb -p (threads
waiting since before the attach counted from it)."""

import os
import re
import shutil
import subprocess

import harness
from harness import (STATE_COLUMNS, attach_then_go, check, cleanup, finish, gprofng_rows, gprofng_text,
                     offcpu_read_note, offcpu_stacks_here, perf_event_paranoid, perf_events_refused, program,
                     run_gdb, shared_workdir, skip_part, states_rows, unprivileged_prefix, wait_closed,
                     yama_ptrace_scope)

PROGRAM = program("offcpu_mix")
TICK = 0.010
COLUMNS = len(STATE_COLUMNS)
METRICS = "i.total:i.user:i.system:i.lock:i.sleep:i.wait"


def truth_of(output):
    m = re.search(r"compute=([0-9.]+) cpu=([0-9.]+) sleep=([0-9.]+) pipe=([0-9.]+) lock=([0-9.]+) wall=([0-9.]+) "
                  r"since_exec=([0-9.]+)", output)
    return None if m is None else dict(zip(("compute", "cpu", "sleep", "pipe", "lock", "wall", "since_exec"),
                                           (float(x) for x in m.groups())))


def near(value, truth, share=0.10):
    return abs(value - truth) <= share * truth + 2 * TICK


def check_with_stacks(exp, truth, label, prefix=()):
    """PREFIX: the run was another user's.  Where the kernel gives no
    sample at a switch, a thread preempted (runnable, waiting for a CPU)
    has no stack: the compute phase's time off its CPU (its wall time less
    its CPU time, as the program measured it; seconds on a busy machine)
    is then Wait CPU outside main."""
    preempted = 0.0 if preempted_with_stack(prefix) else truth["compute"] - truth["cpu"]
    main_wall = truth["wall"] - preempted
    rows = gprofng_rows(gprofng_text(exp, "-metrics", METRICS, "-functions"))
    print(gprofng_text(exp, "-metrics", METRICS, "-functions"))
    get = lambda name, col: rows.get(name, [0] * 6)[col]
    check(near(get("compute_phase", 1), truth["cpu"]),
          "%s: gprofng: compute_phase's User CPU %.3f s, its own CPU %.3f s" % (label, get("compute_phase", 1),
                                                                             truth["cpu"]))
    check(near(get("sleep_phase", 4), truth["sleep"]) and get("sleep_phase", 1) < 2 * TICK,
          "%s: gprofng: sleep_phase's Sleep %.3f s, it slept %.3f s" % (label, get("sleep_phase", 4), truth["sleep"]))
    check(near(get("pipe_phase", 4), truth["pipe"]),
          "%s: gprofng: pipe_phase's Sleep (gprofng has no I/O state) %.3f s, it waited %.3f s"
          % (label, get("pipe_phase", 4), truth["pipe"]))
    check(near(get("lock_phase", 3), truth["lock"]),
          "%s: gprofng: lock_phase's User Lock %.3f s, it waited %.3f s" % (label, get("lock_phase", 3), truth["lock"]))
    check(near(get("main", 0), main_wall, 0.05),
          "%s: gprofng: main's Total Thread Time %.3f s, the program's wall time %.3f s less %.3f s preempted "
          "without a stack" % (label, get("main", 0), truth["wall"], preempted))
    # (the host's steal during the run is in the program's wall time less
    # its CPU time, but the kernel saw the thread running then: no wait)
    waited = max(0.0, preempted - harness.LAST_RUN_STEAL)
    check(get("<Total>", 5) >= waited * 0.9 - 2 * TICK,
          "%s: gprofng: Wait CPU %.3f s, at least the compute phase's %.3f s preempted without a stack, less the "
          "host's %.3f s of steal" % (label, get("<Total>", 5), preempted, harness.LAST_RUN_STEAL))
    ours, _ = states_rows(exp)
    row = lambda name: ours.get(name, [0] * COLUMNS)
    check(near(row("compute_phase")[1], truth["cpu"]) and near(row("sleep_phase")[3], truth["sleep"]) and
          near(row("pipe_phase")[4], truth["pipe"]) and near(row("lock_phase")[5], truth["lock"]),
          "%s: collector report states: compute_phase on CPU %.3f, sleep_phase asleep %.3f, pipe_phase in I/O "
          "%.3f, lock_phase on a lock %.3f (truth %.3f %.3f %.3f %.3f)"
          % (label, row("compute_phase")[1], row("sleep_phase")[3], row("pipe_phase")[4], row("lock_phase")[5],
             truth["cpu"], truth["sleep"], truth["pipe"], truth["lock"]))
    check(near(row("main")[0], main_wall, 0.05) and near(row("helper")[3], 2 * 1.0),
          "%s: main's wall time %.3f s (the program's %.3f s less %.3f s preempted without a stack); the helper "
          "thread asleep %.3f s (2 phases)" % (label, row("main")[0], truth["wall"], preempted, row("helper")[3]))


def preempted_with_stack(prefix=()):
    """Whether time waiting for a CPU has a stack: the kernel's sample at
    the switch; where perf events are refused (measured from /proc), the
    thread's newest clock sample's."""
    return perf_events_refused() or offcpu_stacks_here(prefix, short_waits=True)


READ_NOTE = offcpu_read_note()
NO_STACKS_NOTE = "off-CPU time recorded without the stacks where threads waited"


def check_without_stacks(exp, out, truth, label, note):
    check(note in out, "%s: GDB's closing line says the waits have no stack, and why (%s)" % (label, note))
    _, threads = states_rows(exp)
    main = max(threads, key=lambda r: r[0]) if threads else [0] * COLUMNS
    waited = truth["sleep"] + truth["pipe"] + truth["lock"]
    # Without stacks the thread's time before main (the dynamic linker,
    # stopped by GDB as libraries load) is not told from the rest: the
    # program's time since its exec, less its time from main, more (a
    # loaded machine: 0.73 s where a fixed half second was allowed).
    startup = max(0.0, truth["since_exec"] - truth["wall"]) + 0.02
    check(near(main[1], truth["cpu"]) and waited * 0.9 <= main[6] <= waited * 1.1 + startup and
          truth["wall"] * 0.95 <= main[0] <= truth["wall"] * 1.05 + startup,
          "%s: the main thread: on CPU %.3f s (its CPU %.3f), blocked %.3f s (its waits %.3f), wall %.3f s "
          "(the program's %.3f from main; its start under GDB is blocked time too)" % (label, main[1], truth["cpu"], main[6], waited, main[0], truth["wall"]))


def check_timeline(exp, label):
    """The HTML report's timeline, rendered by headless Chromium: one track
    per thread (the main thread and the helper), spans of each state the
    program went through, and the axis its script writes."""
    page = os.path.join(os.path.dirname(exp), "timeline.html")
    out = run_gdb(["collector report %s html %s" % (exp, page)], ["/bin/true"], os.path.dirname(exp))
    print(out)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        check(False, "headless Chromium is not installed (.ci/install-deps installs it)")
        return
    base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--user-data-dir=" + os.path.join(os.path.dirname(exp), "chromium-profile")]
    dom = subprocess.run(base + ["--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120).stdout
    tracks = re.findall(r'<g class="track" data-thread="(\d+)">', dom)
    states = set(re.findall(r"<title>at [0-9.]+ s, ([a-zA-Z /()]+) for", dom))
    ticks = re.findall(r'<text [^>]*class="tick"[^>]*>([0-9.]+) s</text>', dom)
    check(len(tracks) == 2 and {"on a CPU", "sleeping", "in I/O", "waiting on a lock"} <= states and len(ticks) == 11,
          "%s: the HTML timeline in headless Chromium: %d track(s), states %s, %d axis label(s) from its script"
          % (label, len(tracks), sorted(states), len(ticks)))
    # Zoomed to the run's middle half in a 1400-pixel window: the lanes
    # take the box's width (they were 1000 whatever the page), the axis'
    # labels span them and name the range in view (placed on a width that
    # grew with the zoom, they named times the lanes did not show).
    dom = subprocess.run(base + ["--window-size=1400,900", "--dump-dom", "file://" + page + "#zoom=0.25,0.5"],
                         capture_output=True, text=True, timeout=120).stdout
    lanes = re.search(r'<svg id="lanes" [^>]*width="([0-9.]+)"', dom)
    duration = re.search(r'data-duration="([0-9.]+)"', dom)
    placed = [(float(x), float(v)) for x, v in re.findall(r'<text x="([0-9.]+)"[^>]*class="tick"[^>]*>([0-9.]+) s</text>',
                                                          dom)]
    ok = lanes is not None and duration is not None and len(placed) == 11
    if ok:
        width, seconds = float(lanes.group(1)), float(duration.group(1)) / 1e9
        ok = (width > 1000 and placed[0][0] == 0 and abs(placed[-1][0] - width) < 0.01 and
              abs(placed[0][1] - 0.25 * seconds) <= 0.001 and abs(placed[-1][1] - 0.75 * seconds) <= 0.001)
    check(ok, "%s: zoomed to the middle half, the lanes fill the box and the axis names that half (%s, %s)"
          % (label, lanes and lanes.group(0), placed[:1] + placed[-1:]))


# At launch (the suite's user: root in CI, where the kernel gives stacks).
work = shared_workdir()
out = run_gdb(["collector profile offcpu on", "collector enable", "run"], [PROGRAM], work)
print(out)
truth = truth_of(out)
check(truth is not None, "the program ran and measured its phases")
with_stacks = offcpu_stacks_here()
if truth:
    if with_stacks:
        check_with_stacks(os.path.join(work, "test.1.er"), truth, "at launch")
        check_timeline(os.path.join(work, "test.1.er"), "at launch")
    else:
        check_without_stacks(os.path.join(work, "test.1.er"), out, truth, "at launch", NO_STACKS_NOTE)
if with_stacks and not offcpu_stacks_here(short_waits=True):
    check(READ_NOTE in out, "at launch: GDB's closing line says the stacks were read from the waiting threads and "
          "that short waits have none")

# After gdb -p: the program waits to be told to go; its phases after it.
target, _, _ = attach_then_go([PROGRAM], ["collector profile offcpu on", "collector enable"], work)
rc, rest = target.finish()
print(rest)
wait_closed(os.path.join(work, "test.2.er"))
truth = truth_of(rest)
check(rc == 0 and truth is not None, "after the attach: the program ran and measured its phases")
if truth and offcpu_stacks_here(attached=True):
    check_with_stacks(os.path.join(work, "test.2.er"), truth, "after gdb -p")

# A server whose threads mostly wait (server_waits.c): four workers on a
# condition variable, a listener in read() the whole run, the main thread
# handing out jobs; at launch, and after gdb -p with every thread already
# waiting (their first wait counted from the attach).
def server_threads(output):
    return {m.group(1): (float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"thread=(\w+) wall=([0-9.]+) cpu=([0-9.]+)", output)}


def check_server(exp, threads, label, before_go=0.0):
    rows, _ = states_rows(exp)
    row = lambda name: rows.get(name, [0] * COLUMNS)
    workers = [v for k, v in threads.items() if k.startswith("worker")]
    waited = sum(w - c for w, c in workers)
    listener = threads.get("listener", (0, 0))[0]
    check(len(workers) == 4 and listener > 0, "%s: the server ran (%s)" % (label, sorted(threads)))
    check(listener * 0.95 <= row("listener")[4] <= listener * 1.05 + 2 * TICK + before_go,
          "%s: the listener in I/O %.3f s, its own wall time %.3f s" % (label, row("listener")[4], listener))
    check(waited * 0.9 <= row("worker")[5] <= waited * 1.1 + 2 * TICK + 4 * before_go,
          "%s: the workers on a lock %.3f s, their own wall time less their CPU %.3f s" % (label, row("worker")[5],
                                                                                      waited))
    total = sum(w for w, _ in threads.values())
    check(total * 0.95 <= row("<Total>")[0] <= total * 1.05 + 0.5 + 6 * before_go,
          "%s: the six threads' wall time %.3f s, their own %.3f s" % (label, row("<Total>")[0], total))


SERVER = program("server_waits")
if with_stacks and offcpu_stacks_here(attached=True):
    out = run_gdb(["collector profile offcpu on", "collector enable", "run"], [SERVER], work)
    print(out)
    check_server(os.path.join(work, "test.3.er"), server_threads(out), "server at launch")
    target, _, to_go = attach_then_go([SERVER, "2"], ["collector profile offcpu on", "collector enable"], work,
                                      "go-server")
    before_go = to_go + 0.2  # the attach's end to go, and GDB's detaching
    rc, rest = target.finish()
    print(rest)
    wait_closed(os.path.join(work, "test.4.er"))
    check_server(os.path.join(work, "test.4.er"), server_threads(rest), "server after gdb -p", before_go)
    next_experiment = 5
else:
    skip_part("the checks by function after gdb -p, and of the server (no stacks of waits for this user: "
              "kernel.perf_event_paranoid is %d, kernel.yama.ptrace_scope %d)"
              % (perf_event_paranoid(), yama_ptrace_scope()))
    next_experiment = 3

# An ordinary user: where the kernel refuses samples at a switch, the
# stacks of waits that last are read from the waiting threads (the same
# checks by function); where that too is refused, the time by thread and
# reason without the stacks.  Then a program that makes itself not
# dumpable: reading it is refused, said, and its waits have no stack.
prefix = unprivileged_prefix()
if prefix and not offcpu_stacks_here(prefix, short_waits=True):
    out = run_gdb(["collector profile offcpu on", "collector enable", "run"], [PROGRAM], work, prefix=prefix)
    print(out)
    truth = truth_of(out)
    check(truth is not None, "as an ordinary user: the program ran")
    exp = os.path.join(work, "test.%d.er" % next_experiment)
    if truth and offcpu_stacks_here(prefix):
        check(READ_NOTE in out, "as an ordinary user: GDB says the stacks were read from the waiting threads")
        check_with_stacks(exp, truth, "as an ordinary user", prefix)
    elif truth:
        check_without_stacks(exp, out, truth, "as an ordinary user", NO_STACKS_NOTE)
    out = run_gdb(["collector profile offcpu on", "collector enable", "run"], [PROGRAM, "0.5", "undumpable"], work,
                  prefix=prefix)
    print(out)
    truth = truth_of(out)
    check(truth is not None, "as an ordinary user, not dumpable: the program ran")
    if truth and offcpu_stacks_here(prefix):
        check_without_stacks(os.path.join(work, "test.%d.er" % (next_experiment + 1)), out, truth,
                             "as an ordinary user, a program not dumpable", "off-CPU stacks: reading")
    next_experiment += 2
elif prefix:
    skip_part("an ordinary user without stacks at switches (kernel.perf_event_paranoid is %d here: they get them)"
              % perf_event_paranoid())

# Time GDB holds the program stopped (at a breakpoint, while its user
# thinks: here a second and a half) is Stopped time where it stopped, in
# our report and in gprofng's Stopped metric, not a wait of the program.
HOLD = 1.5
out = run_gdb(["collector enable", "break sleep_phase", "run", "python import time; time.sleep(%s)" % HOLD,
               "continue"], [PROGRAM, "0.3"], work)
print(out)
held = max((os.path.join(work, d) for d in os.listdir(work) if d.endswith(".er")), key=os.path.getmtime)
stopped = {name: values[STATE_COLUMNS.index("Stopped")] for name, values in states_rows(held)[0].items()}
# What GDB does around the stop (reporting it, removing the breakpoint to
# step over it) is stopped time too: up to a few tenths of a second.
check(HOLD <= stopped.get("sleep_phase", 0) <= HOLD + 0.5,
      "GDB's stop at sleep_phase: %.3f s Stopped there in collector report states (held %.1f s)"
      % (stopped.get("sleep_phase", 0), HOLD))
rows = gprofng_rows(gprofng_text(held, "-metrics", "i.stop:i.sleep", "-functions"))
check(HOLD <= rows.get("sleep_phase", [0, 0])[0] <= HOLD + 0.5 and rows.get("sleep_phase", [0, 0])[1] < HOLD,
      "gprofng: sleep_phase's Stopped %.3f s, its Sleep %.3f s (the program slept 0.3 s)"
      % tuple(rows.get("sleep_phase", [0, 0])))
# GDB's stops at the dynamic loader's load events (its breakpoint on the
# one-byte _dl_debug_state) leave the thread's pc one past the trap: named
# after the function, never "<static>@0x2061" in no function (before).
# With perf events the experiment starts at the exec, before those stops.
ldd = subprocess.run(["ldd", PROGRAM], capture_output=True, text=True).stdout
loader_path = re.search(r"(/\S*ld-linux\S*)", ldd)
loader = subprocess.run(["nm", "-D", "--defined-only", loader_path.group(1)], capture_output=True,
                        text=True).stdout if loader_path else ""
debug_state = re.search(r"^([0-9a-f]+) T _dl_debug_state(@@\S+)?$", loader, re.M)
if perf_events_refused():
    skip_part("GDB's stops at the loader's load events named (perf events refused: the experiment starts in the "
              "program's constructors, after them)")
elif debug_state is None:
    skip_part("GDB's stops at the loader's load events named (no _dl_debug_state in the loader's symbols here)")
else:
    past = "<static>@0x%x " % (int(debug_state.group(1), 16) + 1)
    listing = gprofng_text(held, "-metrics", "name", "-functions")
    check(past not in listing and "_dl_debug_state" in listing,
          "GDB's stops at the loader's load events are named _dl_debug_state (not %s)" % past.strip())

# Waits in page faults (page_faults.c: userfaultfd holds a fault on a data
# page, then on a code page, half a second each): Fault time where the
# thread faulted, told apart in gprofng's Text and Data Page Fault
# metrics (the code page's PC has no function: its stack is that page).
out = run_gdb(["collector enable", "run"], [program("page_faults")], work)
print(out)
m = re.search(r"data=([0-9.]+) code=([0-9.]+)", out)
if "userfaultfd:" in out:
    skip_part("waits in page faults (%s)" % re.search(r"userfaultfd: (.*)", out).group(1))
else:
    check(m is not None, "page faults: the program ran and timed its faults")
    data, code = (float(x) for x in m.groups()) if m else (0, 0)
    faulted = max((os.path.join(work, d) for d in os.listdir(work) if d.endswith(".er")), key=os.path.getmtime)
    rows = gprofng_rows(gprofng_text(faulted, "-metrics", "e.textpfault:e.datapfault:i.datapfault", "-functions"))
    total = rows.get("<Total>", [0, 0, 0])
    check(near(total[0], code) and near(total[1], data) and near(rows.get("data_fault_wait", [0, 0, 0])[2], data),
          "gprofng: Text Page Fault %.3f s (the code page's fault took %.3f s), Data Page Fault %.3f s (%.3f s), "
          "%.3f s of it in data_fault_wait" % (total[0], code, total[1], data,
                                               rows.get("data_fault_wait", [0, 0, 0])[2]))
    ours, threads = states_rows(faulted)
    fault = STATE_COLUMNS.index("Fault")
    check(near(max(t[fault] for t in threads) if threads else 0, data + code) and
          near(ours.get("data_fault_wait", [0] * COLUMNS)[fault], data) and
          near(ours.get("main", [0] * COLUMNS)[fault], data),
          "collector report states: the main thread in page faults %.3f s (%.3f s), %.3f s under data_fault_wait "
          "and main" % (max(t[fault] for t in threads) if threads else 0, data + code,
                        ours.get("data_fault_wait", [0] * COLUMNS)[fault]))

# Python's threading.Lock: a lock wait, where the stripped C library names
# none of the calls under CPython's lock entry point (it was "blocked").
script = os.path.join(work, "python_lock.py")
with open(script, "w") as f:
    f.write("import threading, time\n"
            "lock = threading.Lock(); lock.acquire()\n"
            "def holder():\n    time.sleep(0.6); lock.release()\n"
            "t = threading.Thread(target=holder); t.start()\n"
            "t0 = time.monotonic(); lock.acquire(); print('lock_waited=%.3f' % (time.monotonic() - t0)); t.join()\n")
python = "/usr/bin/python3"  # (Debian's: a checkout's pyenv shim would be a shell script exec'ing it)
out = run_gdb(["collector store experiment python_lock.er", "collector enable", "run"], [python, script], work)
print(out)
m = re.search(r"lock_waited=([0-9.]+)", out)
if not os.path.exists(python):
    skip_part("python's threading.Lock: no /usr/bin/python3")
elif check(m is not None, "python: the script waited on its lock"):
    _, threads = states_rows(os.path.join(work, "python_lock.er"))
    lock, blocked = STATE_COLUMNS.index("Lock"), STATE_COLUMNS.index("Blocked")
    waited = float(m.group(1))
    # (10 ms packets: the wait within two of them, none left as blocked)
    check(threads and near(threads[0][lock], waited) and threads[0][blocked] <= 0.05,
          "python: the main thread's %.3f s on threading.Lock are on a lock (%.3f s), not blocked (%.3f s)"
          % (waited, threads[0][lock] if threads else 0, threads[0][blocked] if threads else 0))

# Off: the CPU-only experiment of before (Linux's one CPU state).
out = run_gdb(["collector profile offcpu off", "collector show profile", "collector enable", "run"], [PROGRAM, "0.3"],
              work)
print(out)
latest = max((os.path.join(work, d) for d in os.listdir(work) if d.endswith(".er")), key=os.path.getmtime)
log = open(os.path.join(latest, "log.xml")).read()
check("Off-CPU time:           off" in out and 'numstates="1"' in log and "off CPU" not in out,
      "offcpu off: said by collector show, numstates 1 in log.xml, no time off CPU in GDB's closing line")
cleanup(work)
finish()
