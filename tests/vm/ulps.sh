#!/bin/bash
# ulps.sh: the kernel's own RDMA consumers between two hosts -- NVMe over Fabrics, iSER, SRP
# NFS over RDMA and SMC-R -- over softib, then over rdma_rxe.
# Runs in the two guests of tools/vm-pair: "--role 1" (host 1, the initiators, drives the
# cases) and "--role 2" (host 2, the targets, executes host 1's orders: tools/lib/pair-rpc.sh).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/ulps.sh --role 1|2 --dir DIR [--results FILE] [--mb N] [--loops N] [--flap S]
                        [--ko FILE] [--no-rxe] [--ulps LIST]
       tests/vm/ulps.sh --list [--no-rxe] [--ulps LIST]

Host 2 (10.0.3.2) exports, host 1 (10.0.3.1) imports, over eth1: first with softib on both
hosts (sib1 on eth1, created when missing), then with rdma_rxe on both (rxe1 on eth1).
Per device, one result each:
  smc             SMC-R through the kernel's smc module, no smc-tools: tests/field/smc-xfer
                  sends 4 MiB (ULPS_SMC_MB) over an AF_SMC socket to its server on host 2,
                  which checks every byte; both hosts have the user-defined EID SOFTIB-ULPS
                  (SMC-Rv2, the SMC-R of a RoCE v2 device, is proposed only with one).  Passes
                  only when smc_diag shows both ends in mode SMCR over the device (SMC falls
                  back to TCP silently) and the device sent a packet per 4096 bytes or more
                  (sysfs hw_counters sent_pkts); figure MB/s
  smc_reconnect   host 2's eth1 down for S s (--flap) and up again while smc-xfer sends
                  64 MiB (ULPS_SMC_FLAP_MB) over SMC-R: that connection ends cleanly (all
                  bytes verified, or an error on both ends with every byte the server got
                  right; no hang, no kernel warning on either host), then a new connection
                  runs SMC-R over the device again (as smc; retried for up to 30 s after the
                  link is up, ULPS_SMC_WAIT); figure: when the first ended, when SMC-R was back
  nvme            nvmet + nvmet-rdma (file namespace) on host 2, nvme connect on host 1:
                  N MiB (--mb, default 8) written with dd (1 MiB, O_DIRECT), read back,
                  sha256 compared; MB/s both ways
  nvme_reconnect  host 2's eth1 down for S s (--flap, default 6) and up again while a second
                  pattern is written: the controller reconnects (ctrl-loss-tmo 60,
                  reconnect-delay 1, keep-alive 5; at least one "Successfully reconnected"),
                  the data reads back intact
  nvme_connect_loop  N (--loops, default 10) nvme connect + nvme disconnect: the medians of
                     the two commands' own run times, then s per loop (with this script's work)
  iser, iser_reconnect   LIO iSCSI target (configfs, ramdisk LUN, iser on the portal) on
                  host 2, open-iscsi (iscsid, discovery, iface.transport_name iser, login)
  srp, srp_reconnect     ib_srpt (configfs, rdma_cm port 5555, ramdisk LUN) on host 2,
                  ib_srp's add_target with dest=10.0.3.2:5555 (rdma_cm) on host 1
  nfs, nfs_reconnect     nfsd with "rdma 20049" in its portlist on host 2,
                  mount -o rdma,port=20049,vers=4.2 on host 1, files written and read back
Every <ulp>_reconnect (not smc's) fails unless the outage held its write up for S/2 s or
more (the link was down while it ran), and says how the ULP got through: the lines of
connection errors or reconnects in host 1's kernel log, and the transport counters that grew
on both hosts (retransmitted_pkts, loss_probes, ack_timeout, retry_exceeded_err; rdma_rxe's
rcvd_seq_err). rdma_cm's RC QPs on RoCE have the local ACK timeout 19 (2.1 s nominal) and
6 or 7 retries, so iSER, SRP and NFS ride out a 6 s outage by retransmission, as on a NIC;
their own timers (iSER's NOP-out pings, SCSI's and NFS's) end a longer one.
Also setup (both hosts have their device on eth1 and reach each other), rxe_phase (both
hosts switched).
Where rdma_rxe fails a case that softib passes, the rxe result is ok with a detail that
starts "rxe FAIL (informational)"; "CELL <case> <softib|rxe> PASS|FAIL detail" lines on
stdout.  Every result goes to FILE as "RESULT ulps_<case>_<softib|rxe> ok|FAIL <detail>".
Host 2 (--role 2) only executes host 1's orders until it says stop.  DIR must be empty and
visible to both guests.  --ko is accepted for tools/vm-pair's command lines (unused).
--no-rxe: the softib phase only (no rxe_phase, no rdma_rxe cases).  --ulps LIST: only these
of "smc nvme iser srp nfs" (quoted, space-separated; default all).  Exit status 0 iff all
passed.
USAGE
}
ROLE="" DIR="" RESULTS=/dev/null LIST=0 MB=8 LOOPS=10 FLAP=6 ACTION="" RXE=1 ALL_ULPS="smc nvme iser srp nfs"
ULPS=$ALL_ULPS
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--role) ROLE=${2:?}; shift 2 ;;
	--dir) DIR=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--mb) MB=${2:?}; shift 2 ;;
	--loops) LOOPS=${2:?}; shift 2 ;;
	--flap) FLAP=${2:?}; shift 2 ;;
	--ko) shift 2 ;;
	--list) LIST=1; shift ;;
	--no-rxe) RXE=0; shift ;;
	--ulps) ULPS=${2:?}; shift 2 ;;
	--target) ACTION=${2:?}; shift 2; break ;;	# (internal: host 2's side of a case)
	*) echo "ulps.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../../tools
SELF=$HERE/ulps.sh
NQN=nqn.2026-12.org.softib:ulps
IQN=iqn.2026-12.org.softib:ulps
IIQN=iqn.2026-12.org.softib:host1
SRPT_GUID=5ab1000000000001 SRP_PORT=5555 NFS_PORT=20049
CFS=/sys/kernel/config T=/sys/kernel/config/target
EXPORT=/srv/ulps MNT=/mnt/ulps TW=/tmp/ulps-target
PEER=10.0.3.2
IO_TMO=${ULPS_IO_TIMEOUT:-45}	# seconds for one dd (a whole write or read)
ULP_CASES="smc smc_reconnect nvme nvme_reconnect nvme_connect_loop iser iser_reconnect srp srp_reconnect nfs nfs_reconnect"
SMC_XFER=$HERE/../field/smc-xfer SMC_PORT=7771 SMC_MB=${ULPS_SMC_MB:-4} SMC_EID=SOFTIB-ULPS
SMC_FLAP_MB=${ULPS_SMC_FLAP_MB:-64} SMC_WAIT=${ULPS_SMC_WAIT:-30}
# a fallback's decline reasons in smc-xfer's output (up to the ";" or the end of its line)
SMC_FALLBACK_RE=$'fallback TCP reason [^;\n]*'
[[ $SMC_MB =~ ^[1-9][0-9]{0,3}$ ]] && ((SMC_MB <= 4096)) || { echo "ulps.sh: ULPS_SMC_MB=$SMC_MB: not 1..4096" >&2; exit 2; }
if ! [[ $SMC_FLAP_MB =~ ^[1-9][0-9]{0,3}$ ]] || ((SMC_FLAP_MB > 4096)); then
	echo "ulps.sh: ULPS_SMC_FLAP_MB=$SMC_FLAP_MB: not 1..4096" >&2; exit 2
