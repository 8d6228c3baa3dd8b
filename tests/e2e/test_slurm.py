"""Slurm, the launcher most clusters use, on a one-node cluster the test
starts itself (slurm_cluster.py: munged, slurmctld and slurmd with their
own key, ports and state).  Slurm starts each task through slurmd and
slurmstepd, outside the process tree of whatever ran srun.

Checked:
- `gdb --args srun -n 4 --mpi=pmix mpi_exchange` (Open MPI) and `--mpi=pmi2`
  (MPICH) with `collector mpitrace on`: the job's experiment holds M_r0..M_r3
  and ranks.erg lists the job and all four; each rank says it started its
  own sampler process; every rank's messages and bytes per peer are exact in
  our reader and in gprofng's I/O view.
- `gdb --args srun -n 3 sort_work` (no MPI): the tasks are ranks by their
  SLURM_PROCID, each with its CPU time; gprofng reads the group.
- `srun -n 2 gdb -batch ... --args sort_work`: one GDB per task, every
  task's experiment in one job directory keyed by Slurm's job and step
  (mpi_job.slurm-JOB.STEP/M_r<task>.er, ranks.erg).
- An sbatch script that runs `gdb --args srun -n 2 ...`: the same job
  experiment.  Where a process is no rank of a job: the batch script's own
  `gdb --args sort_work` and `srun -n 1 gdb ...` (one task) record the plain
  test.1.er.
- As an ordinary user (root's cluster, nobody's jobs): `gdb --args srun`.
- Two nodes (this machine and a simulated one with its own network, hostname
  and /dev/shm, other_node.py): `srun -N 2 --ntasks-per-node=2` under GDB
  with Open MPI: every rank recorded where it ran (its log's hostname), its
  messages exact; nothing left in either node's /dev/shm.  (MPICH's UCX over
  TCP hangs in MPI_Finalize in about half the runs here, collector or not: a
  skip saying so.)
- Nothing of the collector is left (no sampler process, no session
  directory in /dev/shm)."""

import os
import re
import socket
import subprocess
import time

from harness import (BUILD, COLLECTOR_GDB, check, cleanup, er_dump, finish, gprofng_functions, no_perf_prefix,
                     perf_events_refused,
                     program, run_gdb, sampling_seconds, shared_workdir, skip_part, skip_test, unprivileged_prefix,
                     wait_closed, workdir, _user_env)
from mpi_checks import gprofng_channels, reader_peers, truths
from other_node import HOST, Node, can_isolate
from slurm_cluster import Cluster, missing_programs

RANKS = 4
ROUNDS = 20
TASK_CPU_S = 0.5


def mpi_plugins(cluster):
    out = subprocess.run(["srun", "--mpi=list"], capture_output=True, text=True, env=dict(_user_env(), **cluster.env()))
    return out.stdout + out.stderr


def rank_dirs(job):
    return sorted(d for d in os.listdir(job) if d.startswith("M_r")) if job and os.path.isdir(job) else []


def group_lines(job):
    path = os.path.join(job, "ranks.erg")
    return open(path).read().split("\n") if os.path.exists(path) else []


def own_sampler(path):
    try:
        return "by an MPI rank outside the process tree" in open(os.path.join(path, "log.xml"), errors="replace").read()
    except OSError:
        return False


