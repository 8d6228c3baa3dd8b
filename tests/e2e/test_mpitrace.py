"""MPI tracing (collector mpitrace): a job launched under GDB
(`gdb --args mpirun -np 3 mpi_exchange`), under Open MPI and under MPICH.
Every rank's experiment is M_r<rank>.er inside the job's experiment, listed
with it in ranks.erg.  Each rank printed, per peer, the messages it sent and
received and their bytes (ping-pong with MPI_Send/MPI_Recv, a ring with
MPI_Irecv/MPI_Isend/MPI_Waitall, MPI_Sendrecv): our reader finds exactly
those, and gprofng the same bytes per peer through its I/O view (sends as
writes, receives as reads, one channel per peer); the ring rounds inside
MPI_Pcontrol(0)..(1) are not recorded; `collector report mpi` shows the
same per rank and who sent how much to whom.  `gdb -p` on rank 1 of a
running job records its calls from then on, each with the bytes the
program passes.  One GDB per rank (mpirun -np 3 gdb ... --args) gives one
job directory with every rank's M_r<rank>.er and their ranks.erg.  The
job under GDB runs again as an ordinary user (when the suite runs as root).  Without mpitrace, the ranks are still M_r<rank>.er, with
clock data and no MPI data.  From Fortran (mpi_fortran.f90): exact under
MPICH; under Open MPI, whose Fortran bindings call PMPI_ directly, nothing
is traced and each rank's experiment says so."""

import os
import re
import shutil
import subprocess

from mpi_checks import gprofng_channels, reader_function, reader_peers, truths
from harness import (COLLECTOR_GDB, _user_env, attach_gdb, check, cleanup, er_dump, finish, program, run_gdb,
                     sampled_every_s, sampling_seconds, shared_workdir, skip_part, skip_test, unprivileged_prefix,
                     wait_closed, workdir)

RANKS = 3
ROUNDS = 20
IMPLEMENTATIONS = {
    # (launcher, its options): Open MPI refuses root unless told, and 3 ranks on 2 cores
    "openmpi": ("mpirun.openmpi", ["--oversubscribe", "--allow-run-as-root"]),
    "mpich": ("mpirun.mpich", []),
}
work = workdir()


def check_report(label, out, truth):
    """`collector report mpi`: per rank the messages and bytes, and the
    matrix of bytes sent, as the ranks counted them."""
    rows = {int(m.group(1)): tuple(int(v) for v in m.groups()[1:])
            for m in re.finditer(r"^(\d+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                                 r"\s+\d+$",
                                 out, re.M)}
    want = {rank: tuple(sum(t[i] for t in peers.values()) for i in range(4)) for rank, peers in truth.items()}
    check(rows == want, "%s: collector report mpi: messages and bytes per rank %s (got %s)" % (label, want, rows))
    matrix_text = out.split("Bytes sent, by sender", 1)[-1]
    matrix = {int(m.group(1)): [int(v) for v in m.group(2).split()]
              for m in re.finditer(r"^(\d+)((?:\s+\d+){%d})$" % RANKS, matrix_text, re.M)}
    want = {rank: [truth[rank].get(peer, (0, 0))[1] for peer in range(RANKS)] for rank in truth}
    check(matrix == want, "%s: collector report mpi: bytes each rank sent to each %s (got %s)" % (label, want, matrix))


def run_job(name, launcher, options, mpitrace, cwd=None, prefix=(), rank_program=None):
    if cwd is None:
        cwd = os.path.join(work, "%s-%s" % (name, "mpitrace" if mpitrace else "clock"))
        os.makedirs(cwd)
    commands = (["collector mpitrace on"] if mpitrace else []) + ["collector enable", "run"] + \
        (["collector report mpi"] if mpitrace else [])
    out = run_gdb(commands, [launcher] + options + ["-np", str(RANKS), rank_program or program("mpi_exchange_" + name),
                                                    str(ROUNDS)], cwd, timeout=300, prefix=prefix)
    print(out)
    return cwd, out