fi
[[ $SMC_WAIT =~ ^[1-9][0-9]{0,2}$ ]] || { echo "ulps.sh: ULPS_SMC_WAIT=$SMC_WAIT: not 1..999" >&2; exit 2; }

TL_PREFIX=ulps_
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"

# ---------------------------------------------------------------- host 2: the targets
cfs_mount() { mountpoint -q $CFS || mount -t configfs none $CFS; }
nvme_up() {
	modprobe -a nvmet nvmet-rdma && cfs_mount || return 1
	local s=$CFS/nvmet/subsystems/$NQN p=$CFS/nvmet/ports/1
	# what a failed case before left (the configfs says what stays: mkdir would fail)
	nvme_down 2>/dev/null
	mkdir -p $TW && truncate -s "${MB}M" $TW/nvme.img &&
		mkdir $s && echo 1 >$s/attr_allow_any_host && mkdir $s/namespaces/1 &&
		echo -n $TW/nvme.img >$s/namespaces/1/device_path &&
		echo 1 >$s/namespaces/1/buffered_io && echo 1 >$s/namespaces/1/enable &&
		mkdir $p && echo $PEER >$p/addr_traddr && echo rdma >$p/addr_trtype &&
		echo 4420 >$p/addr_trsvcid && echo ipv4 >$p/addr_adrfam && ln -s $s $p/subsystems/$NQN
}
nvme_down() {
	local s=$CFS/nvmet/subsystems/$NQN p=$CFS/nvmet/ports/1
	[[ -L $p/subsystems/$NQN ]] && rm $p/subsystems/$NQN
	[[ -d $p ]] && rmdir $p
	[[ -d $s/namespaces/1 ]] && { echo 0 >$s/namespaces/1/enable; rmdir $s/namespaces/1; }
	[[ -d $s ]] && rmdir $s
	rm -f $TW/nvme.img
	[[ ! -d $s && ! -d $p ]]
}
# ramdisk LUN NAME in rd_mcp_N
rd_up() {
	local d=$T/core/$1/$2
	mkdir -p "$d" && echo "rd_pages=$((MB * 256))" >"$d/control" && echo 1 >"$d/enable"
}
rd_down() { [[ -d $T/core/$1/$2 ]] && rmdir "$T/core/$1/$2"; [[ -d $T/core/$1 ]] && rmdir "$T/core/$1"; true; }
iser_up() {
	modprobe -a target_core_mod iscsi_target_mod ib_isert && cfs_mount || return 1
	local g=$T/iscsi/$IQN/tpgt_1 a
	rd_up rd_mcp_0 iser && mkdir -p $g/lun/lun_0 && ln -s $T/core/rd_mcp_0/iser $g/lun/lun_0/ulps &&
		mkdir "$g/np/$PEER:3260" && echo 1 >"$g/np/$PEER:3260/iser" || return 1
	for a in authentication=0 generate_node_acls=1 demo_mode_write_protect=0 cache_dynamic_acls=1; do
		echo "${a#*=}" >"$g/attrib/${a%=*}" || return 1
	done
	echo 1 >$g/enable
}
iser_down() {
	local g=$T/iscsi/$IQN/tpgt_1
	if [[ -d $g ]]; then
		echo 0 >$g/enable
		[[ -d $g/np/$PEER:3260 ]] && rmdir "$g/np/$PEER:3260"
		[[ -L $g/lun/lun_0/ulps ]] && rm $g/lun/lun_0/ulps
		[[ -d $g/lun/lun_0 ]] && rmdir $g/lun/lun_0
		rmdir $g
	fi
	[[ -d $T/iscsi/$IQN ]] && rmdir $T/iscsi/$IQN
	rd_down rd_mcp_0 iser
	[[ ! -d $T/iscsi/$IQN ]]
}
# ib_srpt names a port by its GID 0's interface ID, "xxxx:xxxx:xxxx:xxxx"
srpt_port() { local g; g=$(cat "/sys/class/infiniband/$1/ports/1/gids/0") && echo "${g#*:*:*:*:}"; }
# the ACL names ib_srpt may give host 1's rdma_cm session (its "%pIS" of the connection)
SRP_ACLS="10.0.3.1 10.0.3.2 ::ffff:10.0.3.1 ::ffff:10.0.3.2"
srp_up() { # DEV
	local port g a
	modprobe ib_srpt srpt_service_guid=0x$SRPT_GUID && modprobe target_core_mod && cfs_mount || return 1
	port=$(srpt_port "$1") || return 1
	g=$T/srpt/$port/tpgt_1
	mkdir -p $T/srpt && echo $SRP_PORT >$T/srpt/discovery_auth/rdma_cm_port &&
		rd_up rd_mcp_1 srp && mkdir -p "$g/lun/lun_0" && ln -s $T/core/rd_mcp_1/srp "$g/lun/lun_0/ulps" || return 1
	for a in $SRP_ACLS; do
		mkdir -p "$g/acls/$a/lun_0" && ln -s "$g/lun/lun_0" "$g/acls/$a/lun_0/ulps" || return 1
	done
	echo 1 >"$g/enable"
}
srp_down() {
	local p g a
	for p in "$T"/srpt/*:*; do
		[[ -d $p ]] || continue
		g=$p/tpgt_1
		if [[ -d $g ]]; then
			echo 0 >"$g/enable"
			for a in "$g"/acls/*; do
				[[ -d $a ]] || continue
				[[ -L $a/lun_0/ulps ]] && rm "$a/lun_0/ulps"
				rmdir "$a/lun_0" "$a"
			done
			[[ -L $g/lun/lun_0/ulps ]] && rm "$g/lun/lun_0/ulps"
			[[ -d $g/lun/lun_0 ]] && rmdir "$g/lun/lun_0"
			rmdir "$g"
		fi
		rmdir "$p"
	done
	rd_down rd_mcp_1 srp
	! compgen -G "$T/srpt/*:*" >/dev/null
}
nfs_up() {
	modprobe -a nfsd rpcrdma || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p $EXPORT /var/lib/nfs/v4recovery /run/rpcbind
	mountpoint -q $EXPORT || mount -t tmpfs -o size=$((MB * 4))M ulps $EXPORT || return 1
	pgrep -x rpcbind >/dev/null || rpcbind || return 1
	# the export is NFSv4's root (fsid=0): a pseudo root on the guest's overlay "/" would not
	# be exportable
	exportfs -o rw,sync,no_root_squash,insecure,no_subtree_check,fsid=0 10.0.3.0/24:$EXPORT || return 1
	pgrep -x rpc.mountd >/dev/null || rpc.mountd || return 1
	# a short grace period: host 1's first OPEN waits for its end (settable while nfsd is down)
	echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null
	echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null
	rpc.nfsd 4 && echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist && grep -q "rdma $NFS_PORT" /proc/fs/nfsd/portlist
}
nfs_down() {
	[[ -d /proc/fs/nfsd/threads || -e /proc/fs/nfsd/threads ]] && rpc.nfsd 0
	exportfs -ua
	mountpoint -q $EXPORT && umount $EXPORT
	true
}
daemons_down() { # the daemons this script started (on host 1: iscsid; host 2: mountd, rpcbind)
	local d p
	for d in "$@"; do
		for p in $(pgrep -x "$d"); do kill "$p"; done
	done
	mountpoint -q /proc/fs/nfsd && umount /proc/fs/nfsd
	true
}
# flap [MARKER]: eth1 down for $FLAP s, then up; MARKER (a file) is made once the link is down
flap() {
	ip link set eth1 down || return
	[[ -z ${1:-} ]] || : >"$1"
	sleep "$FLAP" && ip link set eth1 up
}
# (both hosts) leave softib for rdma_rxe: both want UDP port 4791
to_rxe() {
	local d
	for d in sib1 sib0; do [[ -e /sys/class/infiniband/$d ]] && rdma link delete $d; done
	rmmod softib && modprobe rdma_rxe && rdma link add rxe1 type rxe netdev eth1 &&
		wait_active rxe1 && wait_gid rxe1 "$1" 100
}
# SMC-R: the kernel's smc module used directly (socket(AF_SMC), tests/field/smc-xfer), no
# smc-tools.  A RoCE v2 device can do SMC-Rv2 only (v1 wants a RoCE v1 GID), which the kernel
# proposes only with a user-defined EID that both hosts share: set by smc-xfer --add-ueid
smc_up() {
	modprobe -a smc smc_diag && "$SMC_XFER" --add-ueid $SMC_EID
}
smc_down() { "$SMC_XFER" --del-ueid $SMC_EID; }
# (both hosts) klog_mark: the time stamp of the kernel log's last line; klog_check MARK: the
# kernel's checkers' reports (tools/vm-log-check: oops, WARNING, BUG, lockdep ...) among the
# lines logged after MARK, on stdout, status 1 when there is one
klog_mark() { dmesg | sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p' | tail -1 | grep . || echo 0; }
klog_check() {
	"$TOOLS/vm-log-check" --max 3 <(dmesg | awk -v t="$1" \
		'match($0, /^\[ *[0-9]+\.[0-9]+\]/) { v = substr($0, 2, RLENGTH - 2); sub(/^ */, "", v); if (v + 0 > t + 0) print }')
}
# (host 2) dev_wait DEV ADDR: DEV's port active again and its GID of ADDR back (after a flap)
dev_wait() { wait_active "$1" 300 && wait_gid "$1" "$2" 300; }
rxe_down() {
	[[ -e /sys/class/infiniband/rxe1 ]] && rdma link delete rxe1
	[[ -d /sys/module/rdma_rxe ]] && modprobe -r rdma_rxe
	true
}

