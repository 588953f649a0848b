"""What the live client harnesses share: a free loopback port, the model's trace of the
harness's own scenario, and the verdict line."""
import json
import socket
import subprocess
import sys


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