def check_job(name, launcher, options, cwd=None, prefix=(), label=None):
    label = label or name
    cwd, out = run_job(name, launcher, options, True, cwd, prefix)
    job = os.path.join(cwd, "test.1.er")
    truth = truths(out)
    check(sorted(truth) == list(range(RANKS)), "%s: every rank printed its messages (%s)" % (label, sorted(truth)))
    ranks = sorted(d for d in os.listdir(job) if d.startswith("M_r")) if os.path.isdir(job) else []
    check(ranks == ["M_r%d.er" % r for r in range(RANKS)], "%s: one M_r<rank>.er per rank (%s)" % (label, ranks))
    group = os.path.join(job, "ranks.erg")
    lines = open(group).read().split("\n") if os.path.exists(group) else []
    check(lines[:2] == ["#analyzer experiment group", job] and
          sorted(lines[2:-1]) == [os.path.join(job, "M_r%d.er" % r) for r in range(RANKS)],
          "%s: ranks.erg lists the job, then every rank (%s)" % (label, lines))
    check("ranks.erg" in out, "%s: GDB's closing lines name the group file" % label)
    check_report(label, out, truth)
    for rank in range(RANKS):
        path = os.path.join(job, "M_r%d.er" % rank)
        if not os.path.isdir(path):
            continue
        summary, _, raw = er_dump(path)
        mine = truth.get(rank, {})
        got = reader_peers(raw)
        check(got == mine, "%s rank %d: messages and bytes per peer exact in our reader (%s, truth %s)"
              % (label, rank, got, mine))
        check(reader_function(raw, "MPI_Barrier") == ROUNDS and reader_function(raw, "MPI_Allreduce") == ROUNDS,
              "%s rank %d: %d barriers and allreduces, as calls" % (label, rank, ROUNDS))
        # The rings' Waitall (plain and persistent): 2 x ROUNDS counted, none of the 5 paused rounds.
        check(reader_function(raw, "MPI_Waitall") == 2 * ROUNDS,
              "%s rank %d: %d Waitall calls (none while paused by MPI_Pcontrol(0)): %d"
              % (label, rank, 2 * ROUNDS, reader_function(raw, "MPI_Waitall")))
        check(reader_function(raw, "MPI_Startall") == ROUNDS and reader_function(raw, "MPI_Send_init") == 1 and
              reader_function(raw, "MPI_Request_free") == 2,
              "%s rank %d: persistent requests: made once, started each round, freed" % (label, rank))
        check(reader_function(raw, "MPI_Comm_rank") == 1 and reader_function(raw, "MPI_Comm_size") == 1,
              "%s rank %d: the rest of the seeds' list as calls (MPI_Comm_rank, MPI_Comm_size)" % (label, rank))
        check(int(summary.get("ticks", "0") or 0) >= 0 and "mpi_calls" in summary,
              "%s rank %d: MPI calls recorded" % (label, rank))
        rows, text = gprofng_channels(path)
        want = {"MPI rank %d (MPI_COMM_WORLD)" % peer: (t[3], t[1]) for peer, t in mine.items()}
        check(rows == want, "%s rank %d: gprofng -ioactivity: bytes received and sent per peer %s (got %s)"
              % (label, rank, want, rows))
        if rows != want:
            print(text)
    out = subprocess.run(["gprofng", "display", "text", "-exp_list", group], capture_output=True, text=True,
                         timeout=180)
    text = out.stdout + out.stderr
    listed = sorted(re.findall(r"^\s*\d+\s+yes\s+\d+\s+(\S+)\s*$", text, re.M))
    want = sorted([job] + [os.path.join(job, "M_r%d.er" % r) for r in range(RANKS)])
    # (with the launcher's sampled descendants, _*.er, which gprofng loads by itself)
    launcher = [p for p in listed if os.path.dirname(p) == job and os.path.basename(p).startswith("_")]
    listed = sorted(set(listed) - set(launcher))
    check(out.returncode == 0 and "*** Error" not in text and listed == want,
          "%s: gprofng loads the job and every rank from the group file (%s)" % (label, listed))
    if listed != want:
        print(text)


