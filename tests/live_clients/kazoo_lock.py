#!/usr/bin/python3
"""The kazoo client profile against the real library and a real ZooKeeper.

A real ZooKeeper (Debian's, tickTime 200 ms) on 127.0.0.1, and two processes using
kazoo's own Lock recipe (kazoo/recipe/lock.py) with 4 s sessions: the holder takes the
lock and is stopped with SIGSTOP past its session; the waiter blocks in Lock.acquire.
Measured, on the one monotonic clock of this machine:

  - when the waiter took the lock, from the holder's grant (the server expired the
    holder's session and deleted its node; the waiter's watch fired),
  - when the holder, woken, heard that its session was LOST, from its waking.

locksim runs the same world (tests/live_clients/kazoo-lock.json: client "kazoo") and
must predict both within the tolerances below.

    tests/live_clients/kazoo_lock.py build/locksim
"""
import os
import signal
import subprocess
import sys
import time

from harness import live_main, model_takeover_and_loss, start_zookeeper, stop_all, takeover_and_loss_verdict

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "kazoo-lock.json")

SESSION = 4.0  # the session timeout asked for (20 ticks of 200 ms: granted as asked)
TICK_MS = 200
PAUSE_AT = 0.5  # the holder is stopped this long after its grant, before its first ping…
PAUSE_FOR = 8.0  # …for this long, past its session
# What the model may be off by. kazoo pings after read_timeout/2 of idle sending less a
# random 10-400 ms, so the holder's last ping before the stop, and the session's end with
# it, fall up to 0.4 s apart from run to run; ZooKeeper expires sessions only at a tick.
TAKEOVER_TOLERANCE = 0.4 + TICK_MS / 1000 + 0.1
# Woken, kazoo finds its connection closed, reconnects and hears the session expired.
LOST_TOLERANCE = 0.5

HOLDER = r"""
import logging, sys, time
logging.disable(logging.WARNING)  # kazoo narrates the drop and the reconnect on stderr
from kazoo.client import KazooClient
from kazoo.protocol.states import KazooState
client = KazooClient(hosts="127.0.0.1:" + sys.argv[1], timeout=float(sys.argv[2]))
def listen(state):
    if state == KazooState.LOST:
        print("lost", time.monotonic(), flush=True)
client.add_listener(listen)
client.start(timeout=20)
lock = client.Lock("/locks/job", "holder")
assert lock.acquire(timeout=20)
print("granted", time.monotonic(), flush=True)
time.sleep(60)
"""

WAITER = r"""
import logging, sys, time
logging.disable(logging.WARNING)
from kazoo.client import KazooClient
client = KazooClient(hosts="127.0.0.1:" + sys.argv[1], timeout=float(sys.argv[2]))
client.start(timeout=20)
lock = client.Lock("/locks/job", "waiter")
print("waiting", flush=True)
assert lock.acquire(timeout=60)
print("granted", time.monotonic(), flush=True)
"""



def real_run(folder):
    zookeeper, port = start_zookeeper(folder, TICK_MS)
    python = sys.executable
    holder = waiter = None
    try:
        holder = subprocess.Popen([python, "-c", HOLDER, str(port), str(SESSION)], stdout=subprocess.PIPE, text=True)
        granted = float(holder.stdout.readline().split()[1])
        waiter = subprocess.Popen([python, "-c", WAITER, str(port), str(SESSION)], stdout=subprocess.PIPE, text=True)
        assert waiter.stdout.readline().strip() == "waiting"
        time.sleep(max(0.0, granted + PAUSE_AT - time.monotonic()))
        os.kill(holder.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        taken = float(waiter.stdout.readline().split()[1])
        time.sleep(max(0.0, stopped + PAUSE_FOR - time.monotonic()))
        os.kill(holder.pid, signal.SIGCONT)
        woke = time.monotonic()
        lost = float(holder.stdout.readline().split()[1])
        return {"taken": taken - granted, "lost": lost - woke}
    finally:
        stop_all(holder, waiter, zookeeper)


def judge(real, locksim):
    model = model_takeover_and_loss(locksim, SCENARIO)
    tolerances = {"taken": TAKEOVER_TOLERANCE, "lost": LOST_TOLERANCE}
    return takeover_and_loss_verdict("kazoo Lock", real, model, tolerances, "hears LOST")


if __name__ == "__main__":
    sys.exit(live_main(__doc__, "kazoo", real_run, judge))
