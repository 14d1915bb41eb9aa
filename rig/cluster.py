#!/usr/bin/env python3
"""Boot a cluster group's guests: one vde switch, a shared directory, a QEMU per node, their control ports.

cluster.py --nodes K --dir DIR --console PREFIX --tap PREFIX --log FILE
           --timeout SECONDS [--live] -- QEMU-COMMAND...

QEMU-COMMAND is boot.sh's command for one guest, without serial ports:
this adds to it, for node N (1..K), "rig.node=N rig.nodes=K ssi.node=N
ssi.nodes=K ssi.iface=eth0" on the kernel command line, the console
(ttyS0) in PREFIX-nodeN.log, the TAP port (ttyS1) in PREFIX-nodeN.log of
--tap, the control port (ttyS2) on a unix socket this program serves, a
virtio NIC (MAC 52:54:00:12:34:0N) on a vde_switch whose socket is
DIR/switch, and DIR/shared over 9p (mount tag "cluster"), emptied first.

A node's guest sends one-line requests on its control port (rig-ctl in the
guest) and gets "ok" or "error: WHY" back: "kill N" kills node N's QEMU
(a power failure; "rig: node N killed on request" is appended to its
console), "start N" boots node N again; "start N ssi.NAME=VALUE..." boots
it with those parameters after its own on the command line (the later
wins), for that boot only: how a test tries bad SSI boot parameters.  Each boot of a node after its
first is a new incarnation I, logged in PREFIX-nodeN.I.log.  Node 1 runs
the tests and may not be killed.  When node 1 has powered off, its agents
are told to finish (DIR/shared/agent/N/.finish) if it has not done so.

One run at a time uses DIR (and the logs): a second one waits for the
first, on a lock on DIR/lock.

Returns when every node is off: 0, or 1 if a QEMU failed.  At the timeout
every node still running is killed, "rig: QEMU killed after Ss timeout"
is appended to its console, and this returns 0 (rig/check-run.py judges).
Nothing it started outlives it: QEMUs and the switch die with it.
"""

import argparse
import ctypes
import fcntl
import glob
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
UNIX_PATH_MAX = 107