if [[ -n $ACTION ]]; then
	case $ACTION in
	nvme_up|nvme_down|iser_up|iser_down|srp_up|srp_down|nfs_up|nfs_down|smc_up|smc_down|flap|to_rxe|rxe_down|klog_mark|klog_check|dev_wait) "$ACTION" "$@" ;;
	all_down) nvme_down; iser_down; srp_down; nfs_down; smc_down; daemons_down rpc.mountd rpcbind ;;
	*) echo "ulps.sh: unknown target action $ACTION" >&2; exit 2 ;;
	esac
	exit
fi

names=() phases=softib
((RXE)) && phases="softib rxe"
has_ulp() { [[ " $ULPS " == *" $1 "* ]]; }
for u in $ULPS; do
	[[ " $ALL_ULPS " == *" $u "* ]] || { echo "ulps.sh: --ulps: unknown ULP $u (not one of $ALL_ULPS)" >&2; exit 2; }
done
for ph in $phases; do for c in $ULP_CASES; do has_ulp "${c%%_*}" && names+=("${c}_$ph"); done; done
if ((RXE)); then cases setup rxe_phase "${names[@]}"
else cases setup "${names[@]}"; fi
[[ $ROLE == 1 || $ROLE == 2 ]] || { usage >&2; exit 2; }
[[ -d $DIR ]] || { echo "ulps.sh: --dir $DIR: no such directory" >&2; exit 2; }
RPC_DIR=$DIR RPC_ROLE=$ROLE
# shellcheck source=../../tools/lib/pair-rpc.sh
. "$TOOLS/lib/pair-rpc.sh"

sib1_up() { # ADDR: sib1 on eth1 (it may exist already: another script ran before)
	[[ -e /sys/class/infiniband/sib1 ]] || rdma link add sib1 type softib netdev eth1
	wait_active sib1 && wait_gid sib1 "$1" 100
}
if [[ $ROLE == 2 ]]; then
	if sib1_up 10.0.3.2; then rpc_put "$DIR/ready.0" "softib sib1"
	else rpc_put "$DIR/ready.0" "setup failed: no active sib1 with 10.0.3.2's GID"; fi
	rpc_serve || exit 3
	"$SELF" --target all_down >/dev/null 2>&1
	rxe_down
	exit 0
fi

