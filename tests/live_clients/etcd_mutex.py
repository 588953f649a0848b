#!/usr/bin/python3
"""The etcd-clientv3 client profile against the real Go client and a real etcd.

A real etcd (Debian's 3.4, one member, its default 100 ms heartbeat) on 127.0.0.1, and two
Go processes using etcd's own clientv3/concurrency (tests/live_clients/etcd_mutex/main.go,
built here against Debian's golang-etcd-server-dev) with 4 s sessions: the holder takes
the Mutex and is stopped with SIGSTOP past its session; the waiter blocks in Mutex.Lock.
Measured, on this harness's monotonic clock as it reads each line:

  - when the waiter took the lock, from the holder's grant (the server revoked the
    holder's lease and deleted its key; the waiter's watch fired),
  - when the holder, woken, saw its session end (Session.Done), from its waking.

locksim runs the same world (tests/live_clients/etcd-mutex.json: client "etcd-clientv3")
and must predict both within the tolerances below.

    tests/live_clients/etcd_mutex.py build/locksim
"""
import os
import signal
import subprocess
import sys
import time
import urllib.request

from harness import (free_port, live_main, model_takeover_and_loss,
                     stop_all, takeover_and_loss_verdict, wait_until)

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "etcd-mutex.json")
SOURCE = os.path.join(HERE, "etcd_mutex")

TTL = 4  # seconds, granted as asked (etcd's minimum here is 2 s)
PAUSE_AT = 0.5  # the holder is stopped this long after its grant, before its first keep-alive…
PAUSE_FOR = 8.0  # …for this long, past its lease
# What the model may be off by. etcd's lessor looks for expired leases every 500 ms
# (revokeExpiredLeases), and the lines are stamped as this harness reads them.
TAKEOVER_TOLERANCE = 0.5 + 0.1
# Woken, the client's deadlineLoop (every 500 ms) or its overdue keep-alive's answer (TTL
# -1) ends the session; the model ends its belief at once.
LOST_TOLERANCE = 0.5 + 0.1


def build(folder):
    """The Go program, built in GOPATH mode from Debian's packaged sources."""
    binary = os.path.join(folder, "etcd_mutex")
    env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=os.path.join(folder, "gocache"),
               GOFLAGS="", CGO_ENABLED="0")
    subprocess.run(["go", "build", "-o", binary, "."], cwd=SOURCE, env=env, check=True)
    return binary


def start_etcd(folder):
    port, peer_port = free_port(), free_port()
    client, peer = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{peer_port}"
    log = open(os.path.join(folder, "etcd.log"), "a")
    proc = subprocess.Popen(
        ["etcd", "--name", "n1", "--data-dir", os.path.join(folder, "data"), "--listen-client-urls", client,
         "--advertise-client-urls", client, "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
         "--initial-cluster", f"n1={peer}"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    log.close()
    wait_until(proc, "etcd did not report itself healthy", 60, lambda: healthy(client))
    return proc, client


def healthy(client):
    try:
        with urllib.request.urlopen(client + "/health", timeout=2) as answer:
            return b'"health":"true"' in answer.read()
    except OSError:
        return False


def line(proc, expected):
    """The next line of `proc`, which must be `expected`; when it was read."""
    text = proc.stdout.readline().strip()
    if text != expected:
        raise RuntimeError(f"etcd_mutex printed {text!r}, expected {expected!r}")
    return time.monotonic()


def real_run(folder):
    binary = build(folder)
    etcd, endpoint = start_etcd(folder)
    holder = waiter = None
    try:
        holder = subprocess.Popen([binary, "holder", endpoint, str(TTL)], stdout=subprocess.PIPE, text=True)
        granted = line(holder, "granted")
        waiter = subprocess.Popen([binary, "waiter", endpoint, str(TTL)], stdout=subprocess.PIPE, text=True)
        line(waiter, "waiting")
        time.sleep(max(0.0, granted + PAUSE_AT - time.monotonic()))
        os.kill(holder.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        taken = line(waiter, "granted")
        time.sleep(max(0.0, stopped + PAUSE_FOR - time.monotonic()))
        os.kill(holder.pid, signal.SIGCONT)
        woke = time.monotonic()
        lost = line(holder, "lost")
        return {"taken": taken - granted, "lost": lost - woke}
    finally:
        stop_all(holder, waiter, etcd)


def judge(real, locksim):
    model = model_takeover_and_loss(locksim, SCENARIO)
    tolerances = {"taken": TAKEOVER_TOLERANCE, "lost": LOST_TOLERANCE}
    return takeover_and_loss_verdict("etcd clientv3 Mutex", real, model, tolerances, "sees its session end")


if __name__ == "__main__":
    sys.exit(live_main(__doc__, "etcd", real_run, judge))
