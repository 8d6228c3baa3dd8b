"""An MPI job over two nodes, under GDB: `gdb --args mpirun --host
localhost:2,node2:2 -np 4 mpi_exchange` with `collector mpitrace on`.  The
second node is simulated (other_node.py): a daemon started before GDB, so
that nothing on it descends from the program GDB runs; the launcher reaches
it through its own remote-start mechanism (Open MPI's plm_rsh_agent, Hydra's
-launcher-exec) in place of ssh; the command runs there with a clean
environment, and, as root under Open MPI, in its own PID, mount, UTS
and network namespaces (its own /proc, /dev/shm, hostname "node2" and
address).  Ranks 2 and 3 get the runtime
only through the launcher's forwarding of the environment and record
themselves with a sampler process of their own.

Checked: the job's experiment holds M_r0..M_r3 and ranks.erg lists the job
and all four; ranks 2 and 3 say in their log that they started their own
sampler (and ran on node2 where it is isolated), 0 and 1 do not; every
rank's messages and bytes per peer are exact in our reader and in gprofng's
I/O view; the remote ranks have clock samples; the launcher's experiment
says how the ranks elsewhere were reached; nothing of the collector is left
(no sampler process, no session directory).  Open MPI with -x on its
command line: the experiment says the ranks elsewhere are not recorded and
what to add, and with that added they are.  As an ordinary user too."""

import os
import re
import shutil
import subprocess
import time

from harness import (BUILD, check, cleanup, er_dump, finish, program, run_gdb, shared_workdir, skip_part, skip_test,
                     unprivileged_prefix, wait_closed, workdir)
from mpi_checks import gprofng_channels, reader_peers, truths
from other_node import HOST, Node, can_isolate

BUILD_LIB = os.path.join(os.path.abspath(BUILD), "libcollector")
RANKS = 4
REMOTE = (2, 3)  # --host localhost:2,node2:2 fills this node first
ROUNDS = 20


def launcher_command(name, agent, extra=()):
    """The launcher's command line and the environment it needs, so that
    it starts the second node's daemons through AGENT."""
    if name == "openmpi":
        # Open MPI's shared-memory transport needs the nodes' hostnames to
        # differ; a real second node talks TCP anyway.  Open MPI 4 takes
        # the agent as plm_rsh_agent; Open MPI 5 (PRRTE) as plm_ssh_agent.
        # "reachable weighted": Open MPI's default reachability check finds
        # no path between a container's only (IPv6) address and itself.
        # "--map-by slot": Open MPI 5 maps by core, and with --oversubscribe
        # fills the first node's cores four deep before the second node.
        return (["mpirun.openmpi", "--oversubscribe", "--map-by", "slot", "--allow-run-as-root", "-mca", "plm_rsh_agent", agent,
                 "-mca", "btl", "tcp,self", "-mca", "reachable", "weighted", "--host", "localhost:2,%s:2" % HOST] +
                list(extra), {"PRTE_MCA_plm_ssh_agent": agent})
    # This node by address: Hydra's proxies connect back to the name it
    # gives them, and "localhost" need not resolve (a debootstrap root has
    # no /etc/hosts: the second node's proxy could not connect, and the job
    # waited forever).
    return (["mpiexec.mpich", "-launcher", "ssh", "-launcher-exec", agent, "-localhost", "127.0.0.1",
             "-hosts", "127.0.0.1:2,%s:2" % HOST] + list(extra), {})


