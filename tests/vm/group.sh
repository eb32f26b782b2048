#!/bin/bash
# group.sh: several stages' guest commands in one tools/vm-run guest (tests/check's in_one_boot).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/group.sh --plan FILE --out DIR [--ko FILE] [--dev sib0|rxe0]
       tests/vm/group.sh --plan FILE --list

Runs the commands of FILE (one a line: LABEL<TAB>TIMEOUT<TAB>COMMAND, COMMAND a shell line)
one after another, each in a session of its own under 'timeout TIMEOUT', its output on stdout
and in DIR/LABEL.log, its exit status in DIR/LABEL.rc (124/137: timed out), its seconds in
DIR/LABEL.secs. Before every
command but the first it puts the guest back as tools/vm-run set it up: the previous
command's processes killed, network namespaces, softib links other than sib0, and network
interfaces other than lo/eth0/eth1 deleted, eth0's qdisc reset, softib (the --ko FILE,
default \$VM_SOFTIB_KO, and softib_db.ko beside it) loaded and sib0 on eth0 ACTIVE with its
IPv4 GID, rdma_rxe unloaded (it holds UDP port 4791; with --dev rxe0, as for tools/vm-run
--rxe: rdma_rxe and rxe0 instead). A reset that fails is reported on stdout and in the next command's log; the
command runs all the same. Exit status 0 when every command ran (whatever their status), 2 on
bad usage. Meant to run inside a tools/vm-run guest.  --list prints the LABELs of FILE, the
commands it would run (each writes DIR/LABEL.rc), and exits.
USAGE
}
PLAN="" OUTDIR="" KO=${VM_SOFTIB_KO:-} DEV=sib0 LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--plan) [[ $# -ge 2 ]] || { echo "group.sh: --plan needs a file" >&2; exit 2; }; PLAN=$2; shift 2 ;;
	--out) [[ $# -ge 2 ]] || { echo "group.sh: --out needs a directory" >&2; exit 2; }; OUTDIR=$2; shift 2 ;;
	--ko) [[ $# -ge 2 ]] || { echo "group.sh: --ko needs a file" >&2; exit 2; }; KO=$2; shift 2 ;;
	--list) LIST=1; shift ;;
	--dev) [[ ${2:-} == sib0 || ${2:-} == rxe0 ]] || { echo "group.sh: --dev is sib0 or rxe0" >&2; exit 2; }; DEV=$2; shift 2 ;;
	*) echo "group.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
if ((LIST)); then
	[[ -f $PLAN ]] || { echo "group.sh: --list needs --plan FILE" >&2; exit 2; }
	cut -f1 "$PLAN" | grep .
	exit 0
fi
[[ -f $PLAN && -d $OUTDIR ]] || { echo "group.sh: --plan FILE and --out DIR are needed (see --help)" >&2; exit 2; }
mysid=$(ps -o sid= -p $$ | tr -d ' ')

# kill every process of an earlier command: all but kernel threads and init's (session 0) and ours
kill_leftovers() {
	local sig p sid
	for sig in TERM KILL; do
		for p in $(ps -e -o pid=,sid= | awk -v me="$mysid" '$2 != 0 && $2 != me { print $1 }'); do
			kill -$sig "$p" 2>/dev/null
		done
		sleep 0.3
	done
}
wait_dev() {
	local i
	for i in $(seq 100); do
		grep -q ACTIVE /sys/class/infiniband/$DEV/ports/1/state 2>/dev/null &&
			grep -qs '0000:0000:0000:0000:0000:ffff:0a00:020f' /sys/class/infiniband/$DEV/ports/1/gids/* && return 0
		sleep 0.1
	done
	return 1
}
reset_guest() {
	local why="" l
	kill_leftovers
	ip -all netns delete 2>/dev/null
	for l in $(rdma link show 2>/dev/null | awk '{ split($2, a, "/"); print a[1] }' | sort -u); do
		[[ $l == "$DEV" ]] || rdma link delete "$l" 2>/dev/null
	done
	for l in $(ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		case $l in lo|eth0|eth1) ;; *) ip link delete "$l" 2>/dev/null ;; esac
	done
	tc qdisc del dev eth0 root 2>/dev/null
	ip link set eth0 up
	if [[ $DEV == rxe0 ]]; then
		[[ -d /sys/module/rdma_rxe ]] || modprobe rdma_rxe || why+=" modprobe rdma_rxe failed;"
		[[ -e /sys/class/infiniband/rxe0 ]] || rdma link add rxe0 type rxe netdev eth0 ||
			why+=" rdma link add rxe0 failed;"
	else
		# rdma_rxe (loaded by a stage to talk to softib) holds UDP port 4791 while loaded
		[[ ! -d /sys/module/rdma_rxe ]] || modprobe -r rdma_rxe || why+=" rmmod rdma_rxe failed;"
		if [[ ! -d /sys/module/softib ]]; then
			local db; db=$(dirname "$KO")/softib_db.ko
			[[ -d /sys/module/softib_db || ! -f $db ]] || insmod "$db" || why+=" insmod $db failed;"
			insmod "$KO" || why+=" insmod $KO failed;"
		fi
		[[ -e /sys/class/infiniband/sib0 ]] || rdma link add sib0 type softib netdev eth0 ||
			why+=" rdma link add sib0 failed;"
	fi
	wait_dev || why+=" $DEV not ACTIVE with its IPv4 GID;"
	[[ -z $why ]] || { echo "group.sh: reset:$why"; return 1; }
}

first=1
while IFS=$'\t' read -r label tmo cmd; do
	[[ -n $label ]] || continue
	note=""
	((first)) || reset_guest >"$OUTDIR/$label.reset" 2>&1 || note=$(cat "$OUTDIR/$label.reset")
	first=0
	echo "=== group.sh: $label (timeout ${tmo}s) $(date -u +%H:%M:%S)"
	[[ -z $note ]] || echo "$note"
	start=$SECONDS rc=0
	{ [[ -z $note ]] || echo "$note"
	  setsid -w timeout -k 10 "$tmo" bash -c "$cmd" </dev/null 2>&1; } | tee "$OUTDIR/$label.log"
	rc=${PIPESTATUS[0]}
	# (the braces' status is the command's: echo goes first)
	echo "$rc" >"$OUTDIR/$label.rc"
	echo "$((SECONDS - start))" >"$OUTDIR/$label.secs"
	echo "=== group.sh: $label exit $rc in $((SECONDS - start))s"
done <"$PLAN"
kill_leftovers
exit 0
