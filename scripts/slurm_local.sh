#!/usr/bin/env bash
# A real two-node Slurm cluster on this one machine, for tests and a first
# look at `loaz launch slurm` (docs/CLUSTER.md): munged with a key of its
# own, one slurmctld, and two slurmd (nodes n1 and n2, each of CPUS cores),
# every file under DIR and every port a free one, so that it collides with
# nothing. Needs root and Debian's slurmctld, slurmd, slurm-client and munge
# (scripts/setup.sh installs them).
#
# usage: scripts/slurm_local.sh start DIR   # prints the line that points Slurm's commands at it
#        scripts/slurm_local.sh stop DIR    # ends every daemon it started, by process id
# environment: CPUS (cores a node declares, 2)
#
# After start: export SLURM_CONF=DIR/slurm.conf, then sbatch, squeue, scontrol
# and scancel talk to this cluster (partition "local", both nodes).
set -euo pipefail
if [ $# -ne 2 ] || { [ "$1" != start ] && [ "$1" != stop ]; }; then
  sed -n '9,10p' "$0" | sed 's/^# //' >&2
  exit 2
fi
dir=$(realpath -m "$2")
conf=$dir/slurm.conf

stop() {
  local file pid
  # Jobs first, while the controller can still end them.
  if [ -e "$dir/pids/slurmctld.pid" ]; then
    SLURM_CONF=$conf scancel --full -u "$(id -un)" 2>/dev/null || true
    for _ in $(seq 100); do
      [ -z "$(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for file in "$dir"/pids/*.pid; do
    [ -e "$file" ] || continue
    pid=$(cat "$file" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  # Daemons get a few seconds to go; then they are killed.
  for _ in $(seq 50); do
    local alive=0
    for file in "$dir"/pids/*.pid; do
      [ -e "$file" ] || continue
      pid=$(cat "$file" 2>/dev/null || true)
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for file in "$dir"/pids/*.pid; do
    [ -e "$file" ] || continue
    pid=$(cat "$file" 2>/dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
    rm -f "$file"
  done
}

if [ "$1" = stop ]; then
  stop
  echo "slurm_local: stopped the cluster in $dir"
  exit 0
fi

for program in munged slurmctld slurmd sbatch; do
  command -v "$program" >/dev/null || { echo "slurm_local: no $program (scripts/setup.sh installs Slurm and munge)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm_local: needs root (the daemons run as root)" >&2; exit 1; }
cpus=${CPUS:-2}
mkdir -p "$dir"/{munge,state,spool/n1,spool/n2,log,pids}
chmod 700 "$dir/munge"

# Three free ports: the controller's and each node's.
read -r port_ctld port_n1 port_n2 < <(python3 - <<'EOF'
import socket
sockets = [socket.socket() for _ in range(3)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])
EOF
)
host=$(hostname -s)

dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/pids/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed"

cat >"$conf" <<EOF
# A two-node cluster on one machine (scripts/slurm_local.sh).
ClusterName=loazlocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port_ctld
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: a requeued job may start again after 10 s, not 120 s.
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/pids/slurmctld.pid
SlurmdPidFile=$dir/pids/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
# CR_LLN: each job on the least loaded node, so that two workers take both.
SelectTypeParameters=CR_CPU,CR_LLN
SchedulerType=sched/backfill
# A test cluster schedules at once: every 2 s, not every minute.
SchedulerParameters=sched_interval=2,bf_interval=2
SwitchType=switch/none
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
KillWait=10
SlurmdTimeout=30
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$port_n1 CPUs=$cpus State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$port_n2 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF

export SLURM_CONF=$conf
slurmctld -f "$conf"
slurmd -f "$conf" -N n1
slurmd -f "$conf" -N n2

# Ready when both nodes are idle.
for _ in $(seq 150); do
  idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
  [ "$idle" = 2 ] && break
  sleep 0.2
done
if [ "$idle" != 2 ]; then
  echo "slurm_local: the nodes did not come up; logs in $dir/log" >&2
  sinfo -N >&2 || true
  stop
  exit 1
fi
echo "export SLURM_CONF=$conf"
