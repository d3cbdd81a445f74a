#!/bin/sh
# slurm-cluster.sh DIR COMMAND...: runs COMMAND beside a one-node Slurm
# cluster of its own: munged, slurmctld and slurmd on 127.0.0.1, their
# configuration, state and slurmctld's logs under DIR (munged's key and
# socket and slurmd's spool in a short /tmp directory), SLURM_CONF exported for
# the command's srun and sbatch.  Every daemon is stopped when the command
# ends, however it ends; the exit status is the command's (77 when the
# cluster does not come up: its logs are printed).
set -u
dir=$1
shift
mkdir -p "$dir/state" || exit 1
dir=$(cd "$dir" && pwd)
# The daemons' sockets (munged's, slurmd's in its spool directory) need
# paths within a socket name's 108 bytes: a short directory under /tmp.
run=$(mktemp -d /tmp/ol-slurm.XXXXXX) || exit 1
spool=$run/spool
munge=$run/munge
mkdir -p "$spool" "$munge" && chmod 700 "$munge" || exit 1

pick_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop() {
	for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$munge/munged.pid"; do
		[ -f "$pidfile" ] || continue
		pid=$(cat "$pidfile" 2>/dev/null)
		[ -n "$pid" ] || continue
		kill "$pid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -9 "$pid" 2>/dev/null
	done
	rm -rf "$run"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP

dd if=/dev/urandom of="$munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$munge/munge.key"
munged --force --socket="$munge/munge.socket" --key-file="$munge/munge.key" \
	--pid-file="$munge/munged.pid" --log-file="$munge/munged.log" \
	--seed-file="$munge/munged.seed" || { cat "$munge/munged.log"; exit 77; }

ctld_port=$(pick_port)
slurmd_port=$(pick_port)
cpus=$(nproc)
# DIR's paths are quoted: it may have a space in it (the build tree's path).
cat > "$dir/slurm.conf" <<CONF
ClusterName=offloadlink
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$munge/munge.socket
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation="$dir/state"
SlurmdSpoolDir=$spool
SlurmctldPidFile="$dir/slurmctld.pid"
SlurmdPidFile="$dir/slurmd.pid"
SlurmctldLogFile="$dir/slurmctld.log"
SlurmdLogFile="$dir/slurmd.log"
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldParameters=enable_configless
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=offload Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" || { cat "$dir/slurmctld.log"; exit 77; }
slurmd -f "$SLURM_CONF" -N localhost || { cat "$dir/slurmd.log"; exit 77; }
# Up when the node takes jobs.
up=0
for _ in $(seq 1 100); do
	if sinfo -h -N -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; then
		up=1
		break
	fi
	sleep 0.2
done
if [ $up = 0 ]; then
	echo "slurm-cluster.sh: the node did not come up" >&2
	sinfo -N >&2
	cat "$dir/slurmctld.log" "$dir/slurmd.log" >&2
	exit 77
fi
"$@"