def open_mpi_major():
    out = subprocess.run(["mpirun.openmpi", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"Open MPI\)? (\d+)\.", out)
    return int(m.group(1)) if m else 0


def two_nodes_possible(name, prefix=()):
    """Open MPI 5 (PRRTE) places ranks by the hostname its remote daemon
    reports: a node that is not isolated (its own UTS namespace needs root)
    has this machine's name, and every rank runs here.  None, or why not."""
    if name == "openmpi" and open_mpi_major() >= 5 and (prefix or os.geteuid() != 0 or not can_isolate()):
        return ("Open MPI %d's second node (it places ranks by the daemons' hostnames: the simulated node needs "
                "a hostname of its own, a UTS namespace that only root gets here)" % open_mpi_major())
    return None


def node_for(name, cwd, prefix=(), wrapper=()):
    """MPICH's node is not isolated: its UCX takes the two nodes for one
    machine (one boot id) and talks through shared memory, and over TCP
    (UCX_TLS=tcp,self) it hangs in MPI_Finalize 4 to 5 runs in 10 on this
    machine, with no collector and on one node alike."""
    return Node(cwd, prefix, wrapper, isolate=name == "openmpi")


def run_job(name, cwd, node, prefix=(), extra=()):
    if not node.ready():
        check(False, "%s: the simulated node started (%s)" % (name, node.problem or node.log()))
        return None, ""
    launch, env = launcher_command(name, node.agent, extra)
    out = run_gdb(["collector mpitrace on", "collector enable", "run"],
                  launch + ["-np", str(RANKS), program("mpi_exchange_" + name), str(ROUNDS)], cwd,
                  timeout=240, env=env, prefix=prefix)
    print(out)
    job = os.path.join(cwd, "test.1.er")
    wait_closed(*[os.path.join(job, "M_r%d.er" % r) for r in range(RANKS)
                  if os.path.isdir(os.path.join(job, "M_r%d.er" % r))])
    return job, out


def rank_ranks(job):
    return sorted(d for d in os.listdir(job) if d.startswith("M_r")) if job and os.path.isdir(job) else []


def launcher_log(job):
    """The launcher's log: Open MPI 5's mpirun execs prterun, whose
    experiment is _x1.er inside the job's."""
    text = ""
    for sub in ["."] + sorted(d for d in os.listdir(job) if d.startswith("_x")) if job and os.path.isdir(job) else []:
        try:
            text += open(os.path.join(job, sub, "log.xml"), errors="replace").read()
        except OSError:
            pass
    return text


def rank_log(job, rank):
    try:
        return open(os.path.join(job, "M_r%d.er" % rank, "log.xml"), errors="replace").read()
    except OSError:
        return ""


def samplers_in(cwd):
    """The live sampler processes working for this job (they keep the
    working directory of the process they record; a zombie awaits only its
    parent's wait)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if not f.read().startswith(os.path.join(BUILD_LIB, "gdbcol-sampler").encode()):
                    continue
            if os.path.realpath("/proc/%s/cwd" % pid).startswith(os.path.realpath(cwd)):
                found.append(pid)
        except OSError:
            continue
    return found


def leftovers(cwd, node, shm_before):
    """The ranks' sampler processes and session directories still there
    once every sampler had time to end (they end when their process is
    gone).  Only the ranks' own directories: on a node that shares this
    machine's /dev/shm, the suite's other tests have GDB sessions there."""
    deadline = time.monotonic() + 30
    while samplers_in(cwd) and time.monotonic() < deadline:
        time.sleep(0.1)
    return samplers_in(cwd), sorted(d for d in set(node.shm_entries()) - shm_before if d.startswith("gdbcol-rank-"))


def check_two_nodes(name, cwd, prefix=(), label=None):
    label = label or name
    node = node_for(name, cwd, prefix)
    try:
        check_job_on(node, name, cwd, prefix, label)
    finally:
        node.stop()


def check_job_on(node, name, cwd, prefix, label):
    shm_before = set(node.shm_entries())
    job, out = run_job(name, cwd, node, prefix)
    if job is None:
        return
    truth = truths(out)
    check(sorted(truth) == list(range(RANKS)), "%s: every rank printed its messages (%s)" % (label, sorted(truth)))
    ranks = rank_ranks(job)
    check(ranks == ["M_r%d.er" % r for r in range(RANKS)], "%s: one M_r<rank>.er per rank, on both nodes (%s)"
          % (label, ranks))
    group = os.path.join(job, "ranks.erg")
    lines = open(group).read().split("\n") if os.path.exists(group) else []
    check(lines[:2] == ["#analyzer experiment group", job] and
          sorted(lines[2:-1]) == [os.path.join(job, "M_r%d.er" % r) for r in range(RANKS)],
          "%s: ranks.erg lists the job, then every rank of both nodes (%s)" % (label, lines))
    founder = launcher_log(job)
    check("the ranks it starts on other nodes get the runtime" in founder,
          "%s: the launcher's experiment says how the ranks elsewhere were reached" % label)
    for rank in range(RANKS):
        log = rank_log(job, rank)
        own = "by an MPI rank outside the process tree" in log
        check(own == (rank in REMOTE), "%s rank %d: %s" % (
            label, rank, "started its own sampler process (another node)" if rank in REMOTE
            else "recorded by the job's sampler process (GDB's node)"))
        if node.isolated and rank in REMOTE:
            check('<system hostname="%s"' % HOST in log, "%s rank %d: ran on %s (its log's hostname)"
                  % (label, rank, HOST))
        path = os.path.join(job, "M_r%d.er" % rank)
        if not os.path.isdir(path):
            continue
        summary, _, raw = er_dump(path)
        got, mine = reader_peers(raw), truth.get(rank, {})
        check(got == mine, "%s rank %d: messages and bytes per peer exact in our reader (%s, truth %s)"
              % (label, rank, got, mine))
        if rank in REMOTE:
            check(int(summary.get("ticks", "0") or 0) > 0, "%s rank %d: clock samples from its own sampler (%s)"
                  % (label, rank, summary.get("ticks")))
        rows, text = gprofng_channels(path)
        want = {"MPI rank %d (MPI_COMM_WORLD)" % peer: (t[3], t[1]) for peer, t in mine.items()}
        check(rows == want, "%s rank %d: gprofng -ioactivity: bytes received and sent per peer %s (got %s)"
              % (label, rank, want, rows))
    samplers, shm = leftovers(cwd, node, shm_before)
    check(not samplers and not shm, "%s: no sampler process and no session directory left (%s %s)"
          % (label, samplers, shm))
    if not check(sorted(truth) == list(range(RANKS)), "%s: the job ran on both nodes" % label):
        print(node.log())


def check_open_mpi_exports(work):
    """-x on Open MPI's command line: its own list of variables to forward
    is refused beside it, so the experiment says what to add."""
    for sub, extra, want, what in (
            ("x-other", ["-x", "GDBCOL_TEST_X=1"], 2, "this node's ranks recorded, the experiment says how to record "
             "the others"),
            ("x-ours", ["-x", "GDBCOL_TEST_X=1", "-x", "LD_PRELOAD", "-x", "GDBCOL_JOB"], RANKS,
             "every rank of both nodes recorded")):
        cwd = os.path.join(work, sub)
        os.makedirs(cwd)
        node = node_for("openmpi", cwd)
        try:
            job, out = run_job("openmpi", cwd, node, extra=extra)
        finally:
            node.stop()
        ranks = rank_ranks(job)
        advice = "add -x LD_PRELOAD -x GDBCOL_JOB to the command line" in launcher_log(job)
        said = "add -x LD_PRELOAD -x GDBCOL_JOB to record them" in " ".join(out.split())
        check(ranks == ["M_r%d.er" % r for r in range(want)] and advice == (want < RANKS) and said == advice,
              "Open MPI with %s: %s, in the experiment and by GDB (%s)" % (" ".join(extra), what, ranks))


def check_node_without_perf(name, work):
    """A node whose kernel refuses perf events: its ranks' sampler
    processes run without them (issue 39): the ranks' threads sample
    themselves, the sampler writes their samples and their MPI calls, and
    the rank's log says so."""
    cwd = os.path.join(work, "no-perf")
    os.makedirs(cwd)
    node = node_for(name, cwd, wrapper=[program("no_perf_events")])
    try:
        job, out = run_job(name, cwd, node)
    finally:
        node.stop()
    ranks = rank_ranks(job)
    check(ranks == ["M_r%d.er" % r for r in range(RANKS)], "node without perf events: every rank recorded (%s)"
          % ranks)
    for rank in REMOTE:
        log = rank_log(job, rank)
        check("this sampler process is the rank" in log and "the kernel refused it perf events, so the program"
              in log,  # (log.xml's text: its apostrophes are &apos;)
              "node without perf events: rank %d says its own sampler runs without perf events" % rank)
        if rank_log(job, rank):
            summary, _, raw = er_dump(os.path.join(job, "M_r%d.er" % rank))
            check(int(summary.get("ticks", "0") or 0) > 0 and reader_peers(raw),
                  "node without perf events: rank %d has its clock samples (%s) and its MPI calls (%s)"
                  % (rank, summary.get("ticks"), sorted(reader_peers(raw))))


def main():
    found = [name for name, launcher in (("openmpi", "mpirun.openmpi"), ("mpich", "mpiexec.mpich"))
             if shutil.which(launcher) and os.path.exists(program("mpi_exchange_" + name))]
    if not found:
        skip_test("no MPI implementation (Debian packages openmpi-bin libopenmpi-dev, mpich libmpich-dev)")
    if os.geteuid() == 0 and not can_isolate():
        skip_part("the second node's own PID, mount, UTS and network namespaces (unshare refused): it is a process of "
                  "its own session only")
    work = workdir()
    for name in list(found):
        why_not = two_nodes_possible(name)
        if why_not:
            skip_part(why_not)
            found.remove(name)
    if not found:
        skip_test("no MPI implementation here can run a job over the simulated second node")
    for name in found:
        cwd = os.path.join(work, name)
        os.makedirs(cwd)
        check_two_nodes(name, cwd)
    if "openmpi" in found:
        check_open_mpi_exports(work)
    check_node_without_perf(found[-1], work)
    cleanup(work)
    prefix = unprivileged_prefix()
    user_found = [name for name in found if two_nodes_possible(name, prefix) is None]
    if prefix and user_found:  # GDB, the launcher, the node's daemon and every rank as an ordinary user
        shared = shared_workdir()
        check_two_nodes(user_found[0], shared, prefix, "%s as an ordinary user" % user_found[0])
        cleanup(shared)
    elif prefix:
        skip_part("the ordinary-user run: " + two_nodes_possible(found[0], prefix))
    finish()


main()