def die_with_parent():
    """In a child before exec: get SIGKILL when this runner dies."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Stop(Exception):
    """A signal ended the run."""


class Node:
    def __init__(self, n):
        self.n = n
        self.inc = 0
        self.proc = None
        self.console = self.tap = None
        self.listener = self.conn = None
        self.buf = b""
        self.params = []    # this boot's extra ssi.* parameters


# What "start N" may add to a node's command line.
SSI_PARAM = re.compile(r"ssi\.[a-z_]+=[\x21-\x7e]*")


class Cluster:
    def __init__(self, args):
        self.args = args
        self.k = args.nodes
        self.dir = os.path.abspath(args.dir)
        self.shared = os.path.join(self.dir, "shared")
        self.switch_sock = os.path.join(self.dir, "switch")
        self.nodes = {n: Node(n) for n in range(1, self.k + 1)}
        self.sel = selectors.DefaultSelector()
        self.switch = None
        self.failed = []
        self.t0 = time.monotonic()
        self.logf = open(args.log, "w", buffering=1)
        qemu = list(args.qemu)
        if qemu and qemu[0] == "--":
            qemu = qemu[1:]
        if "-append" not in qemu:
            raise SystemExit("cluster.py: the QEMU command has no -append")
        self.qemu = qemu

    def say(self, msg):
        line = f"[{time.monotonic() - self.t0:7.1f}] {msg}"
        self.logf.write(line + "\n")
        if not self.args.live:
            print(line, flush=True)

    def sock_path(self, path):
        if len(path) > UNIX_PATH_MAX:
            raise SystemExit(f"cluster.py: {path} is too long for a unix socket "
                             f"({len(path)} > {UNIX_PATH_MAX} bytes): use a "
                             "clone at a shorter path")
        return path

    def log_name(self, prefix, node):
        suffix = "" if node.inc == 1 else f".{node.inc}"
        return f"{prefix}-node{node.n}{suffix}.log"

    def prepare(self):
        # Every log of an earlier run goes: the checker judges every file.
        for prefix in (self.args.console, self.args.tap):
            for f in glob.glob(glob.escape(prefix) + "-node*.log"):
                os.unlink(f)
        os.makedirs(self.dir, exist_ok=True)
        shutil.rmtree(self.shared, ignore_errors=True)
        if os.path.exists(self.shared):
            raise SystemExit(f"cluster.py: cannot empty {self.shared}")
        for n in range(2, self.k + 1):
            os.makedirs(os.path.join(self.shared, "agent", str(n)))
        os.chmod(self.shared, 0o755)
        for n in self.nodes:
            p = self.sock_path(os.path.join(self.dir, f"ctl-{n}.sock"))
            if os.path.exists(p):
                os.unlink(p)

    def start_switch(self):
        self.sock_path(os.path.join(self.switch_sock, "ctl"))
        shutil.rmtree(self.switch_sock, ignore_errors=True)
        # In the foreground, its console on a pipe we hold open: the switch
        # ends when the pipe closes, or at the latest with this runner.
        self.switch = subprocess.Popen(
            ["vde_switch", "--sock", self.switch_sock, "--mode", "0600"],
            stdin=subprocess.PIPE, stdout=self.logf, stderr=self.logf,
            preexec_fn=die_with_parent)
        for _ in range(100):
            if os.path.exists(os.path.join(self.switch_sock, "ctl")):
                self.say(f"switch: {self.switch_sock} (pid {self.switch.pid})")
                return
            if self.switch.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit(f"cluster.py: vde_switch did not start on {self.switch_sock} "
                         f"(see {self.args.log}; is vde2 installed? make deps)")

    def qemu_command(self, node):
        n, k = node.n, self.k
        cmd = list(self.qemu)
        i = cmd.index("-append") + 1
        cmd[i] += (f" rig.node={n} rig.nodes={k} ssi.node={n} ssi.nodes={k}"
                   " ssi.iface=eth0")
        cmd[i] += "".join(f" {p}" for p in node.params)
        if self.args.live and n == 1:
            # The person sees node 1's console live; it is logged as well.
            cmd += ["-chardev", f"stdio,id=con,mux=on,signal=off,logfile={node.console}",
                    "-mon", "chardev=con,mode=readline"]
        else:
            cmd += ["-chardev", f"file,id=con,path={node.console}"]
        ctl = os.path.join(self.dir, f"ctl-{n}.sock")
        cmd += ["-chardev", f"file,id=tap,path={node.tap}",
                "-chardev", f"socket,id=ctl,path={ctl}",
                "-serial", "chardev:con", "-serial", "chardev:tap",
                "-serial", "chardev:ctl",
                "-netdev", f"vde,id=net0,sock={self.switch_sock}",
                "-device", f"virtio-net-pci,netdev=net0,mac=52:54:00:12:34:{n:02x}",
                # passthrough: the files keep the guests' owners and modes
                # (QEMU runs as root); the guests check permissions.
                "-virtfs", f"local,path={self.shared},mount_tag=cluster,"
                           "security_model=passthrough"]
        return cmd, ctl

    def start_node(self, node):
        node.inc += 1
        node.console = self.log_name(self.args.console, node)
        node.tap = self.log_name(self.args.tap, node)
        cmd, ctl = self.qemu_command(node)
        # Listen before QEMU starts: it connects to the socket at once.
        if os.path.exists(ctl):
            os.unlink(ctl)
        node.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        node.listener.bind(ctl)
        node.listener.listen(1)
        node.listener.setblocking(False)
        self.sel.register(node.listener, selectors.EVENT_READ, ("accept", node))
        # Node 1's console live: on this runner's stdin and stdout (a
        # terminal for a guest shell, or /dev/null for input).
        live = self.args.live and node.n == 1
        node.proc = subprocess.Popen(
            cmd, stdin=None if live else subprocess.DEVNULL,
            stdout=None if live else self.logf,
            stderr=None if live else self.logf,
            preexec_fn=die_with_parent)
        self.say(f"node {node.n}: started, incarnation {node.inc} (pid {node.proc.pid}), "
                 f"console {node.console}")

    def close_ports(self, node):
        for s in (node.listener, node.conn):
            if s is not None:
                self.sel.unregister(s)
                s.close()
        node.listener = node.conn = None
        node.buf = b""

    def kill(self, node, note):
        node.proc.kill()
        node.proc.wait()
        node.proc = None
        self.close_ports(node)
        with open(node.console, "a") as f:
            f.write(f"\n{note}\n")
        self.say(f"node {node.n}: {note}")

    def request(self, sender, line):
        """The answer to one request: "ok" or "error: ..."."""
        words = line.split()
        params = words[2:] if words[:1] == ["start"] else []
        if (len(words) - len(params) != 2 or words[0] not in ("kill", "start")
                or not words[1].isdigit()
                or not all(SSI_PARAM.fullmatch(p) for p in params)):
            return (f"error: unknown request '{line}': "
                    "rig-ctl kill N | start N [ssi.NAME=VALUE...]")
        verb, n = words[0], int(words[1])
        self.say(f"node {sender.n}: {verb} {n}")
        if n not in self.nodes:
            return f"error: no node {n}: the cluster has nodes 1 to {self.k}"
        node = self.nodes[n]
        if verb == "kill":
            if n == 1:
                return "error: node 1 runs the tests: it may not be killed"
            if node.proc is None:
                return f"error: node {n} is not running"
            self.kill(node, f"rig: node {n} killed on request")
            return "ok"
        if node.proc is not None:
            return f"error: node {n} is running: kill it first"
        if self.nodes[1].proc is None:
            return "error: node 1 has powered off: the run is ending"
        node.params = params
        self.start_node(node)
        return "ok"

    def on_ready(self, kind, node):
        if kind == "accept":
            try:
                conn, _ = node.listener.accept()
            except BlockingIOError:
                return
            self.sel.unregister(node.listener)
            node.listener.close()
            node.listener = None
            conn.setblocking(False)
            node.conn = conn
            self.sel.register(conn, selectors.EVENT_READ, ("read", node))
            return
        try:
            data = node.conn.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.sel.unregister(node.conn)
            node.conn.close()
            node.conn = None
            return
        node.buf += data
        while b"\n" in node.buf:
            raw, node.buf = node.buf.split(b"\n", 1)
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            answer = self.request(node, line)
            if answer != "ok":
                self.say(f"node {node.n}: {answer}")
            # The sender may be the node a kill just ended.
            if node.conn is None:
                return
            try:
                node.conn.setblocking(True)
                node.conn.settimeout(5)
                node.conn.sendall((answer + "\n").encode())
                node.conn.setblocking(False)
            except OSError as e:
                self.say(f"node {node.n}: cannot answer: {e}")

    def finish_agents(self):
        for n in range(2, self.k + 1):
            path = os.path.join(self.shared, "agent", str(n), ".finish")
            try:
                with open(path, "a"):
                    pass
            except OSError as e:
                self.say(f"cannot tell node {n}'s agent to finish: {e}")

    def reap(self):
        for node in self.nodes.values():
            if node.proc is None:
                continue
            rc = node.proc.poll()
            if rc is None:
                continue
            node.proc = None
            self.close_ports(node)
            if rc != 0:
                self.failed.append(f"node {node.n}'s QEMU (incarnation {node.inc}) "
                                   f"exited with {rc}")
            self.say(f"node {node.n}: powered off (QEMU exit {rc})")
            if node.n == 1:
                self.finish_agents()

    def run(self):
        self.prepare()
        self.start_switch()
        for node in self.nodes.values():
            self.start_node(node)
        timeout = self.args.timeout
        deadline = self.t0 + timeout if timeout > 0 else None
        while any(node.proc for node in self.nodes.values()):
            for key, _ in self.sel.select(timeout=0.1):
                kind, node = key.data
                # A kill while handling an earlier event may have closed it.
                if (node.listener if kind == "accept" else node.conn) is key.fileobj:
                    self.on_ready(kind, node)
            self.reap()
            if deadline and time.monotonic() > deadline:
                for node in self.nodes.values():
                    if node.proc is not None:
                        self.kill(node, f"rig: QEMU killed after {timeout}s timeout")
                print(f"qemu: timeout after {timeout}s")
                return 0
        for f in self.failed:
            print(f"rig: error: {f} (see {self.args.log})", file=sys.stderr)
        return 1 if self.failed else 0

    def cleanup(self):
        killed_live = False
        for node in self.nodes.values():
            if node.proc is not None:
                node.proc.kill()
                node.proc.wait()
                killed_live |= self.args.live and node.n == 1
                self.say(f"node {node.n}: killed as the runner ends")
                node.proc = None
            self.close_ports(node)
            ctl = os.path.join(self.dir, f"ctl-{node.n}.sock")
            if os.path.exists(ctl):
                os.unlink(ctl)
        if self.switch is not None:
            self.switch.stdin.close()
            try:
                self.switch.wait(5)
            except subprocess.TimeoutExpired:
                self.switch.kill()
                self.switch.wait()
            self.say("switch: stopped")
        if killed_live and sys.stdin.isatty():
            subprocess.run(["stty", "sane"], check=False)
        self.logf.close()


def on_signal(signum, _frame):
    raise Stop(signal.Signals(signum).name)


def lock_dir(path):
    """Hold DIR/lock for this run, after waiting for another run's end."""
    os.makedirs(path, exist_ok=True)
    f = open(os.path.join(path, "lock"), "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "?"
        print(f"cluster.py: another cluster run (pid {holder}) is using {path}: "
              "waiting for it to end", flush=True)
        fcntl.flock(f, fcntl.LOCK_EX)
    f.truncate(0)
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--console", required=True, help="console log prefix")
    ap.add_argument("--tap", required=True, help="TAP log prefix")
    ap.add_argument("--log", required=True, help="this runner's own log")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds for the whole run, 0 for none")
    ap.add_argument("--live", action="store_true",
                    help="node 1's console on stdin and stdout (make run)")
    ap.add_argument("qemu", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    if not 2 <= args.nodes <= 9:
        ap.error(f"--nodes {args.nodes}: a cluster has 2 to 9 nodes")
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, on_signal)
    try:
        lock = lock_dir(os.path.abspath(args.dir))
    except Stop as e:
        print(f"rig: error: cluster run stopped by {e} while waiting for {args.dir}",
              file=sys.stderr)
        return 1
    cluster = Cluster(args)
    try:
        return cluster.run()
    except Stop as e:
        cluster.say(f"stopped by {e}")
        print(f"rig: error: cluster run stopped by {e}", file=sys.stderr)
        return 1
    finally:
        cluster.cleanup()
        lock.close()


if __name__ == "__main__":
    sys.exit(main())