def check_without_mpitrace(name, launcher, options):
    """Clock profiles only, of a copy of the program that is deleted after
    the run: each rank names its functions from the job's archives/."""
    cwd = os.path.join(work, name + "-clock")
    os.makedirs(cwd)
    copy = os.path.join(cwd, "rank_program")
    shutil.copy2(program("mpi_exchange_" + name), copy)
    cwd, out = run_job(name, launcher, options, False, cwd, rank_program=copy)
    os.unlink(copy)
    job = os.path.join(cwd, "test.1.er")
    ranks = sorted(d for d in os.listdir(job) if d.startswith("M_r")) if os.path.isdir(job) else []
    check(ranks == ["M_r%d.er" % r for r in range(RANKS)], "%s without mpitrace: ranks still M_r<rank>.er (%s)"
          % (name, ranks))
    named_main = 0
    for rank in ranks:
        summary, funcs, raw = er_dump(os.path.join(job, rank))
        check("mpi_calls" not in summary, "%s without mpitrace: no MPI data in %s" % (name, rank))
        log = os.path.join(job, rank, "archive.log")
        check(os.path.exists(log) and copy in open(log).read(),
              "%s without mpitrace: %s recorded its program in its archive.log" % (name, rank))
        # A rank with few samples may have none in the program (all in MPI's
        # start-up): what it has there must be named, and the job names main.
        unnamed = [f for f in funcs if "rank_program" in f]
        check(not unnamed, "%s without mpitrace: %s names the deleted program's code from the job's archives/ (%s)"
              % (name, rank, unnamed))
        named_main += funcs.get("main", (0, 0))[1] > 0
    check(named_main > 0, "%s without mpitrace: the ranks name main after the program was deleted" % name)


def function_line(raw, name):
    """(calls, sends, sbytes, receives, rbytes) of NAME in er-dump's MPI section."""
    m = re.search(r"^mpi_function %s: calls (\d+) seconds \S+ sends (\d+) sbytes (\d+) receives (\d+) rbytes (\d+)$"
                  % name, raw, re.M)
    return tuple(int(v) for v in m.groups()) if m else (0, 0, 0, 0, 0)


def check_attach(name, launcher, options):
    """gdb -p on rank 1 of a running job: its MPI calls from then on, each
    with the bytes the program passes (ping-pong 8, ring 400, Sendrecv 24)."""
    label = name + " attach"
    cwd = os.path.join(work, name + "-attach")
    os.makedirs(cwd)
    job = subprocess.Popen([launcher] + options + ["-np", str(RANKS), program("mpi_exchange_" + name), "300", "10"],
                           cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           stdin=subprocess.DEVNULL, env=_user_env())
    pid = None
    while pid is None:
        line = job.stdout.readline()
        if not line:
            break
        m = re.match(r"ready rank=1 pid=(\d+)", line)
        pid = int(m.group(1)) if m else None
    check(pid is not None, "%s: rank 1 started" % label)
    if pid is None:
        job.kill()
        return
    out = attach_gdb(pid, ["collector mpitrace on", "collector enable", "detach"], cwd)
    print(out)
    rest, _ = job.communicate(timeout=180)
    print(rest)
    check(job.returncode == 0, "%s: the job ends normally (%s)" % (label, job.returncode))
    path = os.path.join(cwd, "test.1.er")
    wait_closed(path)
    _, _, raw = er_dump(path)
    barriers = function_line(raw, "MPI_Barrier")[0]
    check(0 < barriers < 300, "%s: the barriers from the attach on (%d of 300)" % (label, barriers))
    calls, sends, sbytes, _, _ = function_line(raw, "MPI_Send")
    check(calls > 0 and sends == calls and sbytes == 8 * calls, "%s: MPI_Send: 8 bytes each (%d calls, %d bytes)"
          % (label, calls, sbytes))
    calls, _, _, receives, rbytes = function_line(raw, "MPI_Recv")
    check(calls > 0 and receives == calls and rbytes == 8 * calls, "%s: MPI_Recv: 8 bytes each (%d calls, %d bytes)"
          % (label, calls, rbytes))
    calls, sends, sbytes, _, _ = function_line(raw, "MPI_Isend")
    check(calls > 0 and sends == calls and sbytes == 400 * calls, "%s: MPI_Isend: 400 bytes each (%d calls, %d bytes)"
          % (label, calls, sbytes))
    calls, _, _, receives, rbytes = function_line(raw, "MPI_Waitall")
    starts = function_line(raw, "MPI_Startall")[0]
    # The persistent ring's requests were made before the attach: their
    # starts and completions are calls, their messages unknown (said in docs).
    # (the attach may land inside a round: one call or receive fewer)
    check(calls > 0 and 2 * starts - 1 <= calls <= 2 * starts and starts - 1 <= receives <= starts and
          rbytes == 400 * receives,
          "%s: MPI_Waitall completes the ring's receive (400 bytes), the persistent ring's (made before the "
          "attach) counts as a call: %d calls, %d starts, %d receives, %d bytes"
          % (label, calls, starts, receives, rbytes))
    calls, sends, sbytes, receives, rbytes = function_line(raw, "MPI_Sendrecv")
    check(calls > 0 and sends == receives == calls and sbytes == rbytes == 24 * calls,
          "%s: MPI_Sendrecv: 24 bytes each way (%d calls)" % (label, calls))


