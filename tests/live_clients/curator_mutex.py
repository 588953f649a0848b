#!/usr/bin/python3
"""The curator client profile against the real library and a real ZooKeeper.

A real ZooKeeper (Debian's, tickTime 500 ms) on 127.0.0.1, and one Java process using
Apache Curator's InterProcessMutex (tests/live_clients/curator_mutex/CuratorMutex.java,
compiled here against Debian's libcurator-recipes-java) with a 10 s session: its read
timeout is 6,666 ms and it pings after 2,333 ms of idle sending. The holder takes the lock
and is stopped with SIGSTOP for 7 s: past its read timeout, within its session, with room
for the reconnect (ZooKeeper's client first sleeps up to a second) before the session
would end. Measured, on
this harness's monotonic clock as it reads each line:

  - when Curator reported the connection SUSPENDED, from the holder's waking: the state
    in which Curator's standard error policy counts the lock as lost,
  - whether the session lived on (RECONNECTED) or ended (LOST).

locksim runs the same world (tests/live_clients/curator-mutex.json: client "curator") and
must predict both: the belief ended on waking, within the tolerance below, and no
session expired.

    tests/live_clients/curator_mutex.py build/locksim
"""
import os
import signal
import subprocess
import sys
import time

from harness import kinds, live_main, model_events, start_zookeeper, stop_all, verdict

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "curator-mutex.json")
SOURCE = os.path.join(HERE, "curator_mutex", "CuratorMutex.java")
JARS = ["curator-recipes", "curator-framework", "curator-client", "zookeeper", "zookeeper-jute", "guava", "slf4j-api",
        "slf4j-nop"]
CLASSPATH = ":".join(f"/usr/share/java/{jar}.jar" for jar in JARS)

SESSION_MS = 10000  # granted as asked: within 2 to 20 ticks of 500 ms
TICK_MS = 500
PAUSE_AT = 0.5  # the holder is stopped this long after its grant…
PAUSE_FOR = 7.0  # …for this long: past the read timeout (6,666 ms), within the session (10 s)
# Woken, its SendThread finds the read timeout passed (or the select wakes) at once.
SUSPENDED_TOLERANCE = 0.3


def compile_holder(folder):
    subprocess.run(["javac", "-d", folder, "-cp", CLASSPATH, SOURCE], check=True)
    return CLASSPATH + ":" + folder


def next_line(proc, expected):
    """Reads lines of `proc` until one of `expected`; that line and when it was read."""
    while True:
        text = proc.stdout.readline()
        if not text:
            raise RuntimeError(f"CuratorMutex ended before printing one of {expected}")
        if text.strip() in expected:
            return text.strip(), time.monotonic()


def real_run(folder):
    classpath = compile_holder(folder)
    zookeeper, port = start_zookeeper(folder, TICK_MS)
    holder = None
    try:
        holder = subprocess.Popen(["java", "-Xmx128m", "-XX:+UseSerialGC", "-cp", classpath, "CuratorMutex",
                                   f"127.0.0.1:{port}", str(SESSION_MS)], stdout=subprocess.PIPE, text=True)
        _, granted = next_line(holder, {"granted"})
        time.sleep(max(0.0, granted + PAUSE_AT - time.monotonic()))
        os.kill(holder.pid, signal.SIGSTOP)
        time.sleep(PAUSE_FOR)
        os.kill(holder.pid, signal.SIGCONT)
        woke = time.monotonic()
        _, suspended = next_line(holder, {"suspended"})
        after, _ = next_line(holder, {"reconnected", "lost"})
        return {"suspended": suspended - woke, "session_lived": after == "reconnected"}
    finally:
        stop_all(holder, zookeeper)


def model_run(locksim):
    events = model_events(locksim, SCENARIO)
    resumed = kinds(events, "node.resumed", "server-1")
    ended = kinds(events, "belief.ended", "server-1")
    return {"suspended": (ended[0]["t_ns"] - resumed[0]["t_ns"]) / 1e9, "reason": ended[0]["fields"]["reason"],
            "session_lived": not kinds(events, "session.expired")}


def judge(real, locksim):
    model = model_run(locksim)
    failures = []
    if abs(real["suspended"] - model["suspended"]) > SUSPENDED_TOLERANCE:
        failures.append(f"the woken holder was SUSPENDED {real['suspended']:.3f}s after waking, the model ends its "
                        f"belief {model['suspended']:.3f}s after ({model['reason']})")
    if real["session_lived"] != model["session_lived"]:
        failures.append(f"the session {'lived on' if real['session_lived'] else 'ended'} (real), "
                        f"{'lived on' if model['session_lived'] else 'ended'} (model)")
    lived = lambda run: "lives on" if run["session_lived"] else "ends"
    return verdict(f"Curator InterProcessMutex, real vs model: SUSPENDED {real['suspended']:.3f}s / "
                   f"{model['suspended']:.3f}s after waking, the session {lived(real)} / {lived(model)}", failures)


if __name__ == "__main__":
    sys.exit(live_main(__doc__, "curator", real_run, judge))
