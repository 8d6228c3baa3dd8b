"""A second node, simulated on this machine, for MPI jobs that span nodes.

A real cluster runs the launcher's daemon on another node through ssh: the
daemon starts in a clean environment, outside the process tree of the
launcher, with its own process ids, hostname and /dev/shm.  Here:

- the node is a daemon this module starts before GDB (so nothing on it
  descends from the program GDB runs: the sampler process GDB's program
  starts does not follow it); as root it lives in its own PID, mount, UTS
  and network namespaces, with its own /proc, hostname ("node2"),
  boot id, /dev/shm and address (a veth pair: 10.231.N.2 there, 10.231.N.1 here,
  this machine's own addresses reached through it), as an ordinary user
  it is only a process of its own session.  Its own address matters to
  Open MPI 5: PRRTE takes two daemons that report the same address for
  one node and runs every rank on this one;
- the "ssh" the launcher is given (Open MPI's plm_rsh_agent, Hydra's
  -launcher-exec) is an agent that asks the daemon to run the command line
  and waits for it, like ssh: the command runs with `env -i` (PATH, HOME
  only), in a session of its own, and is killed if the agent is.

    python3 other_node.py serve SOCKET LOG [WRAPPER...]   (the daemon)
    other_node.py agent [OPTIONS] HOST WORDS... (what the launcher runs)"""

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

HOST = "node2"
CLEAN_PATH = "/usr/local/bin:/usr/bin:/bin"
# The system's Python: another user may not reach the suite's (root's pyenv).
PYTHON = shutil.which("python3", path="/usr/bin:/bin") or sys.executable


class Node:
    """The daemon, started by the test (outside GDB's tree), and the agent
    script the launcher runs in place of ssh."""

    def __init__(self, work, prefix=(), wrapper=(), isolate=True):
        """PREFIX runs the daemon as another user (the harness's
        unprivileged_prefix): a node of that user's, not isolated (nor
        where ISOLATE is false).  WRAPPER
        runs each command the node is given (no_perf_events: a node whose
        kernel refuses perf events)."""
        self.socket_path = os.path.join(work, "node.sock")
        self.log_path = os.path.join(work, "node.log")
        self.agent = os.path.join(work, "node-agent")
        with open(self.agent, "w") as f:
            f.write("#!%s\nimport sys\nsys.path.insert(0, %r)\nimport other_node\nother_node.agent(%r, sys.argv[1:])\n"
                    % (PYTHON, os.path.dirname(os.path.abspath(__file__)), self.socket_path))
        os.chmod(self.agent, 0o755)
        serve = [PYTHON, os.path.abspath(__file__), "serve", self.socket_path, self.log_path] + list(wrapper)
        self.isolated = isolate and os.geteuid() == 0 and not prefix and can_isolate()
        self.problem = None
        if self.isolated:  # its own pids, /proc, hostname, /dev/shm, network
            # The daemon waits for its address before it listens: the
            # launcher's first command runs with the network up.
            # A boot id of its own too: UCX (MPICH's transport) takes two
            # processes of one boot id for one machine and joins them
            # through shared memory, which is the node's own here; and a
            # /sys of its network's (UCX finds network devices there), the
            # machine's cgroups kept in it (slurmd needs them).
            boot_id = os.path.join(work, "node-boot_id")
            with open(boot_id, "w") as f:
                f.write("%s\n" % uuid.uuid4())
            setup = ("hostname %s && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && "
                     "mount --bind %s /proc/sys/kernel/random/boot_id && "
                     "mkdir /dev/shm/.cgroup && mount --rbind /sys/fs/cgroup /dev/shm/.cgroup && "
                     "mount -t sysfs sysfs /sys && mount --move /dev/shm/.cgroup /sys/fs/cgroup && "
                     "rmdir /dev/shm/.cgroup && "
                     "while ! [ -e \"$0\" ]; do sleep 0.05; done && exec \"$@\"" % (HOST, shlex.quote(boot_id)))
            serve = ["unshare", "--pid", "--fork", "--mount-proc", "--uts", "--mount", "--propagation", "private",
                     "--net", "sh", "-c", setup, self.socket_path + ".net"] + serve
        self.process = subprocess.Popen(list(prefix) + serve, start_new_session=True, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={"PATH": CLEAN_PATH, "HOME": os.environ.get("HOME", "/")})
        if self.isolated:
            self.problem = self._connect()
            open(self.socket_path + ".net", "w").close()
        deadline = time.monotonic() + 30
        while not os.path.exists(self.socket_path) and time.monotonic() < deadline and self.process.poll() is None:
            time.sleep(0.05)

    def _connect(self):
        """A veth pair between this machine and the node's network
        namespace (that of unshare itself: it unshares, then forks the
        node's PID 1).  None, or why it could not be made."""
        # (unshare enters its namespace a moment after it starts: a link
        # moved into its namespace before that stays in this one's)
        deadline = time.monotonic() + 20
        while _netns(self.process.pid) in (None, _netns("self")) and time.monotonic() < deadline:
            if self.process.poll() is not None:
                return "the node's namespaces could not be made (unshare ended)"
            time.sleep(0.01)
        number = self.process.pid % 250
        here, there = "gcn%da" % self.process.pid, "gcn%db" % self.process.pid
        node = ["nsenter", "-t", str(self.process.pid), "-n"]
        for command in (["ip", "link", "add", here, "type", "veth", "peer", "name", there,
                         "netns", str(self.process.pid)],
                        ["ip", "addr", "add", "10.231.%d.1/24" % number, "dev", here],
                        ["ip", "link", "set", here, "up"],
                        node + ["ip", "link", "set", "lo", "up"],
                        node + ["ip", "addr", "add", "10.231.%d.2/24" % number, "dev", there],
                        node + ["ip", "link", "set", there, "up"],
                        node + ["ip", "route", "add", "default", "via", "10.231.%d.1" % number]):
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=20)
            except (OSError, subprocess.TimeoutExpired) as e:
                return "%s: %s" % (" ".join(command), e)
            if done.returncode != 0:
                return "%s: %s" % (" ".join(command), done.stderr.strip())
        self.link = here
        self.address_here, self.address = "10.231.%d.1" % number, "10.231.%d.2" % number
        return None

    def ready(self):
        return os.path.exists(self.socket_path) and self.process.poll() is None and not self.problem

    def log(self):
        try:
            return open(self.log_path, errors="replace").read()
        except OSError:
            return ""

    def shm_entries(self):
        """What the node's /dev/shm holds (its own, where it is isolated)."""
        if not self.isolated:
            return os.listdir("/dev/shm") if os.path.isdir("/dev/shm") else []
        try:  # the daemon: the child of unshare, in the node's mount namespace
            with open("/proc/%d/task/%d/children" % (self.process.pid, self.process.pid)) as f:
                daemon = f.read().split()[0]
        except (OSError, IndexError):
            return []
        out = subprocess.run(["nsenter", "-t", daemon, "-m", "ls", "-A", "/dev/shm"], capture_output=True, text=True)
        return out.stdout.split()

    def stop(self):
        if getattr(self, "link", None):  # its peer goes with the namespace; this end may outlive it briefly
            subprocess.run(["ip", "link", "del", self.link], capture_output=True)
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def _netns(pid):
    try:
        return os.readlink("/proc/%s/ns/net" % pid)
    except OSError:
        return None


