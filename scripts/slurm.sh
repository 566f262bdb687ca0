#!/usr/bin/env bash
# Start or stop a one-node Slurm cluster on this machine (Debian's
# slurmctld, slurmd, slurm-client and munge), for the job-array example of
# examples/slurm/ and its end-to-end test (integration/slurm). No systemd:
# munged, slurmctld and slurmd run in the foreground of background
# processes whose PIDs this script keeps, under DIR.
#
#   eval "$(bash scripts/slurm.sh start [DIR])"
#                             install the packages when missing (apt-get,
#                             root only), write DIR/slurm.conf for this
#                             machine's cores and memory, start the three
#                             daemons, wait until the node is idle, print
#     export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm.sh stop [DIR]     stop exactly the PIDs start wrote
#   scripts/slurm.sh status [DIR]   print the export line if it is running
#   scripts/slurm.sh check          succeed when the binaries are there
#
# DIR defaults to $GRAPHCLOAK_SLURM_DIR, else .slurm/default (gitignored).
# It holds slurm.conf, the munge key and socket, the controller's state, the
# daemon's spool, the logs and the pidfiles. The ports are the first free
# pair from 6817 (slurmctld) and 6818 (slurmd) upwards, so two clusters in
# two DIRs do not collide. Everything runs as root (SlurmUser=root): the
# cluster is a test fixture, not a shared service. Environment:
# GRAPHCLOAK_SLURM_START_TIMEOUT (seconds, default 60).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The daemons are in /usr/sbin, which a user's PATH may lack.
PATH="$PATH:/usr/sbin:/sbin"
daemons=(munged slurmctld slurmd)
log() { printf 'slurm.sh: %s\n' "$*" >&2; }

have_binaries() {
	command -v munged >/dev/null && command -v slurmctld >/dev/null &&
		command -v slurmd >/dev/null && command -v sbatch >/dev/null
}

# install puts Debian's packages in place when a binary is missing. The
# slurm-wlm metapackage would pull in slurmdbd and the docs too; these four
# are all a one-node cluster needs.
install() {
	have_binaries && return 0
	if ((EUID != 0)); then
		log "Slurm is not installed and this is not root: run as root, or apt-get install slurmctld slurmd slurm-client munge"
		return 1
	fi
	command -v apt-get >/dev/null || { log "Slurm is not installed and there is no apt-get (Debian's slurm-wlm packages are what this script uses)"; return 1; }
	log "installing slurmctld slurmd slurm-client munge with apt-get"
	local out
	out="$(mktemp)"
	# policy-rc.d, where the machine has one, keeps the packages' own
	# services from starting; without systemd they would not start anyway.
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge >"$out" 2>&1; then
		if ! DEBIAN_FRONTEND=noninteractive apt-get update >>"$out" 2>&1 ||
			! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge >>"$out" 2>&1; then
			tail -n 20 "$out" >&2
			rm -f "$out"
			log "apt-get could not install the packages (no network or no Debian repositories?)"
			return 1
		fi
	fi
	rm -f "$out"
	have_binaries || { log "the packages are installed but munged/slurmctld/slurmd/sbatch are still missing"; return 1; }
}

