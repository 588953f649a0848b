"""What the live client harnesses share: a free loopback port, the model's trace of the
harness's own scenario, and the verdict line."""
import json
import os
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(folder):
    """A redis-server on a free loopback port, nothing persisted, once it accepts
    connections: its process and port."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", folder, "--logfile", os.path.join(folder, "redis.log")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(64) == b"+PONG\r\n":
                    return proc, port
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_all(proc)
            raise RuntimeError("redis-server did not answer within 20 s")
        time.sleep(0.05)


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
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(b"srvr")
                if s.recv(64).startswith(b"Zookeeper version:"):
                    return proc, port
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_all(proc)
            raise RuntimeError("zookeeper did not answer within 60 s")
        time.sleep(0.1)


def model_events(locksim, scenario):
    """The events of the scenario's one design, as `locksim run --format trace` gives them."""
    out = subprocess.run([locksim, "run", scenario, "--format", "trace"], check=False, capture_output=True, text=True)
    if out.returncode not in (0, 1):  # 1: the run has violations, which these worlds may
        raise RuntimeError(f"locksim run {scenario} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["designs"][0]["events"]


def kinds(events, kind, node=None):
    """The events of one kind, on one node if named."""
    return [e for e in events if e["kind"] == kind and (node is None or e["node"] == node)]


def stop_all(*procs):
    """Kills each process still running, by its PID (SIGKILL ends a stopped one too)."""
    for proc in procs:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


def verdict(summary, failures):
    """Prints the comparison and each failure; the exit code."""
    print(summary)
    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    return 1 if failures else 0