# ---------------------------------------------------------------- host 1: the cases
W=$(mktemp -d /tmp/ulps.XXXXXX)
declare -A SOFTIB_OK=()
# target ACTION [ARGS] [SECONDS]: run "ulps.sh --target ACTION ARGS" on host 2; tout has
# its output on failure
target() {
	local secs=${3:-120}
	rpc_run "$SELF --mb $MB --flap $FLAP --target $1 ${2:-}" "$secs" && return 0
	tout=$(tr '\n' ' ' <"$DIR/out.$rn" 2>/dev/null)
	tout="host 2 $1 failed: ${tout:-timeout}"
	return 1
}
record() { # CASE PHASE ok|FAIL DETAIL
	local c=$1 ph=$2 st=$3 d=$4
	echo "CELL $c $ph $([[ $st == ok ]] && echo PASS || echo FAIL) $d"
	if [[ $ph == softib ]]; then
		SOFTIB_OK[$c]=$st
	elif [[ $st != ok && ${SOFTIB_OK[$c]:-} == ok ]]; then
		st=ok d="rxe FAIL (informational): $d"
	fi
	result "${c}_$ph" "$st" "$d"
}
# bounded DEADLINE COMMAND...: COMMAND in the background, its output (stdout and stderr) on
# stdout; status 124 when it has not ended within DEADLINE seconds.  It is then left behind
# (a process waiting for a block device's I/O cannot be killed; the disconnect at the end of
# the case fails that I/O), so its output goes through a file: a pipe it kept would hang a $()
# The command's own start and end ($EPOCHREALTIME) go to $W/bounded.last when it ends, so a
# case can time the command without the 0.2 s steps of the polling here.  The polling loops
# of this script wait with rpc_nap (pair-rpc.sh), which starts no process
bounded() {
	local secs=$1 pid i st=124 f=$W/bounded.$BASHPID
	shift
	rm -f "$W/bounded.last"
	{
		a=$EPOCHREALTIME
		"$@"
		s=$?
		echo "$a $EPOCHREALTIME" >"$W/bounded.last"
		exit $s
	} >"$f" 2>&1 &
	pid=$!
	for ((i = 0; i < secs * 5; i++)); do
		kill -0 $pid 2>/dev/null || { st=0; wait $pid || st=$?; break; }
		rpc_nap 0.2
	done
	((st == 124)) && kill $pid 2>/dev/null
	cat "$f"
	rm -f "$f"
	return $st
}
# stamps_median KIND FILE: the median of end - start over FILE's "KIND START END" lines
stamps_median() {
	awk -v k="$1" '$1 == k { print $3 - $2 }' "$2" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mbps() { awk -v a="$1" -v b="$2" -v m="$MB" 'BEGIN { printf "%.1f", m / (b - a) }'; }
dd_why() { # STATUS OUTPUT: why a bounded dd failed
	if (($1 == 124)); then echo "did not end within $IO_TMO s"
	else echo "failed (dd exit $1: $(tr '\n' ' ' <<<"$2" | cut -c1-120))"; fi
}
# xfer DEST SRC: SRC's $MB MiB to DEST (block device or file) with O_DIRECT, read back, sha256
# compared; sets xd (figures, or what failed)
xfer() {
	local t0 t1 t2 a b out st
	t0=$EPOCHREALTIME
	out=$(bounded "$IO_TMO" dd if="$2" of="$1" bs=1M count="$MB" oflag=direct conv=fsync,notrunc status=none) ||
		{ st=$?; xd="write to $1 $(dd_why $st "$out")"; return 1; }
	t1=$EPOCHREALTIME
	out=$(bounded "$IO_TMO" dd if="$1" of="$W/back" bs=1M count="$MB" iflag=direct status=none) ||
		{ st=$?; xd="read of $1 $(dd_why $st "$out")"; return 1; }
	t2=$EPOCHREALTIME
	xw=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	a=$(sha256sum <"$2") b=$(sha256sum <"$W/back")
	rm -f "$W/back"
	[[ $a == "$b" ]] || { xd="sha256 of $1 differs from what was written"; return 1; }
	xd="write $(mbps "$t0" "$t1") MiB/s, read $(mbps "$t1" "$t2") MiB/s; $MB MiB, sha256 ${a:0:12} matches"
}
# transport counters of DEV that show an outage (softib's and rdma_rxe's names; those DEV has)
RETX_COUNTERS="retransmitted_pkts loss_probes ack_timeout retry_exceeded_err rcvd_seq_err"
retx_read() { # DEV: "name value ..." of RETX_COUNTERS (the ones DEV has)
	local c f
	for c in $RETX_COUNTERS; do
		f=/sys/class/infiniband/$1/ports/1/hw_counters/$c
		[[ -r $f ]] && printf '%s %s ' "$c" "$(<"$f")"
	done
	true
}
# peer_retx VAR DEV: VAR = retx_read of host 2's DEV, or "?" when the pair-rpc failed (not in
# a subshell: pair-rpc's request numbers live in this shell)
peer_retx() {
	rpc_get "$1" "$(declare -f retx_read); RETX_COUNTERS='$RETX_COUNTERS'; retx_read $2" 30 ||
		printf -v "$1" '?'
}
retx_growth() { # BEFORE AFTER: the counters that grew, "name +N, ..." (or "none grew")
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); for (i = 1; i < n; i += 2) v[x[i]] = x[i + 1]
		n = split(b, y, " "); o = ""
		for (i = 1; i < n; i += 2) if (y[i + 1] > v[y[i]]) o = o (o ? ", " : "") y[i] " +" y[i + 1] - v[y[i]]
		print o ? o : "none grew" }'
}
# flap_xfer DEST SRC DEV PEERDEV: host 2's eth1 down for $FLAP s, a write and read-back
# beginning half a second into the outage; sets xd. Fails unless the outage held the write up
# (it took at least FLAP/2 s). Says how the ULP got through: the kernel log's lines of its
# connection's errors and reconnects on host 1 since the flap (its connection re-established)
# and the transport's counters of DEV and host 2's PEERDEV (its RC QPs retransmitting)
flap_xfer() {
	local t0=$SECONDS r k0 c1 c2="" ev how lg
	k0=$(dmesg | wc -l)
	c1=$(retx_read "$3")
	peer_retx c2 "$4"
	local mark=$DIR/flap-down.$RANDOM
	rpc_remote run "$SELF --flap $FLAP --target flap $mark"
	r=$rn
	# the write starts half a second into the outage
	if ! rpc_wait_file "$mark" 30; then
		rpc_wait_file "$DIR/rc.$r" 60
		xd="host 2's eth1 did not go down within 30 s: $(tr '\n' ' ' <"$DIR/out.$r" 2>/dev/null)"
		return 1
	fi
	rm -f "$mark"
	rpc_nap 0.5
	xw=0
	xfer "$1" "$2"
	local st=$?
	if ! rpc_wait_file "$DIR/rc.$r" 60 || [[ $(cat "$DIR/rc.$r") != 0 ]]; then
		xd="host 2's link flap failed; $xd"
		return 1
	fi
	local c2b=""
	peer_retx c2b "$4"
	ev=$(dmesg | tail -n +$((k0 + 1)) | grep -aiE 'reconnect|conn(ection)? (error|lost|closed|failed)|disconnect|not responding|abort|reset|timed? ?out|error' |
		grep -avE 'eth1|speed is unknown' || true)
	if [[ -n $ev ]]; then
		lg="$(grep -c . <<<"$ev") log lines of connection errors or reconnects"
		how="host 1's first: $(head -1 <<<"$ev" | sed -E 's/^\[ *[0-9.]+\] //' | cut -c1-100)"
	else lg="no connection error logged" how="none in host 1's kernel log"; fi
	how+="; transport counters: host 1 $3 $(retx_growth "$c1" "$(retx_read "$3")"), host 2 $4 "
	if [[ $c2 == "?" || $c2b == "?" ]]; then how+="not read (pair-rpc failed)"
	else how+=$(retx_growth "$c2" "$c2b"); fi
	# the figure first (up to the first ";": tools/ulps-report's cell)
	if ((st == 0)); then xd="${xd%%;*}, held up ${xw} s, $lg;${xd#*;}"
	else xd="$xd, $lg"; fi
	xd+="; eth1 of host 2 down ${FLAP} s, done after $((SECONDS - t0)) s; $how"
	if ((st == 0)) && ! awk -v w="$xw" -v f="$FLAP" 'BEGIN { exit !(w >= f / 2) }'; then
		xd="the write took only ${xw} s: the outage (${FLAP} s) did not hold it up; $xd"
		return 1
	fi
	return $st
}
# the block device of a SCSI disk whose host's driver is PROC (ib_srp, iscsi_iser)
scsi_bdev() {
	local b h
	for b in /sys/block/sd*; do
		[[ -e $b ]] || continue
		h=$(readlink -f "$b/device")
		[[ $h =~ /(host[0-9]+)/ ]] || continue
		[[ $(cat "/sys/class/scsi_host/${BASH_REMATCH[1]}/proc_name" 2>/dev/null) == "$1" ]] &&
			echo "/dev/${b##*/}" && return 0
	done
	return 1
}
wait_bdev() { # FUNCTION ARGS: until FUNCTION prints a block device (30 s)
	local i d
	# (no udev in the guest to load the SCSI disk driver for a new LUN)
	modprobe sd_mod
	for i in $(seq 150); do
		d=$("$@") && [[ -b $d ]] && echo "$d" && return 0
		rpc_nap 0.2
	done
	return 1
}
nvme_bdev() {
	local b q
	for b in /sys/block/nvme*; do
		[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		q=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
		[[ $q == "$NQN" ]] && echo "/dev/${b##*/}" && return 0
	done
	return 1
}
nvme_ctrl() { local c; for c in /sys/class/nvme/nvme*; do [[ $(cat "$c/subsysnqn" 2>/dev/null) == "$NQN" ]] && echo "${c##*/}" && return 0; done; return 1; }
nvme_conn() { bounded 60 nvme connect -t rdma -a $PEER -s 4420 -n $NQN "$@"; }
nvme_disc() { bounded 60 nvme disconnect -n $NQN; }

# nvme_conn_watched: nvme_conn; when it has not ended after 15 s, both hosts' QPs
# (`rdma res show qp -dd`: posted, sent, completed, PSNs) and port counters go to stderr
nvme_conn_watched() {
	local pid i
	nvme_conn &
	pid=$!
	for ((i = 0; i < 75; i++)); do
		kill -0 $pid 2>/dev/null || { wait $pid; return; }
		rpc_nap 0.2
	done
	{
		echo "connect stalled 15 s; host 1:"
		rdma res show qp -dd; rdma statistic show link
		echo "host 2:"
	} | tr '\n' ' ' >&2
	rpc_run "rdma res show qp -dd; rdma statistic show link" 30
	tr '\n' ' ' <"$DIR/out.$rn" >&2
	wait $pid
}
# sib_rounds DEV [BEFORE]: a softib device's completion and round counters; with BEFORE (what
# it printed then), the growth since as ", host 1 sib1: ..." (nothing for another device)
sib_rounds() {
	local c v=() n
	[[ $1 == sib* ]] || return 0
	for c in completions softirq_rounds work_rounds; do v+=("$(counter "$1" $c 0)"); done
	if (($# == 1)); then echo "${v[*]}"; return; fi
	read -ra n <<<"$2"
	printf ', host 1 %s: %d completions; rounds: %d in softirq, %d in the workqueue' \
		"$1" $((v[0] - n[0])) $((v[1] - n[1])) $((v[2] - n[2]))
}
case_nvme() { # PHASE DEV
	local ph=$1 bdev ctrl i ok=0 t0 out k0 rounds0
	if ! target nvme_up "" 60; then
		for i in nvme nvme_reconnect nvme_connect_loop; do record $i "$ph" FAIL "$tout"; done
		return
	fi
	modprobe nvme-rdma
	if ! out=$(nvme_conn -l 60 -c 1 -k 5 2>&1) || ! bdev=$(wait_bdev nvme_bdev); then
		record nvme "$ph" FAIL "nvme connect: $(echo "$out" | tr '\n' ' ')"
		record nvme_reconnect "$ph" FAIL "no controller"
	else
		ctrl=$(nvme_ctrl)
		rounds0=$(sib_rounds "$2")
		if xfer "$bdev" "$W/a"; then record nvme "$ph" ok "$xd ($ctrl $bdev)$(sib_rounds "$2" "$rounds0")"
		else record nvme "$ph" FAIL "$xd"; fi
		k0=$(dmesg | grep -c 'Successfully reconnected')
		# (keep-alive 5 s: the controller notices a 6 s outage and reconnects)
		local fx=0 st nrec
		flap_xfer "$bdev" "$W/b" "$2" "$3" || fx=1
		st=$(cat "/sys/class/nvme/$ctrl/state" 2>/dev/null)
		nrec=$(($(dmesg | grep -c 'Successfully reconnected') - k0))
		if ((fx == 0)) && [[ $st == live ]] && ((nrec > 0)); then
			record nvme_reconnect "$ph" ok "${xd%%;*}, controller live, reconnected $nrec time(s);${xd#*;}"
		else
			record nvme_reconnect "$ph" FAIL "controller $st, reconnected $nrec time(s) (want 1 or more); $xd"
		fi
		nvme_disc >/dev/null
	fi
	# controllers created and deleted in a loop (blktests nvme/031's work). The figures are
	# nvme-cli's own times (bounded's stamps), medians over the loops; the time per loop
	# also has this script's polling and checks
	local stamps=$W/nvme_loop.stamps
	: >"$stamps"
	t0=$EPOCHREALTIME
	for ((i = 0; i < LOOPS; i++)); do
		if ! out=$(nvme_conn_watched 2>&1) || ! nvme_ctrl >/dev/null; then
			out="nvme connect: ${out:-no controller}"
			break
		fi
		echo "c $(<"$W/bounded.last")" >>"$stamps"
		out=$(nvme_disc 2>&1)
		[[ $out == *"disconnected 1 controller"* ]] || { out="nvme disconnect: $out"; break; }
		echo "d $(<"$W/bounded.last")" >>"$stamps"
		ok=$((ok + 1))
	done
	if ((ok == LOOPS)); then
		record nvme_connect_loop "$ph" ok "connect $(stamps_median c "$stamps") s, disconnect $(stamps_median d "$stamps") s (medians), $(awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$LOOPS" 'BEGIN { printf "%.2f", (b - a) / n }') s per loop; $LOOPS loops, medians of nvme-cli's own run times"
	else
		record nvme_connect_loop "$ph" FAIL "loop $((ok + 1)) of $LOOPS failed: $(echo "$out" | tr '\n' ' ') $(dmesg | grep nvme | tail -3 | tr '\n' ' ')"
		nvme_disc >/dev/null 2>&1
	fi
	target nvme_down "" 60 || echo "ulps.sh: $tout" >&2
}

case_iser() { # PHASE DEV
	local ph=$1 bdev out p=(-T "$IQN" -p "$PEER:3260")
	if ! target iser_up "" 60; then
		record iser "$ph" FAIL "$tout"; record iser_reconnect "$ph" FAIL "$tout"; return
	fi
	modprobe ib_iser
	if ! pgrep -x iscsid >/dev/null; then
		mkdir -p /etc/iscsi /run/lock/iscsi
		echo "InitiatorName=$IIQN" >/etc/iscsi/initiatorname.iscsi
		iscsid
		sleep 1
	fi
	# the records bound to open-iscsi's own "iser" iface (a default-iface record whose
	# transport_name is updated still logs in over TCP)
	if ! out=$(bounded 60 iscsiadm -m discovery -t st -p $PEER:3260 -I iser 2>&1 &&
		iscsiadm -m node "${p[@]}" -I iser -o update -n iface.transport_name -v iser 2>&1 &&
		iscsiadm -m node "${p[@]}" -I iser -o update -n node.session.timeo.replacement_timeout -v 60 2>&1 &&
		bounded 90 iscsiadm -m node "${p[@]}" -I iser --login 2>&1) || ! bdev=$(wait_bdev scsi_bdev iscsi_iser); then
		record iser "$ph" FAIL "discovery/login: $(echo "$out" | tail -3 | tr '\n' ' ')"
		record iser_reconnect "$ph" FAIL "no session"
	else
		if xfer "$bdev" "$W/a"; then record iser "$ph" ok "$xd ($bdev, $(iscsiadm -m session | head -1 | cut -d' ' -f1))"
		else record iser "$ph" FAIL "$xd"; fi
		if flap_xfer "$bdev" "$W/b" "$2" "$3"; then record iser_reconnect "$ph" ok "$xd"
		else record iser_reconnect "$ph" FAIL "$xd"; fi
	fi
	bounded 60 iscsiadm -m node "${p[@]}" --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	target iser_down "" 60 || echo "ulps.sh: $tout" >&2
}

srp_delete() { local p; for p in /sys/class/srp_remote_ports/port-*; do [[ -e $p/delete ]] && echo 1 >"$p/delete"; done; }
case_srp() { # PHASE DEV
	local ph=$1 dev=$2 peerdev=$3 bdev h
	if ! target srp_up "$peerdev" 60; then
		record srp "$ph" FAIL "$tout"; record srp_reconnect "$ph" FAIL "$tout"; return
	fi
	modprobe ib_srp
	h=/sys/class/infiniband_srp/srp-$dev-1
	if ! bounded 60 bash -c "echo id_ext=$SRPT_GUID,ioc_guid=$SRPT_GUID,dest=$PEER:$SRP_PORT >$h/add_target" 2>"$W/srp.err" ||
		! bdev=$(wait_bdev scsi_bdev ib_srp); then
		record srp "$ph" FAIL "add_target to $h: $(tr '\n' ' ' <"$W/srp.err") $(dmesg | grep -i srp | tail -2 | tr '\n' ' ')"
		record srp_reconnect "$ph" FAIL "no SRP target port"
	else
		if xfer "$bdev" "$W/a"; then record srp "$ph" ok "$xd ($bdev over $dev)"
		else record srp "$ph" FAIL "$xd"; fi
		if flap_xfer "$bdev" "$W/b" "$dev" "$peerdev"; then record srp_reconnect "$ph" ok "$xd"
		else record srp_reconnect "$ph" FAIL "$xd"; fi
	fi
	srp_delete
	target srp_down "" 60 || echo "ulps.sh: $tout" >&2
}

nfs_mounted() { grep -qs " $MNT " /proc/mounts; }
case_nfs() { # PHASE DEV
	local ph=$1 out
	if ! target nfs_up "" 90; then
		record nfs "$ph" FAIL "$tout"; record nfs_reconnect "$ph" FAIL "$tout"; return
	fi
	modprobe rpcrdma
	mkdir -p $MNT
	if ! out=$(bounded 90 mount -t nfs -o rdma,port=$NFS_PORT,vers=4.2 $PEER:/ $MNT 2>&1) ||
		! grep -q " $MNT nfs4 .*proto=rdma" /proc/mounts; then
		record nfs "$ph" FAIL "mount: $out $(grep " $MNT " /proc/mounts)"
		record nfs_reconnect "$ph" FAIL "not mounted"
	else
		if xfer $MNT/f1 "$W/a"; then record nfs "$ph" ok "$xd (vers 4.2, proto=rdma)"
		else record nfs "$ph" FAIL "$xd"; fi
		if flap_xfer $MNT/f2 "$W/b" "$2" "$3"; then record nfs_reconnect "$ph" ok "$xd"
		else record nfs_reconnect "$ph" FAIL "$xd"; fi
	fi
	# /proc/mounts, not mountpoint(1): a stat of a mount whose server is gone blocks for good
	# (rdma_rxe's NFS mount after a failed reconnect); lazy unmount when nothing else works
	nfs_mounted && { bounded 60 umount $MNT || bounded 30 umount -f $MNT || umount -l $MNT; }
	target nfs_down "" 60 || echo "ulps.sh: $tout" >&2
}

case_smc() { # PHASE DEV PEERDEV
	local ph=$1 dev=$2 out why=""
	if [[ ! -x $SMC_XFER ]]; then
		record smc "$ph" FAIL "no $SMC_XFER (make field)"; record smc_reconnect "$ph" FAIL "no $SMC_XFER"
		return
	fi
	if ! target smc_up "" 60; then record smc "$ph" FAIL "$tout"; record smc_reconnect "$ph" FAIL "$tout"; return; fi
	if ! out=$(smc_up 2>&1); then
		record smc "$ph" FAIL "host 1: $(echo "$out" | tr '\n' ' ')"
		record smc_reconnect "$ph" FAIL "host 1: smc_up failed"
		target smc_down "" 30
		return
	fi
	# SMC falls back to TCP silently: smc_attempt wants smc_diag's SMCR over the device on
	# both ends and a packet per 4096 bytes (the largest MTU) on the device
	if smc_attempt "$dev" "${3:-$dev}" "$SMC_PORT"; then
		record smc "$ph" ok "$why (>= $((SMC_MB << 8))); SMC-Rv2, UEID $SMC_EID"
	else
		record smc "$ph" FAIL "$why"
	fi
	smc_reconnect "$@"
	smc_down >/dev/null 2>&1
	target smc_down "" 30 || echo "ulps.sh: $tout" >&2
}

# smc_attempt DEV PEERDEV PORT: one verified transfer of $SMC_MB MiB as in case_smc, to a
# server on host 2's PORT; status 0 when both ends say SMCR over their device and DEV carried
# the data (why: the figures), else 1 (why: what failed)
smc_attempt() {
	local dev=$1 peerdev=$2 port=$3 r st p0 p1 min=$((SMC_MB << 8)) sout
	why=""
	rpc_remote "server:tcp:$port" "$SMC_XFER -s -p $port -t 45"
	r=$rn
	rpc_wait_file "$DIR/ready.$r" 60 || { why="host 2's server did not listen"; return 1; }
	p0=$(counter "$dev" sent_pkts 0)
	out=$("$SMC_XFER" -c $PEER -p "$port" -m "$SMC_MB" -t 30 2>&1)
	st=$?
	p1=$(counter "$dev" sent_pkts 0)
	if [[ $out != *"client: connected to"* ]]; then
		# (host 2's server may still listen: it ends at its -t, the next attempt has a port of its own)
		why="client (status $st): $(echo "${out#smc-xfer client: }" | tr '\n' ' ')"
		return 1
	fi
	[[ $out =~ $SMC_FALLBACK_RE ]] && why+=" client: ${BASH_REMATCH[0]};"
	((st == 0)) || why+=" client (status $st): $(grep -v 'client: connected' <<<"$out" | tr '\n' ' ');"
	rpc_wait_file "$DIR/rc.$r" 50 || why+=" host 2's server did not end;"
	sout=$(grep 'smc-xfer server: [oF]' "$DIR/out.$r" 2>/dev/null | tr '\n' ' ')
	[[ $(cat "$DIR/rc.$r" 2>/dev/null) == 0 ]] || why+=" server: ${sout:-$(tr '\n' ' ' <"$DIR/out.$r" 2>/dev/null)};"
	[[ $out == *"client: ok "*"mode SMCR dev $dev port 1"* ]] || why+=" client not on SMC-R over $dev;"
	[[ $sout == *"mode SMCR dev $peerdev port 1"* ]] || why+=" server not on SMC-R over $peerdev;"
	((p1 - p0 >= min)) || why+=" $dev sent $((p1 - p0)) packets, fewer than $min for $SMC_MB MiB;"
	if [[ -n $why ]]; then why=${why# }; return 1; fi
	why="$(sed -n 's/.* \([0-9.]*\) MB\/s.*/\1/p' <<<"$out" | head -1) MB/s, $SMC_MB MiB verified, smc_diag SMCR dev $dev port 1 on both hosts, $dev sent $((p1 - p0)) packets"
}
# the part of an smc-xfer result line between "connection error " and "; at connect"
smc_err() { sed -n 's/.*connection error \(.*\); at connect.*/\1/p' <<<"$1"; }
# smc_reconnect PHASE DEV PEERDEV (from case_smc, with the UEID set on both hosts): an
# SMC-R transfer of $SMC_FLAP_MB MiB with host 2's eth1 down for $FLAP s in its middle.
# A link group of one link (one device, one port) cannot move the connection (what 6.1's
# net/smc does): host 2's port goes down with eth1 (softib raises IB_EVENT_PORT_ERR),
# smc_ib_global_event_handler() -> smc_ib_port_event_work() -> smcr_port_err() ->
# smcr_link_down_cond_sched() -> smcr_link_down() -> smc_switch_conns(), which finds no
# other link and calls smc_lgr_terminate_sched(): __smc_lgr_terminate() kills each connection
# (smc_conn_kill(): sk_err ECONNABORTED, the socket closed by abort).  Host 1's port stays
# up; its RDMA writes to the gone QP end in "retry count exceeded" (SMC_QP_RETRY_CNT 7,
# SMC_QP_TIMEOUT 15: 8 expiries of softib's local ACK timer, 4 x 134 ms or twice the
# measured round trip, up to 2 s: 4 to 16 s), smc_wr_tx_process_cqe() ->
# smcr_link_down_cond_sched() does the same there (else LLC TEST LINK finds the dead link
# within 30 s + 2 s).  So the connection ends with an error on both ends (or had completed,
# every byte verified), bounded by smc-xfer's -t, and neither kernel log may report a
# warning or an oops.  Then a new connection must be SMC-R again: host 2 has no link group
# left, the server answers with a first contact, both sides make a new link group (a link
# group left on host 1 is not matched: the client matches the server's QP number too), so
# SMC-R should be back at once; it is retried for $SMC_WAIT s (a stale link group on one
# side declines the handshake, SYNCERR or no CONFIRM LINK in 5 s, which falls back to TCP
# and ends that link group)
smc_reconnect() {
	local ph=$1 dev=$2 peerdev=$3 port=$((SMC_PORT + 1)) r rf cpid k1 k2 st sst="" out
	local t0 tend tup cl sl hl i n0 head="" fig="" bad="" smcr=1 tmo=$((60 + SMC_FLAP_MB)) f=$W/smcf.out
	k1=$(klog_mark)
	if target klog_mark "" 30; then k2=$(cat "$DIR/out.$rn"); else k2=0; fi
	rpc_remote "server:tcp:$port" "$SMC_XFER -s -p $port -t $((tmo + 10))"
	r=$rn
	if ! rpc_wait_file "$DIR/ready.$r" 60; then
		record smc_reconnect "$ph" FAIL "host 2's server did not listen"
		return
	fi
	n0=$(counter "$dev" sent_pkts 0)
	"$SMC_XFER" -c $PEER -p $port -m "$SMC_FLAP_MB" -t $tmo >"$f" 2>&1 &
	cpid=$!
	# connected, and the transfer under way over the device (256 packets: 1 MiB or more)
	for ((i = 0; i < 150; i++)); do
		kill -0 $cpid 2>/dev/null || break
		if grep -q 'client: connected' "$f"; then
			grep -q "client: connected.*mode SMCR" "$f" || { sleep 1; break; }
			(($(counter "$dev" sent_pkts 0) - n0 >= 256)) && break
		fi
		rpc_nap 0.2
	done
	if ! kill -0 $cpid 2>/dev/null; then
		wait $cpid
		record smc_reconnect "$ph" FAIL "the transfer ended before the flap (ULPS_SMC_FLAP_MB=$SMC_FLAP_MB): $(tr '\n' ' ' <"$f")"
		rpc_wait_file "$DIR/rc.$r" 30
		return
	fi
	rpc_remote run "$SELF --flap $FLAP --target flap"
	rf=$rn t0=$EPOCHREALTIME
	# the client ends by itself: done, a connection error, or its own timeout (-t)
	for ((i = 0; i < (tmo + 15) * 5; i++)); do
		kill -0 $cpid 2>/dev/null || break
		rpc_nap 0.2
	done
	tend=$EPOCHREALTIME
	if kill -0 $cpid 2>/dev/null; then
		kill -9 $cpid; st=124
		bad+=" client still running $((tmo + 15)) s after the flap began (killed);"
	else
		wait $cpid; st=$?
	fi
	if rpc_wait_file "$DIR/rc.$r" $((tmo + 20)); then sst=$(cat "$DIR/rc.$r"); else bad+=" host 2's server did not end;"; fi
	if ! rpc_wait_file "$DIR/rc.$rf" $((FLAP + 60)) || [[ $(cat "$DIR/rc.$rf") != 0 ]]; then
		bad+=" host 2's link flap failed: $(tr '\n' ' ' <"$DIR/out.$rf" 2>/dev/null);"
	fi
	cl=$(grep 'smc-xfer client: [oF]' "$f" | tail -1)
	sl=$(grep 'smc-xfer server: [oF]' "$DIR/out.$r" 2>/dev/null | tail -1)
	hl=$(grep -m1 'server: accepted' "$DIR/out.$r" 2>/dev/null)
	# what the flap hit must have been SMC-R over the devices on both ends
	[[ $(grep -m1 'client: connected' "$f") == *"mode SMCR dev $dev port 1"* ]] ||
		{ smcr=0; bad+=" in-flight connection not SMC-R over $dev: client ${cl##*; };"; }
	[[ $hl == *"mode SMCR dev $peerdev port 1"* ]] ||
		{ smcr=0; bad+=" in-flight connection not SMC-R over $peerdev on host 2: ${hl:-no server line};"; }
	t0=$(awk -v a="$t0" -v b="$tend" 'BEGIN { printf "%.1f", b - a }')
	if [[ $st == 0 && $sst == 0 ]]; then
		head="completed ${t0} s after the flap began"
		fig="; in-flight: $SMC_FLAP_MB MiB verified by the server"
	elif [[ $st == 3 && $sst == 3 ]]; then
		head="cut ${t0} s after the flap began"
		fig="; in-flight: client error $(smc_err "$cl"), server error $(smc_err "$sl")"
	else
		[[ $sst == 1 && $sl == *"wrong byte"* ]] && bad+=" WRONG DATA accepted by the server;"
		[[ $st == 4 || $sst == 4 ]] && bad+=" in-flight connection hung (smc-xfer timeout);"
		bad+=" in-flight connection: client status $st ($cl), server status ${sst:-none} ($sl);"
	fi
	# a new connection, once host 2's device is back
	local t1 ok=0 tries=0 last=""
	if ! target dev_wait "$peerdev 10.0.3.2" 70; then
		bad+=" host 2's $peerdev not active with its GID after the flap;"
	else
		tup=$EPOCHREALTIME t1=$SECONDS
		while :; do
			tries=$((tries + 1))
			smc_attempt "$dev" "$peerdev" $((SMC_PORT + 1 + tries)) && { ok=1; break; }
			last="attempt $tries: $why"
			# (no SMC-R in flight either: a TCP fallback, no use retrying)
			((smcr && SECONDS - t1 < SMC_WAIT)) || break
			sleep 2
		done
		tup=$(awk -v a="$tup" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
		if ((ok)); then
			head+=", SMC-R again ${tup} s after link up"
			fig+="; new connection (attempt $tries): $why"
		else
			bad+=" no SMC-R connection within ${tup} s after the link was up ($tries attempts), $last;"
		fi
	fi
	# no oops or warning on either host
	out=$(klog_check "$k1") || bad+=" host 1 kernel log: $(echo "$out" | head -3 | tr '\n' ' ');"
	target klog_check "$k2" 30 || bad+=" host 2 kernel log: $(head -3 "$DIR/out.$rn" 2>/dev/null | tr '\n' ' ');"
	if [[ -z $bad ]]; then
		record smc_reconnect "$ph" ok "$head$fig; eth1 of host 2 down ${FLAP} s during $SMC_FLAP_MB MiB; no kernel warning on either host"
	else
		record smc_reconnect "$ph" FAIL "${bad# }${head:+ ($head$fig)}"
	fi
}

phase() { # PHASE DEV PEERDEV
	local u
	for u in $ALL_ULPS; do has_ulp "$u" && "case_$u" "$@"; done
}

cleanup() {
	nfs_mounted && { bounded 30 umount -f $MNT || umount -l $MNT; }
	[[ -n $(nvme_ctrl 2>/dev/null) ]] && nvme_disc >/dev/null 2>&1
	bounded 30 iscsiadm -m node --logoutall=all >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	srp_delete 2>/dev/null
	daemons_down iscsid
	rxe_down
	rpc_remote stop ""
	rm -rf "$W"
}
trap cleanup EXIT

t00=$SECONDS
head -c $((MB << 20)) /dev/urandom >"$W/a"
head -c $((MB << 20)) /dev/urandom >"$W/b"
why=""
sib1_up 10.0.3.1 || why+=" no active sib1 with 10.0.3.1's GID;"
rpc_wait_file "$DIR/ready.0" 300 || why+=" host 2 did not get ready;"
grep -qs '^softib' "$DIR/ready.0" || why+=" host 2: $(cat "$DIR/ready.0" 2>/dev/null);"
ping -c 1 -W 10 $PEER >/dev/null || why+=" no ping reply from $PEER;"
if [[ -z $why ]]; then result setup ok "sib1 on eth1 of both hosts, $PEER reached"
else result setup FAIL "${why# }"; exit 1; fi

t0=$SECONDS
phase softib sib1 sib1
echo "ulps.sh: softib phase done in $((SECONDS - t0)) s"

t0=$SECONDS
if ((!RXE)); then
	echo "ulps.sh: $nok passed, $nfail failed in $((SECONDS - t00)) s"
	tl_status; exit
fi
target to_rxe 10.0.3.2 120
r2=$? out2=${tout:-}
to_rxe 10.0.3.1 >"$W/rxe.out" 2>&1
r1=$?
if ((r1 == 0 && r2 == 0)); then
	result rxe_phase ok "both hosts: softib unloaded, rxe1 on eth1"
	phase rxe rxe1 rxe1
	echo "ulps.sh: rxe phase done in $((SECONDS - t0)) s"
else
	result rxe_phase FAIL "host 1: $(tr '\n' ' ' <"$W/rxe.out") ${out2}"
fi
echo "ulps.sh: $nok passed, $nfail failed in $((SECONDS - t00)) s"
tl_status
