#!/usr/bin/python3
"""Runs fidelity cases (tests/fidelity/cases/*.json) against real servers.

Each case gets its own servers, started here on 127.0.0.1 with throw-away data folders
in a temporary directory and free ports; they are stopped by PID when the case ends
(never by name, never through systemd). Every client of a case is a separate process
(this file run with --client), so a pause is a real SIGSTOP. tests/fidelity/README.md
describes the case format and what every step does here.

  real_runner.py --out DIR [--store STORE] [--keep] CASE.json...

writes DIR/<name>.json for every case that ran and exits 1 when a case could not run.
Uses Debian's python3-redis, python3-etcd3, python3-kazoo and python3-psycopg2, so run
it with /usr/bin/python3.
"""
import argparse
import glob
import json
import logging
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
STORES = ("redis", "etcd", "zookeeper", "postgres")
POLL = 0.02  # expires: how often the server is asked
EXPIRES_LIMIT = 30.0  # expires: give up after this long ({"after": null})
READY_LIMIT = 60.0  # a server that does not answer within this long failed to start
LOCK_KEY = "lock"  # Redis key, etcd key
ZK_PATH = "/lock"
PG_ADVISORY_KEY = 1
# gRPC's default reconnect backoff (1 s growing to 2 min) would leave etcd's clients
# disconnected for seconds after a restart; retry every 50-200 ms instead. (Not
# grpc.min_reconnect_backoff_ms: that is also the deadline of one connection attempt.)
ETCD_GRPC = [("grpc.initial_reconnect_backoff_ms", 50), ("grpc.max_reconnect_backoff_ms", 200)]
# The same for kazoo, whose reconnect delay doubles up to 60 s by default: a client back
# seconds after a restarted server would find its session expired.
KAZOO_RETRY = {"max_tries": -1, "delay": 0.05, "backoff": 1.5, "max_jitter": 0.05, "max_delay": 0.2}
SERVER_KEYS = {
    "redis": {"appendonly", "appendfsync", "save"},
    "etcd": set(),
    "zookeeper": {"tick"},
    "postgres": {"idle_session_timeout", "idle_in_transaction_session_timeout", "pooler"},
}
# server.pooler (postgres, advisory clients): PgBouncer in front of PostgreSQL.
POOLER_KEYS = {"pool_mode", "default_pool_size", "min_pool_size", "server_round_robin"}
# Steps a case through PgBouncer may take: each client statement runs on a lent server
# connection, and the runner labels those connections; an extend asks pg_locks about the
# lent backend, which says nothing about the client (README.md, "Through PgBouncer").
POOLER_STEPS = {"acquire", "release", "holder", "wait", "crash"}
STEPS = {"acquire", "extend", "release", "holder", "expires", "wait", "clock_step", "crash", "restart", "pause"}
TRACE = []  # --trace: [monotonic start] and every step is printed with its time
CLIENT_STEPS = {"acquire", "extend", "release", "expires", "pause"}


def seconds(text):
    """'200ms', '1s', '1.5s', '+60s', '-60s', '2m' -> seconds."""
    match = re.fullmatch(r"([+-]?)(\d+(?:\.\d+)?)(ms|s|m)", str(text).strip())
    if not match:
        raise ValueError(f'bad duration "{text}" (write e.g. 200ms, 1.5s, +60s, 2m)')
    value = float(match.group(2)) * {"ms": 0.001, "s": 1.0, "m": 60.0}[match.group(3)]
    return -value if match.group(1) == "-" else value


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, ready, limit=READY_LIMIT):
    deadline = time.monotonic() + limit
    last = None
    while time.monotonic() < deadline:
        try:
            value = ready()
            if value:
                return value
        except Exception as error:  # not up yet
            last = error
        time.sleep(0.05)
    raise RuntimeError(f"{what} not ready after {limit:.0f} s (last error: {last!r})")


def port_open(port):
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def kill_and_wait(proc):
    if proc is not None and proc.poll() is None:
        proc.kill()
    if proc is not None:
        proc.wait()


def running(pid):
    """Alive and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children_of(pid):
    """PIDs whose parent is pid (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(entry))
        except (OSError, IndexError, ValueError):
            pass
    return found