def can_isolate():
    try:
        return subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "--uts", "--mount", "--net", "true"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# ---- the agent (in place of ssh) -------------------------------------------

def agent(socket_path, argv):
    """ssh's calling convention: options, the host, then words the remote
    shell joins into one command line."""
    while argv and argv[0].startswith("-"):
        argv = argv[1:]
    if len(argv) < 2:
        sys.stderr.write("node agent: usage: agent [OPTIONS] HOST COMMAND...\n")
        sys.exit(255)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(socket_path)
    conn.sendall((json.dumps({"host": argv[0], "command": " ".join(argv[1:]), "cwd": os.getcwd()}) + "\n").encode())
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:
            sys.exit(255)  # the node went away, as ssh says
        answer += chunk
    sys.exit(int(answer.split()[-1]))


# ---- the daemon ---------------------------------------------------------------

_exits = {}
_exits_changed = threading.Condition()


def _reap_forever():
    """As PID 1 of its namespace the daemon adopts every orphan (a rank's
    sampler process when it ends): every child is reaped here, and the
    command's own status handed to whoever waits for it."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            time.sleep(0.05)
            continue
        with _exits_changed:
            _exits[pid] = os.waitstatus_to_exitcode(status)
            _exits_changed.notify_all()


def _start(command, cwd, log_fd, wrapper):
    """The command line in a shell, in a clean environment and a session of
    its own (not subprocess: its own reaping would race the reaper's)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.chdir(cwd)
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            argv = list(wrapper) + ["/bin/sh", "-c", command]
            os.execve(argv[0], argv, {"PATH": CLEAN_PATH, "HOME": os.environ.get("HOME", "/")})
        finally:
            os._exit(127)
    return pid


def _run(conn, log, wrapper):
    request = json.loads(conn.makefile().readline())
    log.write("run on %s: %s\n" % (request["host"], request["command"]))
    log.flush()
    pid = _start(request["command"], request.get("cwd") or "/", log.fileno(), wrapper)
    gone = threading.Event()

    def watch_agent():  # ssh's end: the remote command is killed when the connection drops
        conn.recv(1)
        if not gone.is_set():
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
    threading.Thread(target=watch_agent, daemon=True).start()
    with _exits_changed:
        _exits_changed.wait_for(lambda: pid in _exits)
        code = _exits.pop(pid)
    gone.set()
    log.write("exit %d: %s\n" % (code, request["command"][:80]))
    log.flush()
    try:
        conn.sendall(b"exit %d\n" % (code if code >= 0 else 128 - code))
    except OSError:
        pass
    conn.close()


def serve(socket_path, log_path, wrapper):
    log = open(log_path, "a")
    log.write("node %s: pid %d\n" % (socket.gethostname(), os.getpid()))
    log.flush()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=_reap_forever, daemon=True).start()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path + ".new")
    listener.listen(16)
    os.rename(socket_path + ".new", socket_path)  # it exists once it listens
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=_run, args=(conn, log, wrapper), daemon=True).start()


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
