#!/usr/bin/python3
"""The redis-py client profile against the real library and a real Redis.

A real redis-server on 127.0.0.1, and two processes using redis-py's own Lock
(redis/lock.py): the holder takes the lock with a timeout (the TTL) and is stopped with
SIGSTOP past it; the waiter polls for the lock as Lock.acquire does (sleep between tries).
Measured, on the one monotonic clock of this machine, from the holder's grant:

  - when the server let the lock go (the key's expiry, seen by a probe of PTTL),
  - when the waiter took it,
  - whether the holder, woken, still believes (redis-py keeps its token, keeps no deadline,
    and owned() asks the server).

locksim runs the same world (tests/live_clients/redis-py-lock.json: client "redis-py",
the same TTL, pause and retry) and must predict each within the tolerances below.

    tests/live_clients/redis_py_lock.py build/locksim
"""
import os
import signal
import subprocess
import sys
import time

from harness import kinds, live_main, model_events, start_redis, stop_all, verdict

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "redis-py-lock.json")

TTL = 3.0  # the lock's timeout, seconds
PAUSE_AT = 0.5  # the holder is stopped this long after its grant…
PAUSE_FOR = 5.0  # …for this long, past the TTL
WAITER_SLEEP = 0.1  # Lock.acquire's sleep between tries
# What the model may be off by: process start-up and scheduling on a shared machine, and
# the waiter's polling (one sleep either way).
EXPIRY_TOLERANCE = 0.05
TAKEOVER_TOLERANCE = WAITER_SLEEP + 0.05

HOLDER = r"""
import redis, sys, time
r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]))
lock = r.lock("lock:job", timeout=float(sys.argv[2]))
assert lock.acquire(blocking=False)
print("granted", time.monotonic(), flush=True)
sys.stdin.readline()  # woken and asked: does it still believe?
print("token", lock.local.token is not None, "owned", lock.owned(), flush=True)
"""

WAITER = r"""
import redis, sys, time
r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]))
lock = r.lock("lock:job", timeout=float(sys.argv[2]), sleep=float(sys.argv[3]))
print("waiting", flush=True)
assert lock.acquire(blocking=True, blocking_timeout=30)
print("granted", time.monotonic(), flush=True)
"""




def real_run(folder):
    """The times, from the holder's grant, at which Redis let the lock go and the waiter
    took it, and what the woken holder believes."""
    import redis

    redis_proc, port = start_redis(folder)
    probe = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2)
    python = sys.executable
    holder = waiter = None
    try:
        holder = subprocess.Popen([python, "-c", HOLDER, str(port), str(TTL)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        granted = float(holder.stdout.readline().split()[1])
        waiter = subprocess.Popen([python, "-c", WAITER, str(port), str(TTL), str(WAITER_SLEEP)],
                                  stdout=subprocess.PIPE, text=True)
        assert waiter.stdout.readline().strip() == "waiting"
        time.sleep(max(0.0, granted + PAUSE_AT - time.monotonic()))
        os.kill(holder.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        # The key's expiry: the first moment it no longer holds the holder's token (gone, or
        # already the waiter's), polled every millisecond.
        token = probe.get("lock:job")
        while probe.get("lock:job") == token:
            time.sleep(0.001)
        expired = time.monotonic()
        taken = float(waiter.stdout.readline().split()[1])
        time.sleep(max(0.0, stopped + PAUSE_FOR - time.monotonic()))
        os.kill(holder.pid, signal.SIGCONT)
        holder.stdin.write("\n")
        holder.stdin.flush()
        answer = holder.stdout.readline().split()
        return {"expired": expired - granted, "taken": taken - granted,
                "believes": answer[1] == "True", "owned": answer[3] == "True"}
    finally:
        stop_all(holder, waiter, redis_proc)


def model_run(locksim):
    """What locksim predicts for the same world."""
    events = model_events(locksim, SCENARIO)
    granted = kinds(events, "lock.granted")
    expired = kinds(events, "lock.expired")
    ended = kinds(events, "belief.ended", "server-1")
    first = granted[0]["t_ns"] / 1e9
    woke = first + PAUSE_AT + PAUSE_FOR
    return {"expired": expired[0]["t_ns"] / 1e9 - first, "taken": granted[1]["t_ns"] / 1e9 - first,
            # Believing on waking: no belief.ended on server-1 before it woke and released.
            "believes": all(e["t_ns"] / 1e9 >= woke and e["fields"]["reason"] == "released" for e in ended)}


def judge(real, locksim):
    model = model_run(locksim)
    failures = []
    if abs(real["expired"] - model["expired"]) > EXPIRY_TOLERANCE:
        failures.append(f"the lock expired {real['expired']:.3f}s after the grant, the model says {model['expired']:.3f}s")
    if abs(real["taken"] - model["taken"]) > TAKEOVER_TOLERANCE:
        failures.append(f"the waiter took it {real['taken']:.3f}s after the grant, the model says {model['taken']:.3f}s")
    if real["believes"] != model["believes"]:
        failures.append(f"the woken holder believes: real {real['believes']}, model {model['believes']}")
    if real["owned"]:
        failures.append("the woken holder's owned() says it still owns a lock that expired")
    return verdict(f"redis-py Lock, real vs model: expired {real['expired']:.3f}s / {model['expired']:.3f}s, "
                   f"taken over {real['taken']:.3f}s / {model['taken']:.3f}s, woken holder believes "
                   f"{real['believes']} / {model['believes']} (owned() asks the server: {real['owned']})", failures)


if __name__ == "__main__":
    sys.exit(live_main(__doc__, "redis-py", real_run, judge))
