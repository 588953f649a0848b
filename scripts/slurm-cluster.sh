#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for trying scripts/sweep.sbatch and for
# tests/slurm_test.sh. What it makes lives in DIR: munge key, slurm.conf, controller state,
# slurmd spool, logs, and the PIDs of the three daemons it starts; only munged's socket is
# in a directory of its own under /tmp (see start), whose name is kept in DIR.
#   scripts/slurm-cluster.sh start DIR   # installs what is missing, starts, waits for the node
#   export SLURM_CONF=DIR/slurm.conf     # then sbatch, squeue, sinfo... talk to this cluster
#   scripts/slurm-cluster.sh stop DIR    # cancels its jobs, kills exactly the PIDs in DIR
# It needs no systemd and no network: each daemon runs in its foreground mode (-D), started
# in the background by this script, which writes its PID; they talk over 127.0.0.1 only.
# Run it as root: the daemons run as you, and so do the jobs.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)        # absolute: slurm.conf and the daemons need full paths
conf=$dir/slurm.conf
daemons=(slurmd slurmctld munged)   # stop order: the node, the controller, then munge

log() { echo "slurm-cluster: $*" >&2; }

# Is the PID in DIR/NAME.pid alive (not a zombie) and still that program, not a reused PID?
running() {
  local name=$1 pid stat
  [ -s "$dir/$name.pid" ] || return 1
  pid=$(cat "$dir/$name.pid")
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || return 1
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  stat=${stat##*) }              # the fields after "(comm) ": state comes first
  [ "${stat%% *}" != Z ]
}

show_logs() {
  for f in "$dir"/log/*; do
    [ -s "$f" ] || continue
    echo "--- tail of $f" >&2
    tail -n 20 "$f" >&2
  done
}

install_missing() {
  "$(dirname "${BASH_SOURCE[0]}")/install-packages.sh" munge slurmctld slurmd slurm-client
}

# The first port from $1 up that nothing on 127.0.0.1 listens on, so that a second cluster
# (or a packaged slurmctld started by the Debian package) does not collide with this one.
free_port() {
  local port=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

write_conf() {
  local node=$1 ctld_port=$2 slurmd_port=$3
  cat > "$conf" <<EOF
# One-node Slurm cluster written by scripts/slurm-cluster.sh; everything is in $dir.
ClusterName=locksim
# The controller and the node are this machine, reached on loopback only.
SlurmctldHost=$node(127.0.0.1)
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
# Every daemon runs as whoever started it (root in CI): no slurm user, no file ownership
# to arrange.
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
# Our own munged's socket, not /run/munge (which needs its service to create it).
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/state/slurmctld.pidfile
SlurmdPidFile=$dir/spool/slurmd.pidfile
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups: a container has no writable cgroup tree (and no systemd to delegate one),
# so track a job's processes through /proc and bind nothing.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
# No mail program is installed; the default (/bin/mail) is only complained about.
MailProg=/bin/true
# Hand out CPUs, not whole nodes, so array tasks share the node.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Start a submitted job at once: by default the scheduler waits up to 3 s after a batch
# submission to gather more; here a job starts within a second of its submission, and the
# next within a second of the one before it ending (the controller's 1 s background loop).
SchedulerParameters=batch_sched_delay=0
# Forget finished jobs after 30 s instead of 300: squeue stays short between runs, yet a
# test still sees a finished or cancelled job's state for a while.
MinJobAge=30
# A node that was marked down (say slurmd restarted) returns as soon as it registers.
ReturnToService=2
EOF
}

remove_socket_dir() {
  if [ -s "$dir/munge-socket-dir" ]; then
    local socket_dir
    socket_dir=$(cat "$dir/munge-socket-dir")
    case "$socket_dir" in /tmp/locksim-munge.*) rm -rf "$socket_dir" ;; esac
  fi
  rm -f "$dir/munge-socket-dir"
}

start() {
  for name in "${daemons[@]}"; do
    if running "$name"; then
      log "already running: $name (pid $(cat "$dir/$name.pid")); stop it first: $0 stop $dir"
      exit 1
    fi
  done
  install_missing
  remove_socket_dir   # left by a run that was killed before its stop
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 700 "$dir/munge"
  [ -s "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key"

  # munged refuses a socket unless every directory above it is searchable by all, which a
  # DIR inside a mktemp -d (mode 0700) is not; and a socket's path must be short (108
  # bytes). So the socket gets a directory of its own under /tmp.
  socket_dir=$(mktemp -d /tmp/locksim-munge.XXXXXX)
  chmod 711 "$socket_dir"
  echo "$socket_dir" > "$dir/munge-socket-dir"
  socket=$socket_dir/munge.socket.2
  # --foreground: no systemd or init script to daemonize it, and we want its real PID.
  munged --foreground --socket="$socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pidfile" --seed-file="$dir/munge/munged.seed" \
    --log-file="$dir/log/munged.log" </dev/null >>"$dir/log/munged.out" 2>&1 &
  echo $! > "$dir/munged.pid"
  for _ in $(seq 50); do
    [ -S "$socket" ] || ! running munged && break
    sleep 0.1
  done
  if ! munge -S "$socket" -n </dev/null | unmunge -S "$socket" >/dev/null; then
    log "munged did not start"; show_logs; stop; exit 1
  fi

  local node ctld_port slurmd_port
  node=$(hostname -s)
  ctld_port=$(free_port "${SLURMCTLD_PORT:-6817}")
  slurmd_port=$(free_port $((ctld_port + 1)))
  write_conf "$node" "$ctld_port" "$slurmd_port"
  export SLURM_CONF=$conf
  # -D: stay in the foreground (no systemd to supervise them), so $! is the daemon itself.
  slurmctld -D -f "$conf" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
  echo $! > "$dir/slurmctld.pid"
  slurmd -D -f "$conf" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
  echo $! > "$dir/slurmd.pid"

  # Ready when the node is idle: the controller answers and the node has registered.
  local state=""
  for _ in $(seq 300); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    for name in "${daemons[@]}"; do
      if ! running "$name"; then log "$name exited while starting"; show_logs; stop; exit 1; fi
    done
    sleep 0.1
  done
  if [ "$state" != idle ]; then
    log "node $node is \"$state\" after 30 s, not idle"; show_logs; stop; exit 1
  fi
  log "up: node $node, controller on 127.0.0.1:$ctld_port; export SLURM_CONF=$conf"
}

stop() {
  # Cancel what still runs, so that no slurmstepd or job outlives its slurmd.
  if running slurmctld; then
    SLURM_CONF=$conf scancel --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 100); do
      [ -z "$(SLURM_CONF=$conf squeue -h -t running,completing -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  local name pid
  for name in "${daemons[@]}"; do
    if running "$name"; then
      pid=$(cat "$dir/$name.pid")
      kill "$pid" 2>/dev/null || true   # it may have exited a moment ago
      for _ in $(seq 100); do running "$name" || break; sleep 0.1; done
      if running "$name"; then log "$name (pid $pid) ignored SIGTERM; killing it"; kill -9 "$pid"; fi
    fi
    rm -f "$dir/$name.pid"
  done
  remove_socket_dir
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