def validate(case, path):
    for key in ("name", "about", "store", "steps"):
        if key not in case:
            raise ValueError(f"{path}: missing \"{key}\"")
    if case["name"] != os.path.splitext(os.path.basename(path))[0]:
        raise ValueError(f"{path}: name \"{case['name']}\" is not the file's name")
    store = case["store"]
    if store not in STORES:
        raise ValueError(f"{path}: unknown store \"{store}\"")
    unknown = set(case.get("server", {})) - SERVER_KEYS[store]
    if unknown:
        raise ValueError(f"{path}: server keys {sorted(unknown)} mean nothing to {store}")
    clients = case.get("clients", {})
    kinds = set()
    for name, client in clients.items():
        if set(client) - {"ttl", "lock"}:
            raise ValueError(f"{path}: client {name}: unknown keys {sorted(set(client) - {'ttl', 'lock'})}")
        if store == "postgres":
            if client.get("lock") not in ("advisory", "for_update"):
                raise ValueError(f"{path}: client {name}: lock must be advisory or for_update")
            kinds.add(client["lock"])
        elif "ttl" not in client:
            raise ValueError(f"{path}: client {name}: no ttl")
    if len(kinds) > 1:
        raise ValueError(f"{path}: all PostgreSQL clients of a case use the same lock")
    pooler = case.get("server", {}).get("pooler")
    if pooler is not None:
        if set(pooler) - POOLER_KEYS or pooler.get("pool_mode") != "transaction":
            raise ValueError(f"{path}: server.pooler: pool_mode \"transaction\" and only {sorted(POOLER_KEYS)}")
        if kinds != {"advisory"}:
            raise ValueError(f"{path}: server.pooler: the clients take advisory locks")
        for i, step in enumerate(case["steps"]):
            if step.get("do") not in POOLER_STEPS or (step.get("do") == "crash" and "client" not in step):
                raise ValueError(f"{path}: step {i}: through the pooler only {sorted(POOLER_STEPS)} (of a client)")
    for i, step in enumerate(case["steps"]):
        do = step.get("do")
        if do not in STEPS:
            raise ValueError(f"{path}: step {i}: unknown do \"{do}\"")
        needs_client = do in CLIENT_STEPS
        if needs_client and step.get("client") not in clients:
            raise ValueError(f"{path}: step {i}: {do} needs a client of the case")
        if do == "crash" and "client" not in step and step.get("kind") not in ("process", "machine"):
            raise ValueError(f"{path}: step {i}: crash kind must be process or machine")
        if do == "crash" and "client" in step and step["client"] not in clients:
            raise ValueError(f"{path}: step {i}: crash of an unknown client")
        for key in ("for", "by"):
            if key in step:
                seconds(step[key])


# ---------------------------------------------------------------------------------------
# Moving a server's wall clock


class ClockShift:
    """The clockshift.c LD_PRELOAD shim: an 8-byte offset file, read at every clock reading.
    Why not Debian's libfaketime: tests/fidelity/README.md, "Clock steps"."""

    def __init__(self, folder, shim):
        self.path = os.path.join(folder, "clock-offset")
        self.shim = shim
        self.set(0.0)

    def env(self):
        return {"LD_PRELOAD": self.shim, "CLOCKSHIFT_FILE": self.path}

    def set(self, offset):
        data = int(round(offset * 1e9)).to_bytes(8, "little", signed=True)
        mode = "r+b" if os.path.exists(self.path) else "wb"
        with open(self.path, mode) as f:  # in place: the server has it mapped
            f.write(data)
        os.chmod(self.path, 0o644)


