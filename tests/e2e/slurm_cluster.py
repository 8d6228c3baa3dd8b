"""A one-node Slurm cluster the test starts itself: munged, slurmctld and
slurmd (Debian's slurmctld, slurmd, slurm-client and munge), each in the
foreground as a child of the test, with their own key, socket, ports,
state and logs in one directory; stopped (and every job step with them)
by stop().  Clients reach it through SLURM_CONF (env()).

slurmd starts each task as the user who submitted it, so the daemons run
as root; an ordinary user submits jobs to them (srun, sbatch).  WRAPPER
runs slurmd (and so every task it starts): the filter that refuses perf
events, a mount namespace that opens the way to the checkout for an
ordinary user's tasks.

With SECOND (an isolated other_node.Node: its own network namespace,
hostname and /dev/shm), the cluster has two nodes: this machine and that
one, each with its slurmd (the second's started through the node, as ssh
would on a cluster), every daemon reached by the addresses of the veth
pair between them (127.0.0.1 is each node's own)."""

import os
import shutil
import signal
import socket
import subprocess
import time

PROGRAMS = ("munged", "slurmctld", "slurmd", "srun", "sbatch", "sinfo")


def missing_programs():
    return [p for p in PROGRAMS if shutil.which(p, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") is None]


def second_host():
    from other_node import HOST
    return HOST


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _which(name):
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


class Cluster:
    def __init__(self, work, wrapper=(), second=None):
        self.dir = os.path.join(work, "slurm" if second is None else "slurm2")
        os.makedirs(os.path.join(self.dir, "state"))
        os.makedirs(os.path.join(self.dir, "spool"))
        os.chmod(self.dir, 0o755)  # the users who submit read slurm.conf and reach munge's socket
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.node = socket.gethostname().split(".")[0]
        address = "127.0.0.1" if second is None else second.address_here
        self.node_local = "/dev/shm/slurm-node-%d" % os.getpid()  # (each node's /dev/shm is its own)
        nodes = [(self.node, address)] + ([] if second is None else [(second_host(), second.address)])
        self.processes = []
        self.problem = None
        key = os.path.join(self.dir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        munge_socket = os.path.join(self.dir, "munge.sock")
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "ClusterName=gdbcol",
                # (addresses given: the machine's name need not resolve,
                # as in a container or an nspawn root)
                "SlurmctldHost=%s(%s)" % (self.node, address),
                "SlurmctldPort=%d" % _free_port(),
                "SlurmdPort=%d" % _free_port(),
                "AuthType=auth/munge",
                "AuthInfo=socket=%s" % munge_socket,
                "CredType=cred/munge",
                "SlurmUser=root",
                "SlurmdUser=root",
                "StateSaveLocation=%s/state" % self.dir,
                # (%n: each node's own; where there are two, the spool and
                # the step's scratch space of each in its own /dev/shm: the
                # PMIx plugin takes the spool's name unexpanded)
                "SlurmdSpoolDir=%s" % (os.path.join(self.dir, "spool") if second is None else self.node_local),
                "TmpFS=%s" % ("/tmp" if second is None else self.node_local),
                "SlurmctldPidFile=%s/slurmctld.pid" % self.dir,
                "SlurmdPidFile=%s/slurmd-%%n.pid" % self.dir,
                "SlurmctldLogFile=%s/slurmctld.log" % self.dir,
                "SlurmdLogFile=%s/slurmd-%%n.log" % self.dir,
                "ProctrackType=proctrack/linuxproc",  # no cgroups needed
                "TaskPlugin=task/none",
                "MpiDefault=none",
                "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none",
                "SchedulerType=sched/builtin",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_CPU",
                "SlurmdParameters=config_overrides",
                "ReturnToService=2",
            ] + ["NodeName=%s NodeAddr=%s CPUs=%d State=UNKNOWN" % (name, at, os.cpu_count() or 1)
                 for name, at in nodes] + [

                "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
                ""]))
        os.chmod(self.conf, 0o644)
        self._start("munged", [_which("munged"), "-F", "-f", "--socket=" + munge_socket, "--key-file=" + key,
                     "--pid-file=%s/munged.pid" % self.dir, "--log-file=%s/munged.log" % self.dir,
                     "--seed-file=%s/munged.seed" % self.dir])
        deadline = time.monotonic() + 20
        while not os.path.exists(munge_socket) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.chmod(self.dir, 0o755)
        self._start("slurmctld", [_which("slurmctld"), "-D", "-i", "-f", self.conf])
        if second is not None:
            os.makedirs(self.node_local, mode=0o755)
        self._start("slurmd", list(wrapper) + [_which("slurmd"), "-D", "-f", self.conf])
        if second is not None:  # (the node runs it under its own wrapper, and ends it when it stops)
            self._start("slurmd-" + second_host(), [second.agent, second_host(), "mkdir", "-p", self.node_local, "&&",
                                                   "exec", _which("slurmd"), "-D", "-f", self.conf])
        self.problem = self._wait_idle(len(nodes))

    def _start(self, name, command):
        log = open(os.path.join(self.dir, name + ".out"), "w")
        self.processes.append((name, subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                                      start_new_session=True,
                                                      env=dict(os.environ, SLURM_CONF=self.conf))))

    def env(self):
        return {"SLURM_CONF": self.conf}

    def _wait_idle(self, nodes):
        """None once the NODES take jobs, else what the daemons said."""
        deadline = time.monotonic() + 60
        state = ""
        while time.monotonic() < deadline:
            dead = [name for name, p in self.processes if p.poll() is not None]
            if dead:
                return "%s ended at its start: %s" % (", ".join(dead), self.logs())
            out = subprocess.run([_which("sinfo"), "-h", "-N", "-o", "%T"], capture_output=True, text=True,
                                 env=dict(os.environ, SLURM_CONF=self.conf))
            state = out.stdout.strip()
            if state.split() == ["idle"] * nodes:
                return None
            time.sleep(0.25)
        return "the nodes stayed %r: %s" % (state, self.logs())

    def logs(self):
        text = ""
        for name in sorted(os.listdir(self.dir)):
            if name.endswith((".log", ".out")):
                with open(os.path.join(self.dir, name), errors="replace") as f:
                    text += "--- %s\n%s" % (name, f.read()[-3000:])
        return text

    def stop(self):
        self._stop_daemons()
        shutil.rmtree(self.node_local, ignore_errors=True)

    def _stop_daemons(self):
        for _, p in reversed(self.processes):  # slurmd first: it ends its job steps
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