def check_gdb_per_rank(name, launcher, options):
    """mpirun -np 3 gdb ... --args mpi_exchange: each GDB launches one rank;
    the ranks' experiments are M_r<rank>.er in one job directory, with its
    ranks.erg, each exact against its rank's counts."""
    label = name + " one GDB per rank"
    cwd = os.path.join(work, name + "-per-rank")
    os.makedirs(cwd)
    gdb = ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB, "-ex", "collector mpitrace on", "-ex", "collector enable",
           "-ex", "run", "--args", program("mpi_exchange_" + name), str(ROUNDS)]
    done = subprocess.run([launcher] + options + ["-np", str(RANKS)] + gdb, cwd=cwd, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, env=_user_env())
    out = done.stdout + done.stderr
    print(out)
    jobs = [d for d in os.listdir(cwd) if d.startswith("mpi_job.")]
    check(len(jobs) == 1 and sorted(os.listdir(cwd)) == jobs, "%s: one job directory, nothing else (%s)"
          % (label, os.listdir(cwd)))
    if len(jobs) != 1:
        return
    job = os.path.join(cwd, jobs[0])
    ranks = sorted(d for d in os.listdir(job) if d.startswith("M_r"))
    check(ranks == ["M_r%d.er" % r for r in range(RANKS)], "%s: one M_r<rank>.er per rank (%s)" % (label, ranks))
    lines = open(os.path.join(job, "ranks.erg")).read().split("\n") if os.path.exists(os.path.join(job, "ranks.erg")) \
        else []
    check(lines[:1] == ["#analyzer experiment group"] and
          sorted(lines[1:-1]) == [os.path.join(job, "M_r%d.er" % r) for r in range(RANKS)],
          "%s: ranks.erg lists every rank (%s)" % (label, lines))
    truth = truths(out)
    for rank in range(RANKS):
        path = os.path.join(job, "M_r%d.er" % rank)
        if os.path.isdir(path):
            got = reader_peers(er_dump(path)[2])
            check(got == truth.get(rank), "%s rank %d: messages and bytes per peer exact (%s, truth %s)"
                  % (label, rank, got, truth.get(rank)))


def check_work(name, launcher, options):
    """MPI Work (CPU time sampled inside MPI calls) against each rank's own
    thread CPU inside its MPI calls: rank R computes (R+1) x 10 ms a round
    and the others spin in MPI_Barrier meanwhile; 1 ms clock samples."""
    label = name + " MPI Work"
    cwd = os.path.join(work, name + "-work")
    os.makedirs(cwd)
    out = run_gdb(["collector profile timer hi", "collector mpitrace on", "collector enable", "run",
                   "collector report mpi"],
                  [launcher] + options + ["-np", str(RANKS), program("mpi_imbalance_" + name), "40", "10"], cwd,
                  timeout=300)
    print(out)
    truth = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^cpu rank=(\d+) in_mpi=([0-9.]+) ", out, re.M)}
    rows = {int(m.group(1)): (float(m.group(2)), float(m.group(3)), float(m.group(4)))
            for m in re.finditer(r"^(\d+)\s+[0-9.]+\s+([0-9.]+)\s+[0-9.]+\s+([0-9.]+)\s+([0-9.]+)\s+\d+", out, re.M)}
    check(sorted(truth) == list(range(RANKS)) and sorted(rows) == list(range(RANKS)),
          "%s: every rank's truth and report row (%s, %s)" % (label, truth, rows))
    for rank in sorted(truth):
        if rank not in rows:
            continue
        in_mpi, cpu_in_mpi, off_cpu = rows[rank]
        # (the samples the rank had: where perf events are refused, a
        # quarter of 1 ms's, and the bound what that many allow)
        rank_exp = os.path.join(cwd, "test.1.er", "M_r%d.er" % rank)
        rank_summary = er_dump(rank_exp)[0] if os.path.isdir(rank_exp) else {}
        comments = rank_summary.get("comments", [])
        every = sampled_every_s(rank_summary, 0.001)
        bound = sampling_seconds(truth[rank], every)
        if any("user mode only" in c for c in comments):
            # The spin in MPI_Barrier is sched_yield's, the kernel's time:
            # its samples dropped, their periods are recorded where the
            # rank next ran its own code (test_kernel_time.py), and said.
            check(abs(cpu_in_mpi - truth[rank]) <= bound or any(c.startswith("Kernel time: ") for c in comments),
                  "%s rank %d: %.3f s of CPU in MPI calls of %.3f measured, the rest said to be the kernel's"
                  % (label, rank, cpu_in_mpi, truth[rank]))
            skip_part("%s rank %d: CPU in MPI calls, much of it in system calls, which the kernel samples in user "
                      "mode only here (kernel.perf_event_paranoid 2 or more, not root)" % (label, rank))
            continue
        check(abs(cpu_in_mpi - truth[rank]) <= bound,
              "%s rank %d: %.3f s of CPU in MPI calls, the rank measured %.3f (bound %.3f)"
              % (label, rank, cpu_in_mpi, truth[rank], bound))
        check(abs(cpu_in_mpi + off_cpu - in_mpi) < 0.002, "%s rank %d: Work + Wait = the time in MPI" % (label, rank))


