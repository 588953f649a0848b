"""What the live client harnesses share: a free loopback port, the model's trace of the
harness's own scenario, and the verdict line."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def said(port, words):
    """What a server on a loopback port first answers to `words` (b"" if it does not)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(words)
            return s.recv(64)
    except OSError:
        return b""


def wait_until(proc, failure, seconds, ready):
    """Polls `ready` until it holds; after `seconds`, stops `proc` and raises `failure`."""
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            stop_all(proc)
            raise RuntimeError(f"{failure} within {seconds} s")
        time.sleep(0.05)


def start_redis(folder):
    """A redis-server on a free loopback port, nothing persisted, once it accepts
    connections: its process and port."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", folder, "--logfile", os.path.join(folder, "redis.log")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(proc, "redis-server did not answer", 20, lambda: said(port, b"PING\r\n") == b"+PONG\r\n")
    return proc, port


def start_zookeeper(folder, tick_ms):
    """A one-node ZooKeeper (Debian's) with this tickTime on a free loopback port, once it
    answers: its process and port."""
    port = free_port()
    data = os.path.join(folder, "data")
    os.makedirs(data)
    cfg = os.path.join(folder, "zoo.cfg")
    with open(cfg, "w") as f:
        f.write(f"tickTime={tick_ms}\ndataDir={data}\nclientPort={port}\nclientPortAddress=127.0.0.1\n"
                "admin.enableServer=false\n4lw.commands.whitelist=srvr\n")
    log = open(os.path.join(folder, "zookeeper.log"), "a")
    proc = subprocess.Popen(
        ["java", "-Xmx256m", "-XX:+UseSerialGC", "-cp", "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar",
         "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    log.close()
    wait_until(proc, "zookeeper did not answer", 60, lambda: said(port, b"srvr").startswith(b"Zookeeper version:"))
    return proc, port


def model_events(locksim, scenario):
    """The events of the scenario's one design, as `locksim run --format trace` gives them."""
    out = subprocess.run([locksim, "run", scenario, "--format", "trace"], check=False, capture_output=True, text=True)
    if out.returncode not in (0, 1):  # 1: the run has violations, which these worlds may
        raise RuntimeError(f"locksim run {scenario} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["designs"][0]["events"]


def kinds(events, kind, node=None):
    """The events of one kind, on one node if named."""
    return [e for e in events if e["kind"] == kind and (node is None or e["node"] == node)]


def model_takeover_and_loss(locksim, scenario):
    """In the model's run of a world where server-1 holds, is paused and a waiter takes
    over: when the second holder was granted, from the first grant ("taken"), and when
    the woken server-1 stopped believing, from its waking ("lost")."""
    events = model_events(locksim, scenario)
    held = kinds(events, "belief.acquired")
    resumed = kinds(events, "node.resumed", "server-1")
    ended = kinds(events, "belief.ended", "server-1")
    return {"taken": (held[1]["t_ns"] - held[0]["t_ns"]) / 1e9, "lost": (ended[0]["t_ns"] - resumed[0]["t_ns"]) / 1e9,
            "reason": ended[0]["fields"]["reason"]}


def takeover_and_loss_verdict(name, real, model, tolerances, lost_words):
    """Compares the real "taken" and "lost" (as model_takeover_and_loss gives them) with
    the model's, each within its tolerance; `lost_words` says what the holder saw, such
    as "hears LOST"."""
    failures = []
    if abs(real["taken"] - model["taken"]) > tolerances["taken"]:
        failures.append(f"the waiter took the lock {real['taken']:.3f}s after the grant, the model says "
                        f"{model['taken']:.3f}s (tolerance {tolerances['taken']:.1f}s)")
    if abs(real["lost"] - model["lost"]) > tolerances["lost"]:
        failures.append(f"the woken holder {lost_words} {real['lost']:.3f}s after waking, the model "
                        f"{model['lost']:.3f}s after ({model['reason']})")
    return verdict(f"{name}, real vs model: taken over {real['taken']:.3f}s / {model['taken']:.3f}s after the grant, "
                   f"the woken holder {lost_words} {real['lost']:.3f}s / {model['lost']:.3f}s after waking", failures)


def stop_all(*procs):
    """Kills each process still running, by its PID (SIGKILL ends a stopped one too)."""
    for proc in procs:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


def live_main(doc, name, real_run, judge):
    """A harness's command line: the locksim to run as its one argument. The real run in a
    scratch folder, then judge(real, locksim) compares it with the model: the exit code."""
    if len(sys.argv) != 2:
        print(doc.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix=f"locksim-live-{name}.") as folder:
        real = real_run(folder)
    return judge(real, sys.argv[1])


def verdict(summary, failures):
    """Prints the comparison and each failure; the exit code."""
    print(summary)
    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    return 1 if failures else 0