def check_mpi_job(cluster, name, plugin, cwd, prefix=(), label=None, nodes=()):
    """NODES: the job on those nodes (their hostnames: each rank's log says
    where it ran)."""
    label = label or name
    spread = ["-N", str(len(nodes)), "--ntasks-per-node=%d" % (RANKS // len(nodes))] if nodes else []
    # (Open MPI's default check finds no path between a node's only
    # address on a link and itself: every interface taken as reachable)
    out = run_gdb(["collector mpitrace on", "collector enable", "run"],
                  ["srun", "--overcommit", "--mpi=" + plugin, "-n", str(RANKS)] + spread +
                  [program("mpi_exchange_" + name), str(ROUNDS)], cwd, timeout=240,
                  env=dict(cluster.env(), OMPI_MCA_reachable="weighted") if nodes else cluster.env(), prefix=prefix)
    print(out)
    job = os.path.join(cwd, "test.1.er")
    ranks = rank_dirs(job)
    wait_closed(*[os.path.join(job, r) for r in ranks])
    truth = truths(out)
    check(sorted(truth) == list(range(RANKS)), "%s: every rank printed its messages (%s)" % (label, sorted(truth)))
    check(ranks == ["M_r%d.er" % r for r in range(RANKS)], "%s: one M_r<rank>.er per rank (%s)" % (label, ranks))
    lines = group_lines(job)
    check(lines[:2] == ["#analyzer experiment group", job] and
          sorted(lines[2:-1]) == [os.path.join(job, "M_r%d.er" % r) for r in range(RANKS)],
          "%s: ranks.erg lists the job, then every rank (%s)" % (label, lines))
    ran_on = {}
    for rank in range(RANKS):
        path = os.path.join(job, "M_r%d.er" % rank)
        if not os.path.isdir(path):
            continue
        check(own_sampler(path), "%s rank %d: started by slurmstepd, it started its own sampler process" % (label, rank))
        ran_on[rank] = re.search(r'<system hostname="([^"]*)"',
                                 open(os.path.join(path, "log.xml"), errors="replace").read())
        if perf_events_refused():  # the node's kernel refuses them: the rank samples itself
            log = open(os.path.join(path, "log.xml"), errors="replace").read()
            check("the kernel refused it perf events, so the program" in log,
                  "%s rank %d: its log says its sampler runs without perf events" % (label, rank))
        summary, _, raw = er_dump(path)
        got, mine = reader_peers(raw), truth.get(rank, {})
        check(got == mine, "%s rank %d: messages and bytes per peer exact in our reader (%s, truth %s)"
              % (label, rank, got, mine))
        rows, _ = gprofng_channels(path)
        want = {"MPI rank %d (MPI_COMM_WORLD)" % peer: (t[3], t[1]) for peer, t in mine.items()}
        check(rows == want, "%s rank %d: gprofng -ioactivity: bytes received and sent per peer %s (got %s)"
              % (label, rank, want, rows))
    if nodes:  # (Slurm orders the nodes its own way: ranks 0 and 1 on one, 2 and 3 on the other)
        hosts = [ran_on[r].group(1) if ran_on.get(r) else None for r in range(RANKS)]
        per_node = RANKS // len(nodes)
        check(sorted(set(hosts)) == sorted(nodes) and
              all(hosts[r] == hosts[r - r % per_node] for r in range(RANKS)),
              "%s: each node ran %d ranks in a row, and each rank's log names its node (%s)"
              % (label, per_node, hosts))


def check_task_cpu(path, label):
    summary = er_dump(path)[0]
    cpu = float(summary.get("cpu_seconds", "0") or 0)
    interval = int(summary.get("ptimer_us", "10000") or 10000) / 1e6
    low = TASK_CPU_S - sampling_seconds(TASK_CPU_S, interval)
    check(summary.get("closed") == "yes" and low <= cpu <= 2 * TASK_CPU_S + 0.2,
          "%s: closed, its CPU time recorded (%.3f s; sort_work ran %.1f s of CPU: at least %.3f)"
          % (label, cpu, TASK_CPU_S, low))


def check_tasks(cluster, cwd, prefix=(), label="srun -n 3 sort_work"):
    out = run_gdb(["collector enable", "run"], ["srun", "--overcommit", "-n", "3", program("sort_work"),
                                                str(TASK_CPU_S)], cwd, timeout=240, env=cluster.env(), prefix=prefix)
    print(out)
    job = os.path.join(cwd, "test.1.er")
    ranks = rank_dirs(job)
    wait_closed(*[os.path.join(job, r) for r in ranks])
    check(ranks == ["M_r0.er", "M_r1.er", "M_r2.er"], "%s: the tasks named by SLURM_PROCID (%s)" % (label, ranks))
    for r in ranks:
        check_task_cpu(os.path.join(job, r), "%s %s" % (label, r))
    funcs, total, text = gprofng_functions(os.path.join(job, "ranks.erg"))
    check(total >= 3 * (TASK_CPU_S - sampling_seconds(TASK_CPU_S, 0.01)) and "main" in funcs,
          "%s: gprofng reads the job's group: the three tasks' CPU (%.3f s) under main" % (label, total))
    check("3 rank(s)" in " ".join(out.split()), "%s: GDB says the job has 3 ranks" % label)


def gdb_words(commands, args):
    words = no_perf_prefix() + ["gdb", "-nx", "-batch", "-x", COLLECTOR_GDB]
    for c in commands:
        words += ["-ex", c]
    return words + ["--args"] + list(args)


def run_as_job(cluster, command, cwd, timeout=240):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=dict(_user_env(), **cluster.env()), stdin=subprocess.DEVNULL)
    return done.stdout + done.stderr


def check_gdb_per_task(cluster, cwd):
    out = run_as_job(cluster, ["srun", "--overcommit", "-n", "2"] +
                     gdb_words(["collector enable", "run"], [program("sort_work"), str(TASK_CPU_S)]), cwd)
    print(out)
    jobs = [d for d in os.listdir(cwd) if d.startswith("mpi_job.slurm-")]
    check(len(jobs) == 1 and re.fullmatch(r"mpi_job\.slurm-\d+\.\d+", jobs[0]) is not None,
          "srun -n 2 gdb: one job directory keyed by Slurm's job and step (%s)" % jobs)
    if len(jobs) != 1:
        return
    job = os.path.join(cwd, jobs[0])
    ranks = rank_dirs(job)
    check(ranks == ["M_r0.er", "M_r1.er"], "srun -n 2 gdb: each task's experiment, named by its task (%s)" % ranks)
    check(sorted(group_lines(job)[1:-1]) == [os.path.join(job, r) for r in ranks],
          "srun -n 2 gdb: ranks.erg lists both (%s)" % group_lines(job))
    for r in ranks:
        check_task_cpu(os.path.join(job, r), "srun -n 2 gdb: %s" % r)


def check_batch(cluster, cwd):
    """sbatch: a script that runs GDB on srun (a job of ranks), and GDB on
    the program itself (the batch script is no step: a plain experiment)."""
    script = os.path.join(cwd, "job.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nset -e\nmkdir launched direct\n")
        f.write("cd launched && %s > ../launched.out 2>&1\n" % " ".join(
            "'%s'" % w for w in gdb_words(["collector enable", "run"], ["srun", "--overcommit", "-n", "2",
                                                                         program("sort_work"), str(TASK_CPU_S)])))
        f.write("cd ../direct && %s > ../direct.out 2>&1\n" % " ".join(
            "'%s'" % w for w in gdb_words(["collector enable", "run"], [program("sort_work"), str(TASK_CPU_S)])))
    os.chmod(script, 0o755)
    out = run_as_job(cluster, ["sbatch", "--wait", "--overcommit", "-n", "2", "-o", os.path.join(cwd, "batch.out"),
                               script], cwd, timeout=300)
    print(out)
    for name in ("batch.out", "launched.out", "direct.out"):
        if os.path.exists(os.path.join(cwd, name)):
            print("--- %s\n%s" % (name, open(os.path.join(cwd, name), errors="replace").read()))
    job = os.path.join(cwd, "launched", "test.1.er")
    ranks = rank_dirs(job)
    wait_closed(*[os.path.join(job, r) for r in ranks])
    check(ranks == ["M_r0.er", "M_r1.er"], "sbatch, gdb --args srun -n 2: the job experiment with both tasks (%s)"
          % ranks)
    direct = os.path.join(cwd, "direct")
    found = sorted(os.listdir(direct)) if os.path.isdir(direct) else []
    check(found == ["test.1.er"] and not rank_dirs(os.path.join(direct, "test.1.er")),
          "sbatch, the script's own gdb --args sort_work: the plain test.1.er, no rank (%s)" % found)
    if found == ["test.1.er"]:
        check_task_cpu(os.path.join(direct, "test.1.er"), "sbatch, the script's own gdb")


def check_one_task(cluster, cwd):
    out = run_as_job(cluster, ["srun", "-n", "1"] + gdb_words(["collector enable", "run"],
                                                               [program("sort_work"), str(TASK_CPU_S)]), cwd)
    print(out)
    found = sorted(os.listdir(cwd))
    check(found == ["test.1.er"], "srun -n 1 gdb: one task is no job of ranks: test.1.er (%s)" % found)


def leftovers(cwd):
    sampler = os.path.join(os.path.abspath(BUILD), "libcollector", "gdbcol-sampler").encode()
    deadline = time.monotonic() + 30
    while True:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if f.read().startswith(sampler) and os.path.realpath("/proc/%s/cwd" % pid).startswith(cwd):
                        found.append(pid)
            except OSError:
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def check_two_nodes(work, wrapper):
    """A job across two nodes: this machine and a simulated one (its own
    network namespace, hostname and /dev/shm: other_node.py), each with
    its slurmd; srun -N 2 puts two ranks on each."""
    if not can_isolate():
        skip_part("Slurm on two nodes: the second node needs namespaces of its own (unshare --net --uts --pid), "
                  "which this machine refuses")
        return
    base = os.path.join(work, "two-nodes")
    os.makedirs(base)
    os.chmod(base, 0o777)
    node = Node(base, wrapper=no_perf_prefix())
    cluster = None
    try:
        if not node.ready():
            check(False, "Slurm on two nodes: the second node started (%s; %s)" % (node.problem, node.log()))
            return
        shm_before = set(node.shm_entries())
        cluster = Cluster(base, wrapper, second=node)
        if cluster.problem:
            check(False, "Slurm on two nodes: the cluster started (%s)" % cluster.problem)
            return
        local = socket.gethostname().split(".")[0]
        # (MPICH between two nodes talks TCP through UCX, which hangs in
        # MPI_Finalize 4 to 5 runs in 10 on this machine with no collector:
        # test_mpi_nodes.py)
        skip_part("Slurm on two nodes with MPICH: between nodes its UCX talks TCP, which hangs in MPI_Finalize in "
                  "about half the runs on this machine with no collector (a 240 s timeout here)")
        if os.path.exists(program("mpi_exchange_openmpi")) and re.search(r"^\s*pmix\s*$", mpi_plugins(cluster), re.M):
            cwd = os.path.join(base, "openmpi")
            os.makedirs(cwd)
            os.chmod(cwd, 0o777)
            check_mpi_job(cluster, "openmpi", "pmix", cwd, label="two nodes, openmpi", nodes=(local, HOST))
        else:
            skip_part("Slurm on two nodes with Open MPI (not built, or srun has no pmix plugin here)")
        shm = [d for d in set(node.shm_entries()) - shm_before if d.startswith("gdbcol-")]
        check(not shm, "two nodes: no session directory left in the second node's /dev/shm (%s)" % shm)
    finally:
        if cluster is not None:
            cluster.stop()
        node.stop()


def main():
    missing = missing_programs()
    if missing:
        skip_test("no Slurm here (%s missing: Debian packages slurmctld slurmd slurm-client munge)" % ", ".join(missing))
    if os.geteuid() != 0:
        skip_test("a Slurm cluster of the test's own needs root (slurmd starts each task as the user who submitted it)")
    work = shared_workdir()
    prefix = unprivileged_prefix()
    # slurmd starts the tasks: under the filter that refuses perf events
    # where the suite runs so, and where the checkout is closed to other
    # users, in a mount namespace that opens the way (as root).
    wrapper = list(no_perf_prefix())
    if prefix and prefix[0] == "unshare":
        head = prefix[:prefix.index("--")]
        script = next(i for i, word in enumerate(head) if word.endswith("as_user.py"))
        wrapper = head[:script + 1] + ["--root"] + head[script + 1:] + ["--"] + wrapper
    shm_before = set(os.listdir("/dev/shm"))
    cluster = Cluster(work, wrapper)
    try:
        if cluster.problem:
            skip_test("the one-node Slurm cluster did not start: " + cluster.problem)
        plugins = mpi_plugins(cluster)
        for name, plugin in (("openmpi", "pmix"), ("mpich", "pmi2")):
            if not os.path.exists(program("mpi_exchange_" + name)):
                skip_part("Slurm with %s (not built: no %s here)" % (name, name))
            elif not re.search(r"^\s*%s\s*$" % plugin, plugins, re.M):
                skip_part("Slurm with %s (srun has no %s plugin here: %s)" % (name, plugin, " ".join(plugins.split())))
            else:
                cwd = os.path.join(work, name)
                os.makedirs(cwd)
                os.chmod(cwd, 0o777)
                check_mpi_job(cluster, name, plugin, cwd)
        for sub, fn in (("tasks", check_tasks), ("per-task", check_gdb_per_task), ("batch", check_batch),
                        ("one-task", check_one_task)):
            cwd = os.path.join(work, sub)
            os.makedirs(cwd)
            fn(cluster, cwd)
        if prefix:
            cwd = os.path.join(work, "user")
            os.makedirs(cwd)
            os.chmod(cwd, 0o777)
            check_tasks(cluster, cwd, prefix, "as an ordinary user: srun -n 3 sort_work")
        cluster.stop()
        check_two_nodes(work, wrapper)
        left = leftovers(os.path.realpath(work))
        shm = [d for d in set(os.listdir("/dev/shm")) - shm_before if d.startswith("gdbcol-rank-")]
        check(not left and not shm, "no sampler process and no rank's session directory left (%s %s)" % (left, shm))
    finally:
        cluster.stop()
    cleanup(work)
    finish()


main()