def check_fortran(name, launcher, options):
    """The job's ping-pong called from Fortran: MPICH's Fortran bindings
    call the C MPI_ functions, so every message is traced; Open MPI's call
    PMPI_ directly, so none is, and each rank's experiment says so."""
    fortran = program("mpi_fortran_" + name)
    if not os.path.exists(fortran):
        skip_part("Fortran under %s (no mpif90.%s: Debian package gfortran)" % (name, name))
        return
    cwd = os.path.join(work, name + "-fortran")
    os.makedirs(cwd)
    out = run_gdb(["collector mpitrace on", "collector enable", "run"], [launcher] + options + ["-np", "2", fortran],
                  cwd, timeout=300)
    print(out)
    truth = truths(out)
    check(sorted(truth) == [0, 1], "%s Fortran: both ranks printed their messages" % name)
    for rank in (0, 1):
        path = os.path.join(cwd, "test.1.er", "M_r%d.er" % rank)
        if not check(os.path.isdir(path), "%s Fortran rank %d: recorded (%s)"
                     % (name, rank, sorted(os.listdir(os.path.dirname(path))) if os.path.isdir(os.path.dirname(path))
                        else "no job experiment")):
            continue
        _, _, raw = er_dump(path)
        log = open(os.path.join(path, "log.xml"), errors="replace").read()
        said = "uses Open MPI&apos;s Fortran bindings" in log
        if name == "mpich":
            check(reader_peers(raw) == truth.get(rank) and not said,
                  "MPICH Fortran rank %d: messages and bytes per peer exact (%s, truth %s)"
                  % (rank, reader_peers(raw), truth.get(rank)))
        else:
            check(said and not reader_peers(raw),
                  "Open MPI Fortran rank %d: no message traced, and the experiment says why" % rank)


def main():
    found = {name: spec for name, spec in IMPLEMENTATIONS.items()
             if shutil.which(spec[0]) and os.path.exists(program("mpi_exchange_" + name))}
    if not found:
        skip_test("no MPI implementation (Debian packages openmpi-bin libopenmpi-dev, mpich libmpich-dev)")
    for name in IMPLEMENTATIONS:
        if name not in found:
            skip_part("%s is not installed (or its test program was not built)" % name)
    for name, (launcher, options) in found.items():
        check_job(name, launcher, options)
        check_attach(name, launcher, options)
        check_gdb_per_rank(name, launcher, options)
        check_work(name, launcher, options)
        check_fortran(name, launcher, options)
    name, (launcher, options) = next(iter(found.items()))
    check_without_mpitrace(name, launcher, options)
    cleanup(work)
    prefix = unprivileged_prefix()
    if prefix:  # the whole job as an ordinary user: GDB, the launcher, the ranks, the samplers
        shared = shared_workdir()
        check_job(name, launcher, options, shared, prefix, "%s as an ordinary user" % name)
        cleanup(shared)
    finish()


main()