# port_free PORT succeeds when nothing listens on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# write_conf DIR writes DIR/slurm.conf for this machine: its CPUs, cores and
# memory as slurmd -C measures them.
write_conf() {
	local dir="$1" node cores mem ctld=6817
	while ! port_free "$ctld" || ! port_free $((ctld + 1)); do
		ctld=$((ctld + 2))
	done
	node="$(hostname -s)"
	# slurmd -C prints "NodeName=… CPUs=2 Boards=1 SocketsPerBoard=1
	# CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24152": the node's line,
	# less the name (ours points at 127.0.0.1) and 5% of the memory, left to
	# the daemons so that a job asking for all of it still fits.
	cores="$(slurmd -C | head -n1 | sed -E 's/^NodeName=[^ ]+ //; s/ RealMemory=[0-9]+//')"
	mem="$(slurmd -C | head -n1 | sed -nE 's/.*RealMemory=([0-9]+).*/\1/p')"
	mem=$((mem * 95 / 100))
	local cpus
	cpus="$(sed -nE 's/.*CPUs=([0-9]+).*/\1/p' <<<"$cores")"
	cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm.sh: a one-node cluster on $node, everything under $dir.
ClusterName=graphcloak
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld
SlurmdPort=$((ctld + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.slurmpid
SlurmdPidFile=$dir/slurmd.slurmpid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: a container may have none writable, and none of these needs
# them. linuxproc tracks a job's processes by their parent chain (a job
# that double-forks away escapes it, which a test fixture can live with);
# task/none binds nothing to cores; no accounting daemon, so sacct has
# nothing (squeue and the parts themselves tell the array's progress).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
# Cores and memory are what jobs ask for (--cpus-per-task, --mem), so that
# an array runs as many tasks at once as fit, as on a real cluster. A task
# that asks for no memory gets its share of the node's per CPU.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((mem / cpus))
SchedulerType=sched/backfill
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=10
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 $cores RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

# runs PID NAME succeeds when process PID runs the binary NAME (Debian's
# slurmctld is an alternatives link to slurmctld-wlm: compared resolved).
runs() {
	[[ -n "$1" ]] && kill -0 "$1" 2>/dev/null &&
		[[ "$(readlink "/proc/$1/exe" 2>/dev/null)" == "$(readlink -f "$(command -v "$2")")" ]]
}

# alive DIR NAME succeeds when the PID in DIR/NAME.pid runs the binary NAME.
alive() {
	local pid
	pid="$(cat "$1/$2.pid" 2>/dev/null)" || return 1
	runs "$pid" "$2"
}

# launch DIR NAME ARGS...: NAME in the foreground of a background process
# of its own session (a Ctrl-C in the terminal does not reach it), its PID
# kept in DIR/NAME.pid.
launch() {
	local dir="$1" name="$2"
	shift 2
	setsid "$@" >"$dir/$name.out" 2>&1 </dev/null &
	local pid=$! i
	echo "$pid" >"$dir/$name.pid"
	# Until setsid has exec'd the daemon, /proc/PID/exe is setsid's.
	for ((i = 0; i < 50; i++)); do
		runs "$pid" "$name" && return 0
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
}

start() {
	local dir="${1:-${GRAPHCLOAK_SLURM_DIR:-$root/.slurm/default}}"
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	if alive "$dir" slurmd && alive "$dir" slurmctld && alive "$dir" munged; then
		log "already running in $dir"
		status "$dir"
		return
	fi
	stop "$dir" 2>/dev/null || true # what is left of a half-started cluster
	install
	if ((EUID != 0)); then
		log "slurmd must run as root (it starts jobs as their users): run as root"
		return 1
	fi
	local t0=$SECONDS
	mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
	chmod 755 "$dir/munge"
	# munged refuses a key others can read and a socket directory others
	# can write; --force lets it live under /tmp, whose sticky bit it
	# would otherwise question.
	[[ -s "$dir/munge/munge.key" ]] || { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none && chmod 600 "$dir/munge/munge.key"; }
	launch "$dir" munged munged --foreground --force --key-file="$dir/munge/munge.key" \
		--socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
		--log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
	wait_for "$dir" munged "[[ -S '$dir/munge/munge.socket' ]]" || return 1
	write_conf "$dir"
	launch "$dir" slurmctld slurmctld -D -i -f "$dir/slurm.conf"
	wait_for "$dir" slurmctld "SLURM_CONF='$dir/slurm.conf' scontrol ping 2>/dev/null | grep -q UP" || return 1
	launch "$dir" slurmd slurmd -D -f "$dir/slurm.conf"
	wait_for "$dir" slurmd "SLURM_CONF='$dir/slurm.conf' sinfo -h -o %T 2>/dev/null | grep -qx idle" || return 1
	log "one-node cluster up in $((SECONDS - t0)) s: munged $(cat "$dir/munged.pid"), slurmctld $(cat "$dir/slurmctld.pid"), slurmd $(cat "$dir/slurmd.pid") ($(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o '%N %c CPUs %m MB')); stop: bash scripts/slurm.sh stop $dir"
	exports "$dir"
}

# wait_for DIR NAME CONDITION waits until CONDITION holds while NAME runs;
# on a timeout or NAME's exit it says why, stops what started and fails.
wait_for() {
	local dir="$1" name="$2" cond="$3" t0=$SECONDS timeout="${GRAPHCLOAK_SLURM_START_TIMEOUT:-60}"
	until eval "$cond"; do
		if ! alive "$dir" "$name"; then
			log "$name exited during startup; its last lines:"
			tail -n 20 "$dir/$name.out" "$dir/$name.log" 2>/dev/null >&2 || true
			stop "$dir"
			return 1
		fi
		if ((SECONDS - t0 >= timeout)); then
			log "$name not ready after $timeout s; its last lines:"
			tail -n 20 "$dir/$name.out" "$dir/$name.log" 2>/dev/null >&2 || true
			stop "$dir"
			return 1
		fi
		sleep 0.3
	done
}

exports() { printf 'export SLURM_CONF=%q\n' "$1/slurm.conf"; }

stop() {
	local dir="${1:-${GRAPHCLOAK_SLURM_DIR:-$root/.slurm/default}}" name pid i stopped=()
	[[ -d "$dir" ]] || { log "nothing to stop in $dir"; return 0; }
	# slurmd first (it ends its jobs' steps), munged last (the others
	# authenticate through it while they shut down).
	for name in slurmd slurmctld munged; do
		if ! alive "$dir" "$name"; then
			rm -f "$dir/$name.pid"
			continue
		fi
		pid="$(cat "$dir/$name.pid")"
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			alive "$dir" "$name" || break
			sleep 0.1
		done
		if alive "$dir" "$name"; then
			log "$name (pid $pid) did not stop in 10 s; sending SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rm -f "$dir/$name.pid"
		stopped+=("$name $pid")
	done
	if ((${#stopped[@]})); then
		log "stopped ${stopped[*]}"
	else
		log "nothing running in $dir"
	fi
}

status() {
	local dir="${1:-${GRAPHCLOAK_SLURM_DIR:-$root/.slurm/default}}" name
	for name in "${daemons[@]}"; do
		alive "$dir" "$name" || { log "not running in $dir ($name is not)"; return 1; }
	done
	exports "$dir"
}

case "${1:-}" in
check) have_binaries ;;
start) shift; start "$@" ;;
stop) shift; stop "$@" ;;
status) shift; status "$@" ;;
*)
	echo "usage: scripts/slurm.sh start [DIR] | stop [DIR] | status [DIR] | check" >&2
	exit 2
	;;
esac