def build_shim(folder):
    shim = os.path.join(folder, "clockshift.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(HERE, "clockshift.c")], check=True)
    os.chmod(folder, 0o755)
    return shim


# ---------------------------------------------------------------------------------------
# Servers


class RedisServer:
    DEFAULTS = {"appendonly": False, "appendfsync": "everysec", "save": ""}
    # Machine crash: the AOF's tail written within this long before the crash is lost.
    UNSYNCED = {"always": 0.0, "everysec": 1.0, "no": 30.0}

    def __init__(self, case, folder, clock):
        self.config = dict(self.DEFAULTS, **case.get("server", {}))
        if self.config["appendfsync"] not in self.UNSYNCED:
            raise ValueError(f"appendfsync {self.config['appendfsync']}?")
        self.folder = folder
        self.data = os.path.join(folder, "data")
        os.makedirs(self.data)
        self.port = free_port()
        self.clock = clock
        self.proc = None
        self.sizes = {}  # AOF increment file -> [(monotonic time, size)]
        self.sampling = None

    def start(self):
        conf = os.path.join(self.folder, "redis.conf")
        with open(conf, "w") as f:
            f.write(
                f"bind 127.0.0.1\nport {self.port}\ndir {self.data}\ndaemonize no\n"
                f"logfile {os.path.join(self.folder, 'redis.log')}\n"
                f'save "{self.config["save"]}"\n'
                f"appendonly {'yes' if self.config['appendonly'] else 'no'}\n"
                f"appendfsync {self.config['appendfsync']}\n"
            )
        env = dict(os.environ, **(self.clock.env() if self.clock else {}))
        self.proc = subprocess.Popen(["redis-server", conf], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        import redis
        probe = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)
        wait_until("redis-server", probe.ping)
        self.version = "Redis " + probe.info("server")["redis_version"]
        probe.close()
        if self.config["appendonly"]:
            self.sampling = threading.Event()
            threading.Thread(target=self.sample, args=(self.sampling,), daemon=True).start()

    def sample(self, stop):
        while not stop.is_set():
            now = time.monotonic()
            for path in glob.glob(os.path.join(self.data, "appendonlydir", "*.incr.aof")):
                try:
                    size = os.path.getsize(path)
                except OSError:
                    continue
                history = self.sizes.setdefault(path, [])
                if not history or history[-1][1] != size:
                    history.append((now, size))
            stop.wait(POLL)

    def kill(self):
        kill_and_wait(self.proc)
        if self.sampling:
            self.sampling.set()
            self.sampling = None

    def crash(self, kind):
        at = time.monotonic()
        self.kill()
        unsynced = self.UNSYNCED[self.config["appendfsync"]]
        if kind == "machine" and self.config["appendonly"] and unsynced > 0:
            before = at - unsynced
            for path, history in self.sizes.items():
                kept = [size for t, size in history if t <= before]
                size = kept[-1] if kept else 0
                if os.path.exists(path) and os.path.getsize(path) > size:
                    os.truncate(path, size)
                history.append((time.monotonic(), size))

    def restart(self):
        self.start()

    def stop(self):
        self.kill()


class EtcdServer:
    def __init__(self, case, folder, clock):
        self.folder = folder
        self.data = os.path.join(folder, "data")
        self.port = free_port()
        self.peer_port = free_port()
        self.proc = None

    def start(self):
        client = f"http://127.0.0.1:{self.port}"
        peer = f"http://127.0.0.1:{self.peer_port}"
        log = open(os.path.join(self.folder, "etcd.log"), "a")
        self.proc = subprocess.Popen(
            ["etcd", "--name", "n1", "--data-dir", self.data, "--listen-client-urls", client,
             "--advertise-client-urls", client, "--listen-peer-urls", peer,
             "--initial-advertise-peer-urls", peer, "--initial-cluster", f"n1={peer}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        import etcd3
        wait_until("etcd's client port", lambda: port_open(self.port))
        probe = etcd3.client(host="127.0.0.1", port=self.port, timeout=2, grpc_options=ETCD_GRPC)

        def leader():
            status = probe.status()
            probe.get(LOCK_KEY)
            return status if status.leader is not None else None

        self.version = "etcd " + wait_until("etcd", leader).version
        probe.close()

    def kill(self):
        kill_and_wait(self.proc)

    def crash(self, kind):
        self.kill()  # machine = process: etcd fsyncs its WAL before it answers

    def restart(self):
        self.start()

    def stop(self):
        self.kill()


def four_letter(port, word):
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(word.encode())
        chunks = []
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return b"".join(chunks).decode()
            chunks.append(chunk)


class ZooKeeperServer:
    def __init__(self, case, folder, clock):
        self.tick_ms = int(round(seconds(case.get("server", {}).get("tick", "2000ms")) * 1000))
        self.folder = folder
        self.data = os.path.join(folder, "data")
        os.makedirs(self.data)
        self.port = free_port()
        self.clock = clock
        self.proc = None

    def start(self):
        cfg = os.path.join(self.folder, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write(f"tickTime={self.tick_ms}\ndataDir={self.data}\nclientPort={self.port}\n"
                    "clientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
                    "4lw.commands.whitelist=srvr,ruok\n")
        env = dict(os.environ, **(self.clock.env() if self.clock else {}))
        log = open(os.path.join(self.folder, "zookeeper.log"), "a")
        self.proc = subprocess.Popen(
            ["java", "-Xmx256m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.showDateTime=true",
             "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
             "-cp", "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar",
             "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
        log.close()

        def serving():
            text = four_letter(self.port, "srvr")
            return text if text.startswith("Zookeeper version:") else None

        text = wait_until("zookeeper", serving)
        self.version = "ZooKeeper " + text.split(":", 1)[1].strip().split("-", 1)[0]

    def kill(self):
        kill_and_wait(self.proc)

    def crash(self, kind):
        self.kill()  # machine = process: ZooKeeper fsyncs its transaction log before it answers

    def restart(self):
        self.start()

    def stop(self):
        self.kill()


PG_BIN = "/usr/lib/postgresql/15/bin"


def as_postgres():
    import pwd
    entry = pwd.getpwnam("postgres")
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []} if os.getuid() == 0 else {}


def pg_template(root):
    """An initdb'd cluster with the jobs table and pgrowlocks, copied for every case."""
    template = os.path.join(root, "pg-template")
    os.chmod(root, 0o755)
    os.makedirs(template, mode=0o700)
    user = as_postgres()
    if user:
        os.chown(template, user["user"], user["group"])
    subprocess.run([os.path.join(PG_BIN, "initdb"), "-D", template, "-A", "trust", "-U", "postgres",
                    "-E", "UTF8", "--no-sync"], check=True, stdout=subprocess.DEVNULL, **user)
    port = free_port()
    proc = subprocess.Popen([os.path.join(PG_BIN, "postgres"), "-D", template, "-p", str(port),
                             "-k", template, "-c", "listen_addresses=127.0.0.1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **user)
    import psycopg2
    conn = wait_until("postgres (template)", lambda: psycopg2.connect(
        host="127.0.0.1", port=port, user="postgres", dbname="postgres"))
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE jobs (name text PRIMARY KEY)")
        cur.execute("INSERT INTO jobs VALUES ('lock')")
        cur.execute("CREATE EXTENSION pgrowlocks")
    conn.close()
    proc.send_signal(signal.SIGINT)  # fast shutdown: a clean template
    proc.wait()
    return template


class PostgresServer:
    def __init__(self, case, folder, clock, template):
        self.settings = case.get("server", {})
        self.folder = folder
        self.data = os.path.join(folder, "data")
        self.port = free_port()
        self.clock = clock
        self.user = as_postgres()
        os.makedirs(folder)
        if self.user:  # the socket goes here
            os.chown(folder, self.user["user"], self.user["group"])
        subprocess.run(["cp", "-a", template, self.data], check=True)
        self.proc = None

    def start(self):
        args = [os.path.join(PG_BIN, "postgres"), "-D", self.data, "-p", str(self.port),
                "-k", self.folder, "-c", "listen_addresses=127.0.0.1"]
        for key in ("idle_session_timeout", "idle_in_transaction_session_timeout"):
            if key in self.settings:
                args += ["-c", f"{key}={int(round(seconds(self.settings[key]) * 1000))}"]
        env = dict(os.environ, **(self.clock.env() if self.clock else {}))
        log = open(os.path.join(self.folder, "postgres.log"), "a")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, **self.user)
        log.close()
        import psycopg2

        def version():
            conn = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                                    connect_timeout=2)
            try:
                with conn.cursor() as cur:
                    cur.execute("SHOW server_version")
                    return cur.fetchone()[0]
            finally:
                conn.close()

        self.version = "PostgreSQL " + wait_until("postgres", version).split()[0]

    def kill(self):
        """SIGKILL the postmaster and every backend (they are process group leaders of their
        own, so the postmaster's group is not enough)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        backends = children_of(self.proc.pid)
        self.proc.kill()
        for pid in backends:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        wait_until("postgres backends to exit", lambda: not any(running(p) for p in backends), 10)

    def crash(self, kind):
        self.kill()  # machine = process: synchronous_commit is on, WAL is flushed before COMMIT returns

    def server_connections(self):
        """Client backends other than the caller's own: PgBouncer's server connections."""
        import psycopg2
        conn = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                                application_name="observer", connect_timeout=2)
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                            "AND pid <> pg_backend_pid()")
                return cur.fetchone()[0]
        finally:
            conn.close()

    def restart(self):
        self.start()

    def stop(self):
        self.kill()


class PgBouncerServer:
    """Debian's PgBouncer in front of a PostgresServer: its own ini and auth file in the
    case's folder, a free port, run as the postgres user (PgBouncer refuses root), stopped
    by PID. With min_pool_size, start() ends when the pool is warm (README.md)."""

    def __init__(self, settings, folder, postgres):
        self.settings = settings
        self.folder = folder
        self.postgres = postgres
        self.port = free_port()
        self.proc = None
        self.warm_up = None
        os.makedirs(folder)
        user = postgres.user
        with open(os.path.join(folder, "userlist.txt"), "w") as f:
            f.write('"postgres" ""\n')
        with open(os.path.join(folder, "pgbouncer.ini"), "w") as f:
            f.write(f"""[databases]
postgres = host=127.0.0.1 port={postgres.port} dbname=postgres user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {folder}/userlist.txt
logfile = {folder}/pgbouncer.log
pool_mode = {settings["pool_mode"]}
default_pool_size = {settings.get("default_pool_size", 20)}
min_pool_size = {settings.get("min_pool_size", 0)}
server_round_robin = {1 if settings.get("server_round_robin", False) else 0}
""")
        if user:
            for name in os.listdir(folder) + [""]:
                os.chown(os.path.join(folder, name), user["user"], user["group"])

    def start(self):
        self.version = subprocess.run(["/usr/sbin/pgbouncer", "--version"], check=True, capture_output=True,
                                      text=True, **self.postgres.user).stdout.splitlines()[0].strip()
        log = open(os.path.join(self.folder, "pgbouncer.stderr"), "a")
        self.proc = subprocess.Popen(["/usr/sbin/pgbouncer", os.path.join(self.folder, "pgbouncer.ini")],
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=log, **self.postgres.user)
        log.close()
        wait_until("pgbouncer", lambda: port_open(self.port))
        kept = min(self.settings.get("min_pool_size", 0), self.settings.get("default_pool_size", 20))
        if kept == 0:
            return
        # PgBouncer keeps min_pool_size connections once a client has connected, opening
        # them one at a time from its maintenance loop (three rounds a second). A client of
        # the runner's own stays connected, so that the pool is full before step 0.
        import psycopg2
        self.warm_up = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                                        application_name="warm-up", connect_timeout=5)
        wait_until("pgbouncer's min_pool_size", lambda: self.postgres.server_connections() >= kept, 20)

    def stop(self):
        if self.warm_up is not None:
            self.warm_up.close()
        kill_and_wait(self.proc)


# ---------------------------------------------------------------------------------------
# What the runner itself asks the server (holder, expires): one connection of its own.


class RedisObserver:
    def __init__(self, server):
        import redis
        self.redis = redis
        self.r = redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=5)

    def _get(self):
        for attempt in (0, 1):
            try:
                return self.r.get(LOCK_KEY)
            except self.redis.ConnectionError:
                if attempt:
                    raise

    def holder(self):
        value = self._get()
        return value.decode().split(":", 1)[0] if value else None

    def gone(self, name, lock):
        value = self._get()
        return value is None or value.decode() != lock

    def close(self):
        self.r.close()


class EtcdObserver:
    def __init__(self, server):
        import etcd3
        self.e = etcd3.client(host="127.0.0.1", port=server.port, timeout=5, grpc_options=ETCD_GRPC)

    def holder(self):
        value, _ = self.e.get(LOCK_KEY)
        return value.decode() if value is not None else None

    def gone(self, name, lock):
        value, meta = self.e.get(LOCK_KEY)
        return value is None or meta.create_revision != lock

    def close(self):
        self.e.close()


class ZooKeeperObserver:
    """Its session is opened before step 0, so it takes zxid 1 on a fresh server."""

    def __init__(self, server):
        from kazoo.client import KazooClient
        self.zk = KazooClient(hosts=f"127.0.0.1:{server.port}", timeout=10.0, connection_retry=KAZOO_RETRY)
        self.zk.start(timeout=30)

    def _retry(self, call):
        from kazoo.exceptions import ConnectionLoss, SessionExpiredError
        deadline = time.monotonic() + 15
        while True:
            try:
                return call()
            except (ConnectionLoss, SessionExpiredError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(POLL)

    def holder(self):
        from kazoo.exceptions import NoNodeError

        def get():
            try:
                return self.zk.get(ZK_PATH)[0].decode()
            except NoNodeError:
                return None

        return self._retry(get)

    def gone(self, name, lock):
        stat = self._retry(lambda: self.zk.exists(ZK_PATH))
        return stat is None or stat.czxid != lock

    def close(self):
        self.zk.stop()
        self.zk.close()


class PostgresObserver:
    def __init__(self, server, kind):
        self.server = server
        self.kind = kind
        self.conn = None
        self.holder_pid = None  # advisory: the backend the last holder() found

    def _query(self, sql):
        import psycopg2
        for attempt in (0, 1):
            try:
                if self.conn is None or self.conn.closed:
                    self.conn = psycopg2.connect(host="127.0.0.1", port=self.server.port, user="postgres",
                                                 dbname="postgres", application_name="observer",
                                                 connect_timeout=5)
                    self.conn.autocommit = True
                    with self.conn.cursor() as cur:
                        cur.execute("SET idle_session_timeout = 0; SET idle_in_transaction_session_timeout = 0")
                with self.conn.cursor() as cur:
                    cur.execute(sql)
                    return cur.fetchall()
            except (psycopg2.OperationalError, psycopg2.InterfaceError):
                self.conn = None
                if attempt:
                    raise

    def holder(self):
        if self.kind == "for_update":
            rows = self._query("SELECT a.application_name FROM pgrowlocks('jobs') r, unnest(r.pids) AS p(pid) "
                               "JOIN pg_stat_activity a ON a.pid = p.pid ORDER BY 1")
        else:
            rows = self._query("SELECT a.application_name, a.pid FROM pg_locks l "
                               "JOIN pg_stat_activity a ON a.pid = l.pid "
                               f"WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = {PG_ADVISORY_KEY} "
                               "AND l.objsubid = 1 AND l.granted ORDER BY 1")
            self.holder_pid = rows[0][1] if rows else None
        return rows[0][0] if rows else None

    def gone(self, name, lock):
        return self.holder() != name

    def close(self):
        if self.conn is not None and not self.conn.closed:
            self.conn.close()


# ---------------------------------------------------------------------------------------
# Client processes (this file run with --client): JSON lines in, JSON lines out.


class RedisClient:
    EXTEND = ('if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) '
              'else return 0 end')
    RELEASE = 'if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end'

    def __init__(self, config):
        import redis
        self.redis = redis
        self.r = redis.Redis(host="127.0.0.1", port=config["port"], socket_timeout=5)
        self.name = config["name"]
        self.px = max(1, int(round(config["ttl"] * 1000)))
        self.value = None

    def _call(self, call):
        for attempt in (0, 1):  # a connection the restarted server no longer knows: once more
            try:
                return call()
            except self.redis.ConnectionError:
                if attempt:
                    raise

    def acquire(self):
        value = f"{self.name}:{uuid.uuid4().hex}"
        if self._call(lambda: self.r.set(LOCK_KEY, value, nx=True, px=self.px)):
            self.value = value
            return {"reply": "granted", "_lock": value}
        return {"reply": "taken"}

    def extend(self):
        done = self.value and self._call(lambda: self.r.eval(self.EXTEND, 1, LOCK_KEY, self.value, self.px))
        return {"reply": "extended" if done else "refused"}

    def release(self):
        done = self.value and self._call(lambda: self.r.eval(self.RELEASE, 1, LOCK_KEY, self.value))
        return {"reply": "released" if done else "not_held"}


class EtcdClient:
    """Keeps its lease alive every TTL/3 by itself (as etcd's concurrency.Session does)
    until it releases; only a pause or its death stops that."""

    def __init__(self, config):
        import etcd3
        self.e = etcd3.client(host="127.0.0.1", port=config["port"], timeout=5, grpc_options=ETCD_GRPC)
        self.name = config["name"]
        self.ttl = max(1, math.ceil(config["ttl"] - 1e-9))
        self.lease = None
        self.token = None
        self.granted_ttl = None
        self.stop_keepalive = None

    def acquire(self):
        lease = self.e.lease(self.ttl)
        ok, responses = self.e.transaction(
            compare=[self.e.transactions.create(LOCK_KEY) == 0],
            success=[self.e.transactions.put(LOCK_KEY, self.name, lease=lease)], failure=[])
        if not ok:
            lease.revoke()
            return {"reply": "taken"}
        self._stop()
        self.lease, self.granted_ttl = lease, lease.granted_ttl
        first = responses[0]
        self.token = (first.response_put if hasattr(first, "response_put") else first).header.revision
        stop = threading.Event()
        self.stop_keepalive = stop
        threading.Thread(target=self._keepalive, args=(lease.id, self.granted_ttl, stop), daemon=True).start()
        return {"reply": "granted", "token": self.token, "_lock": self.token}

    def _keepalive(self, lease_id, ttl, stop):
        while not stop.wait(ttl / 3.0):
            try:
                for response in self.e.refresh_lease(lease_id):
                    if response.TTL <= 0:
                        return
            except Exception:  # server down: try again at the next beat
                pass

    def _stop(self):
        if self.stop_keepalive:
            self.stop_keepalive.set()
            self.stop_keepalive = None

    def extend(self):
        if self.lease is None:
            return {"reply": "refused"}
        ttl = [r.TTL for r in self.e.refresh_lease(self.lease.id)]
        return {"reply": "extended" if ttl and ttl[0] > 0 else "refused"}

    def release(self):
        if self.token is None:
            return {"reply": "not_held"}
        ok, _ = self.e.transaction(compare=[self.e.transactions.create(LOCK_KEY) == self.token],
                                   success=[self.e.transactions.delete(LOCK_KEY)], failure=[])
        self._stop()
        try:
            self.lease.revoke()
        except Exception:
            pass
        self.lease = self.token = None
        return {"reply": "released" if ok else "not_held"}


class ZooKeeperClient:
    """A kazoo session (kazoo heartbeats by itself) opened at the first acquire; after the
    session expired, kazoo opens a new one at its next connection."""

    def __init__(self, config):
        self.hosts = f"127.0.0.1:{config['port']}"
        self.name = config["name"]
        self.timeout = config["ttl"]
        self.zk = None
        self.session = None  # the session that created our node

    def _retry(self, call):
        from kazoo.exceptions import ConnectionLoss
        deadline = time.monotonic() + 15
        while True:
            try:
                return call()
            except ConnectionLoss:
                if time.monotonic() > deadline:
                    raise
                time.sleep(POLL)

    def _current_session(self):
        client_id = self.zk.client_id if self.zk else None
        return client_id[0] if client_id else None

    def acquire(self):
        from kazoo.client import KazooClient
        from kazoo.exceptions import NodeExistsError, SessionExpiredError
        if self.zk is None:
            self.zk = KazooClient(hosts=self.hosts, timeout=self.timeout, connection_retry=KAZOO_RETRY)
            self.zk.start(timeout=30)
        for attempt in (0, 1):
            try:
                _, stat = self._retry(lambda: self.zk.create(ZK_PATH, self.name.encode(), ephemeral=True,
                                                             include_data=True))
                break
            except NodeExistsError:
                return {"reply": "taken"}
            except SessionExpiredError:  # kazoo opens a new session: try on that one
                if attempt:
                    raise
        self.session = stat.ephemeralOwner
        return {"reply": "granted", "token": stat.czxid, "_lock": stat.czxid}

    def extend(self):
        from kazoo.exceptions import SessionExpiredError
        if self.zk is None or self.session is None:
            return {"reply": "refused"}
        try:
            self._retry(lambda: self.zk.exists(ZK_PATH))  # a round trip on our session
        except SessionExpiredError:
            return {"reply": "refused"}
        return {"reply": "extended" if self._current_session() == self.session else "refused"}

    def release(self):
        from kazoo.exceptions import NoNodeError, SessionExpiredError, BadVersionError
        if self.zk is None:
            return {"reply": "not_held"}
        try:
            stat = self._retry(lambda: self.zk.exists(ZK_PATH))
            if stat is None or stat.ephemeralOwner != self._current_session():
                return {"reply": "not_held"}
            self._retry(lambda: self.zk.delete(ZK_PATH, version=stat.version))
        except (SessionExpiredError, NoNodeError, BadVersionError):
            return {"reply": "not_held"}
        self.session = None
        return {"reply": "released"}


class PostgresClient:
    """One session, opened at the first acquire and again at an acquire after it ended."""

    def __init__(self, config):
        import psycopg2
        import psycopg2.errors
        self.pg = psycopg2
        self.port = config["port"]
        self.name = config["name"]
        self.kind = config["lock"]
        self.conn = None
        self.in_lock_transaction = False
        self.backend = None  # the backend (through PgBouncer: the lent server connection) of the last statement

    def _connect(self):
        if self.conn is None or self.conn.closed:
            self.conn = self.pg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                                        application_name=self.name, connect_timeout=5)
            self.conn.autocommit = self.kind == "advisory"
            self.in_lock_transaction = False

    def _query(self, sql):
        with self.conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()

    def _lost(self):
        try:
            self.conn.close()
        except Exception:
            pass
        self.conn = None
        self.in_lock_transaction = False

    def _try_lock(self):
        if self.kind == "advisory":
            granted, self.backend = self._query(f"SELECT pg_try_advisory_lock({PG_ADVISORY_KEY}), pg_backend_pid()")[0]
            return granted
        try:
            self._query("SELECT name FROM jobs WHERE name = 'lock' FOR UPDATE NOWAIT")
            self.in_lock_transaction = True
            return True
        except self.pg.errors.LockNotAvailable:
            self.conn.rollback()
            self.in_lock_transaction = False
            return False

    def acquire(self):
        errors = (self.pg.OperationalError, self.pg.InterfaceError)
        for attempt in (0, 1):  # a session the server ended: once more on a new one
            try:
                self._connect()
                granted = self._try_lock()
                break
            except errors:
                self._lost()
                if attempt:
                    raise
        return {"reply": "granted" if granted else "taken", "_pid": self.backend}

    def extend(self):
        if self.conn is None or (self.kind == "for_update" and not self.in_lock_transaction):
            return {"reply": "refused"}
        try:
            if self.kind == "advisory":
                held = self._query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 "
                                   f"AND objid = {PG_ADVISORY_KEY} AND objsubid = 1 "
                                   "AND pid = pg_backend_pid() AND granted")[0][0] > 0
            else:
                self._query("SELECT name FROM jobs WHERE name = 'lock' FOR UPDATE NOWAIT")
                held = True
        except (self.pg.OperationalError, self.pg.InterfaceError):
            self._lost()
            held = False
        return {"reply": "extended" if held else "refused"}

    def release(self):
        if self.conn is None or (self.kind == "for_update" and not self.in_lock_transaction):
            return {"reply": "not_held"}
        try:
            if self.kind == "advisory":
                done, self.backend = self._query(f"SELECT pg_advisory_unlock({PG_ADVISORY_KEY}), pg_backend_pid()")[0]
            else:
                self.conn.commit()
                self.in_lock_transaction = False
                done = True
        except (self.pg.OperationalError, self.pg.InterfaceError):
            self._lost()
            done = False
        return {"reply": "released" if done else "not_held", "_pid": self.backend}


CLIENTS = {"redis": RedisClient, "etcd": EtcdClient, "zookeeper": ZooKeeperClient, "postgres": PostgresClient}


def unavailable(error):
    """Did the call fail because the server is not there?"""
    name = type(error).__name__
    return name in ("ConnectionError", "ConnectionFailedError", "OperationalError", "InterfaceError",
                    "ConnectionLoss", "ConnectionRefusedError", "TimeoutError", "ConnectionTimeoutError")


def client_main(config_text):
    logging.basicConfig(level=logging.ERROR)
    config = json.loads(config_text)
    client = CLIENTS[config["store"]](config)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        op = json.loads(line)["op"]
        try:
            reply = getattr(client, op)()
        except Exception as error:
            traceback.print_exc()
            reply = {"reply": "unavailable" if unavailable(error) else "error",
                     "_error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


class ClientProcess:
    def __init__(self, name, config, folder):
        self.name = name
        self.config = dict(config, name=name)
        self.log = os.path.join(folder, f"client-{name}.log")
        self.proc = None
        self.paused_until = 0.0
        self.lock = threading.Lock()
        self.timer = None
        self.respawned = False
        self.spawn()

    def spawn(self):
        log = open(self.log, "a")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--client", json.dumps(self.config)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1)
        log.close()

    def wait_ready(self):
        line = self.proc.stdout.readline()
        if not line or not json.loads(line).get("ready"):
            raise RuntimeError(f"client {self.name} did not start (see {self.log})")

    def call(self, op):
        """Blocks while the process is paused: a stopped process answers after SIGCONT."""
        if self.respawned:
            self.respawned = False
            self.wait_ready()
        self.proc.stdin.write(json.dumps({"op": op}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"client {self.name} died (see {self.log})")
        return json.loads(line)

    def pause(self, duration):
        with self.lock:
            self.paused_until = max(self.paused_until, time.monotonic() + duration)
            os.kill(self.proc.pid, signal.SIGSTOP)
            self._arm()

    def _arm(self):
        if self.timer:
            self.timer.cancel()
        self.timer = threading.Timer(max(0.0, self.paused_until - time.monotonic()), self._resume)
        self.timer.daemon = True
        self.timer.start()

    def _resume(self):
        with self.lock:
            if time.monotonic() < self.paused_until - 0.001:
                self._arm()
                return
            self.timer = None
            if self.proc.poll() is None:
                os.kill(self.proc.pid, signal.SIGCONT)

    def crash(self):
        """SIGKILL, and a fresh process in its place for the client's next step (which
        waits for it to be ready: the crash step itself takes no time)."""
        with self.lock:
            if self.timer:
                self.timer.cancel()
                self.timer = None
            self.paused_until = 0.0
            kill_and_wait(self.proc)
        self.spawn()
        self.respawned = True

    def stop(self):
        with self.lock:
            if self.timer:
                self.timer.cancel()
                self.timer = None
            kill_and_wait(self.proc)


# ---------------------------------------------------------------------------------------
# Running a case


class ClientState:
    def __init__(self):
        self.lock = None  # what identifies its lock at the server: Redis value, etcd/ZK token
        self.since = None  # when its last granted acquire or extended extend answered (monotonic)


def run_case(case, folder, shared):
    store = case["store"]
    steps_do = {step["do"] for step in case["steps"]}
    clock = None  # only a case that steps the clock runs its server under the shim
    if "clock_step" in steps_do and store != "etcd":
        clock = ClockShift(folder, shared["shim"]())
    pooler = None
    if store == "postgres":
        server = PostgresServer(case, os.path.join(folder, "server"), clock, shared["pg_template"]())
        if "pooler" in case.get("server", {}):
            pooler = PgBouncerServer(case["server"]["pooler"], os.path.join(folder, "pgbouncer"), server)
    else:
        sub = os.path.join(folder, "server")
        os.makedirs(sub)
        server = {"redis": RedisServer, "etcd": EtcdServer, "zookeeper": ZooKeeperServer}[store](case, sub, clock)
    clients = {}
    observer = None
    results = []
    connections = {}  # through PgBouncer: backend pid -> "server connection N", in order of appearance

    def connection(pid):
        return connections.setdefault(pid, f"server connection {len(connections) + 1}")

    try:
        server.start()
        version = server.version
        if pooler is not None:
            pooler.start()
            version += " + " + pooler.version
        if store == "redis":
            observer = RedisObserver(server)
        elif store == "etcd":
            observer = EtcdObserver(server)
        elif store == "zookeeper":
            observer = ZooKeeperObserver(server)
        else:
            kinds = {c.get("lock") for c in case.get("clients", {}).values()}
            observer = PostgresObserver(server, kinds.pop() if kinds else "advisory")
        for name, config in sorted(case.get("clients", {}).items()):
            port = pooler.port if pooler is not None else server.port
            clients[name] = ClientProcess(name, {"store": store, "port": port,
                                                 "ttl": seconds(config["ttl"]) if "ttl" in config else None,
                                                 "lock": config.get("lock")}, folder)
        for client in clients.values():
            client.wait_ready()
        state = {name: ClientState() for name in clients}
        offset = 0.0
        for index, step in enumerate(case["steps"]):
            do = step["do"]
            entry = {"step": index, "do": do}
            if do in ("acquire", "extend", "release"):
                name = step["client"]
                entry["client"] = name
                reply = clients[name].call(do)
                answered = time.monotonic()  # the lease runs from the server's answer
                entry.update({k: v for k, v in reply.items() if not k.startswith("_")})
                if pooler is not None and reply.get("_pid") is not None:
                    entry["connection"] = connection(reply["_pid"])
                if "_error" in reply:
                    print(f"  {case['name']} step {index}: client {name}: {reply['_error']}", file=sys.stderr)
                if reply["reply"] == "granted":
                    state[name].lock, state[name].since = reply.get("_lock"), answered
                elif reply["reply"] == "extended":
                    state[name].since = answered
            elif do == "holder":
                try:
                    entry["holder"] = observer.holder()
                    if pooler is not None and observer.holder_pid is not None:
                        entry["holder_connection"] = connection(observer.holder_pid)
                except Exception as error:
                    if not unavailable(error):
                        raise
                    entry["holder"] = "unavailable"
            elif do == "expires":
                name = step["client"]
                entry["client"] = name
                entry["after"] = expires(observer, name, state[name])
            elif do == "wait":
                time.sleep(seconds(step["for"]))
            elif do == "pause":
                clients[step["client"]].pause(seconds(step["for"]))
            elif do == "clock_step":
                if clock is None:
                    entry["reply"] = "unsupported"
                else:
                    offset += seconds(step["by"])
                    clock.set(offset)
            elif do == "crash":
                if "client" in step:
                    clients[step["client"]].crash()
                else:
                    server.crash(step["kind"])
            elif do == "restart":
                server.restart()
            results.append(entry)
            if TRACE:
                wall = time.strftime("%H:%M:%S", time.localtime()) + f"{time.time() % 1:.3f}"[1:]
                print(f"  {wall} {time.monotonic() - TRACE[0]:8.3f} {case['name']} {json.dumps(entry)}",
                      file=sys.stderr, flush=True)
    finally:
        for client in clients.values():
            client.stop()
        if observer is not None:
            try:
                observer.close()
            except Exception:
                pass
        if pooler is not None:
            pooler.stop()
        server.stop()
    return {"name": case["name"], "store": store, "server": version, "results": results}


def expires(observer, name, state):
    if state.since is None:
        return None
    start = time.monotonic()
    while time.monotonic() - start < EXPIRES_LIMIT:
        if observer.gone(name, state.lock):
            return round(time.monotonic() - state.since, 3)
        time.sleep(POLL)
    return None


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--client":
        client_main(sys.argv[2])
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder for <name>.json results")
    parser.add_argument("--store", choices=STORES, help="run only the cases of this store")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (server logs, data)")
    parser.add_argument("--trace", action="store_true", help="print every step as it ends, with the time")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()
    if args.trace:
        TRACE.append(time.monotonic())
    logging.basicConfig(level=logging.CRITICAL)  # kazoo's reconnect chatter

    cases = []
    for path in args.cases:
        with open(path) as f:
            case = json.load(f)
        validate(case, path)
        if args.store is None or case["store"] == args.store:
            cases.append(case)
    os.makedirs(args.out, exist_ok=True)
    # On tmpfs when there is one: the servers' fsyncs then cost nothing, and a disk busy
    # with other work does not delay them (crashes never rely on the disk: see README).
    root = tempfile.mkdtemp(prefix="locksim-fidelity-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    cache = {}

    def once(key, make):
        def get():
            if key not in cache:
                cache[key] = make()
            return cache[key]
        return get

    shared = {"shim": once("shim", lambda: build_shim(os.path.join(root))),
              "pg_template": once("pg", lambda: pg_template(root))}
    failed = []
    try:
        for case in cases:
            folder = os.path.join(root, case["name"])
            os.makedirs(folder)
            started = time.monotonic()
            try:
                result = run_case(case, folder, shared)
            except Exception:
                traceback.print_exc()
                print(f"{case['name']}: could not run (logs in {folder})", file=sys.stderr)
                failed.append(case["name"])
                args.keep = True
                continue
            with open(os.path.join(args.out, case["name"] + ".json"), "w") as f:
                json.dump(result, f, sort_keys=True, indent=1)
                f.write("\n")
            print(f"{case['name']}: ran in {time.monotonic() - started:.1f} s", flush=True)
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        if args.keep:
            print(f"temporary folders kept in {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
