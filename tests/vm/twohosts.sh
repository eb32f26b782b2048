#!/bin/bash
# twohosts.sh: softib on one host against rdma_rxe and against softib on another host.
# Runs in the two guests of tools/vm-pair: "--role 1" (host 1, softib, drives the matrix)
# and "--role 2" (host 2: softib first, then rdma_rxe), which talk over eth1 and take
# orders through files in a directory both see (the shared work dir).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/twohosts.sh --role 1|2 --dir DIR [--results FILE] [--iters N] [--ko FILE]
       tests/vm/twohosts.sh --list

Host 1 (--role 1) creates sib1 on eth1 (10.0.3.1, fd03::1) and runs the matrix against host
2 (10.0.3.2, fd03::2): first with softib there (sib1 on its eth1), then, after host 2 has
unloaded softib and loaded rdma_rxe, with rxe1 on its eth1.  One line per cell:
  CELL <pair> <client>><server> <ipv4|ipv6> <program> PASS|FAIL [detail]
Programs: ibv_rc_pingpong --chk (8 KiB, N/4 iterations), ibv_ud_pingpong (1 KiB, N/4),
ib_write_bw, ib_read_bw (16 KiB, N iterations; N = --iters, default 100).  softib-rxe:
rc_pingpong both ways over IPv4 and one way over IPv6, ib_write_bw with softib writing,
ib_read_bw with rdma_rxe reading from softib, ud_pingpong, rc_pingpong_lossy (rc_pingpong
--chk both ways under netem on both hosts' eth1: loss 2% of all but ACKs, duplication 1% and
reordering);
softib-softib: rc_pingpong,
ib_write_bw, ud_pingpong over IPv4, rc_pingpong over IPv6, rc_pingpong_4k (-m 4096 -s 16384
--chk over eth1's MTU 1500: IP-fragmented, the 4 KiB buffers from softib's page pools), raw_frames (N frames of 60..1514
bytes from a raw packet QP on host 1 to one on host 2 that a flow rule on its address
steers them to, tests/raw/sib-raw-pair; every frame checked) (client>server: "sib" is host 1,
"peer" host 2).  Each ib_write_bw from sib1 also checks how its packets were built: over
an eth1 without scatter-gather (QEMU's dgram wire) in one buffer, but for the few its QP
built before its first packet left, which are copied into one (zero_copy_pkts and
send_linearized grow alike, by at most 64); over an eth1 with it, as page fragments.
Also "CHECK wire_reset PASS|FAIL" (last: the guest's eth1 watchdog of
tools/vm-guest-init, asked through /run/vm-wire-reset, resets host 1's eth1, which comes back
with sib1 and reaches host 2), "CHECK link PASS|FAIL" (eth1
reaches the other host) and "CHECK rxe_phase PASS|FAIL" (host 2 switched to rdma_rxe).
Every result is also appended to FILE as "RESULT twohosts_<name> ok|FAIL <detail>".
Host 2 (--role 2) only executes what host 1 asks for until host 1 says stop.  DIR must be
empty and visible to both guests.  --ko: softib.ko for host 2 to load again (default
./softib.ko).  --list prints the result names.  Exit status 0 iff all passed.
USAGE
}
ROLE="" DIR="" RESULTS=/dev/null ITERS=100 LIST=0 KO=$PWD/softib.ko
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--role) ROLE=${2:?}; shift 2 ;;
	--dir) DIR=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--iters) ITERS=${2:?}; shift 2 ;;
	--ko) KO=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "twohosts.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../../tools
PORT=18515
TMO=${PROGRAM_TIMEOUT:-120}

cells() { # "pair client>server fam program"
	local p
	for p in rc_pingpong ib_write_bw ud_pingpong; do echo "softib-softib sib>peer ipv4 $p"; done
	echo "softib-softib sib>peer ipv6 rc_pingpong"
	# a path MTU above the netdev's (-m 4096 at MTU 1500): IP-fragmented, in pool pages
	echo "softib-softib sib>peer ipv4 rc_pingpong_4k"
	# raw Ethernet frames between the two hosts' raw packet QPs (tests/raw/sib-raw-pair)
	echo "softib-softib sib>peer eth raw_frames"
	echo "softib-rxe sib>peer ipv4 rc_pingpong"
	echo "softib-rxe peer>sib ipv4 rc_pingpong"
	echo "softib-rxe sib>peer ipv4 ib_write_bw"
	echo "softib-rxe peer>sib ipv4 ib_read_bw"
	echo "softib-rxe sib>peer ipv4 ud_pingpong"
	echo "softib-rxe peer>sib ipv6 rc_pingpong"
	# the same under netem on both hosts' eth1: loss 2% of all but ACKs, duplication, reordering
	echo "softib-rxe sib>peer ipv4 rc_pingpong_lossy"
	echo "softib-rxe peer>sib ipv4 rc_pingpong_lossy"
}
OTHER="wire_reset link rxe_phase"
# the results only go to FILE (stdout has the CELL and CHECK lines)
TL_PREFIX=twohosts_ TL_QUIET=1
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
# shellcheck disable=SC2086 # (OTHER: a list of words)
mapfile -t names < <(cells | while read -r pair d fam p; do echo "$pair/$d/$fam/$p"; done; printf '%s\n' $OTHER)
cases "${names[@]}"
[[ $ROLE == 1 || $ROLE == 2 ]] || { usage >&2; exit 2; }
[[ -d $DIR ]] || { echo "twohosts.sh: --dir $DIR: no such directory" >&2; exit 2; }

gid_of() { gid_index "$1" "$2" 50 0.2; } # DEV ADDR: GID index, waiting for the GID cache
# the orders between the guests (put, wait_file, the executor loop: tools/lib/pair-rpc.sh)
RPC_DIR=$DIR RPC_ROLE=$ROLE
# shellcheck source=../../tools/lib/pair-rpc.sh
. "$TOOLS/lib/pair-rpc.sh"
put() { rpc_put "$@"; }
wait_file() { rpc_wait_file "$@"; }
listening() { rpc_listening tcp $PORT; }

# ---------------------------------------------------------------- host 2: the executor
# host 1's requests (tools/lib/pair-rpc.sh): servers listen on TCP $PORT
if [[ $ROLE == 2 ]]; then
	rdma link add sib1 type softib netdev eth1 && wait_active sib1 &&
		gid_of sib1 10.0.3.2 >/dev/null || { put "$DIR/ready.0" "setup failed"; exit 3; }
	put "$DIR/ready.0" "softib sib1"
	rpc_serve || exit 3
	# leave no rdma_rxe behind for vm-run's unload (it expects softib or nothing)
	for d in rxe1 sib1; do [[ -e /sys/class/infiniband/$d ]] && rdma link delete $d; done
	[[ -d /sys/module/rdma_rxe ]] && modprobe -r rdma_rxe
	exit 0
fi

# ---------------------------------------------------------------- host 1: the matrix
OUT=$(mktemp -d /tmp/twohosts.XXXXXX)
check() { echo "CHECK $1 $([[ $2 == ok ]] && echo PASS || echo FAIL) ${3:-}"; result "$1" "$2" "${3:-}"; }
remote() { # KIND COMMAND: send a request to host 2, sets rn to its number
	rpc_remote "$@"
}
stop_peer() { remote stop ""; }
trap stop_peer EXIT

rdma link add sib1 type softib netdev eth1 && wait_active sib1 || { echo "sib1 on eth1 failed" >&2; exit 3; }
wait_file "$DIR/ready.0" 300 || { check link FAIL "host 2 did not get ready"; exit 1; }
peerdev=sib1
why=""
# a refused TCP connection is a round trip over eth1
r=$(timeout 10 bash -c 'exec 3<>/dev/tcp/10.0.3.2/9' 2>&1)
[[ $r == *"Connection refused"* ]] || why+=" IPv4 10.0.3.2: ${r:-no answer};"
r=$(timeout 10 bash -c 'exec 3<>/dev/tcp/fd03::2/9' 2>&1)
[[ $r == *"Connection refused"* ]] || why+=" IPv6 fd03::2: ${r:-no answer};"
grep -q softib "$DIR/ready.0" || why+=" host 2: $(cat "$DIR/ready.0");"
if [[ -z $why ]]; then check link ok "eth1 reaches host 2 over IPv4 and IPv6; host 2 has $(cat "$DIR/ready.0")"
else why=${why# }; check link FAIL "${why%;}"; fi

# run_cell CLIENT>SERVER FAM NAME PROGRAM ARGS...: one run, the server on its host first;
# sets src crc sout cout
run_cell() {
	local d=$1 fam=$2 name=$3; shift 3
	local gopt=-g lg saddr laddr raddr lpid
	[[ $1 == ib_* ]] && gopt=-x
	if [[ $fam == ipv4 ]]; then laddr=10.0.3.1 raddr=10.0.3.2; else laddr=fd03::1 raddr=fd03::2; fi
	lg=$(gid_of sib1 $laddr) || lg=none
	# the peer finds its own GID index when it runs the command
	local rcmd="timeout -s KILL $TMO $* -d $peerdev $gopt \$($TOOLS/roce-gid-index --addr $raddr $peerdev)"
	src=99 crc=99
	if [[ $d == "sib>peer" ]]; then
		cout=$OUT/$name.local sout=$OUT/$name.remote
		remote "server:tcp:$PORT" "$rcmd"
		wait_file "$DIR/ready.$rn" $TMO || { echo "(host 2: server not ready)" >"$cout"; return; }
		crc=0; timeout -s KILL "$TMO" "$@" -d sib1 $gopt "$lg" 10.0.3.2 >"$cout" 2>&1 || crc=$?
		wait_file "$DIR/rc.$rn" $TMO && src=$(cat "$DIR/rc.$rn")
		cp "$DIR/out.$rn" "$sout" 2>/dev/null
	else
		sout=$OUT/$name.local cout=$OUT/$name.remote
		timeout -s KILL "$TMO" "$@" -d sib1 $gopt "$lg" >"$sout" 2>&1 &
		lpid=$!
		for _ in $(seq 300); do listening && break; kill -0 $lpid 2>/dev/null || break; sleep 0.1; done
		remote run "$rcmd 10.0.3.1"
		wait_file "$DIR/rc.$rn" $TMO && crc=$(cat "$DIR/rc.$rn")
		cp "$DIR/out.$rn" "$cout" 2>/dev/null
		src=0; wait $lpid || src=$?
	fi
}
# run_raw: host 2's receiver (a rule on its eth1 address) first, then host 1 sends ITERS raw
# frames to it; sets why (empty when ok), detail, src crc sout cout
run_raw() {
	local mac=""
	why="" detail="" src=99 crc=99 sout=$OUT/raw_frames.remote cout=$OUT/raw_frames.local
	: >"$sout"
	remote run "cat /sys/class/net/eth1/address"
	wait_file "$DIR/rc.$rn" 30 && mac=$(head -1 "$DIR/out.$rn" 2>/dev/null)
	[[ $mac =~ ^([0-9a-f]{2}:){5}[0-9a-f]{2}$ ]] || { why="host 2's eth1 address: ${mac:-none};"; return; }
	remote "server:tcp:$PORT" "timeout -s KILL $TMO $HERE/../raw/sib-raw-pair --recv --dev $peerdev --count $ITERS --port $PORT"
	wait_file "$DIR/ready.$rn" $TMO || { why="host 2: the receiver did not get ready;"; return; }
	crc=0; timeout -s KILL "$TMO" "$HERE/../raw/sib-raw-pair" --send --dev sib1 --dst "$mac" \
		--count "$ITERS" >"$cout" 2>&1 || crc=$?
	wait_file "$DIR/rc.$rn" $TMO && src=$(cat "$DIR/rc.$rn")
	cp "$DIR/out.$rn" "$sout" 2>/dev/null
	((crc == 0)) || why+=" sender exit $crc: $(tail -1 "$cout");"
	((src == 0)) || why+=" receiver exit $src: $(tail -1 "$sout");"
	detail=$(tail -1 "$sout")
}
judge() { # PROG ITERS BYTES: sets why (empty when ok) and detail
	local prog=$1 it=$2 bytes=$3 f line b i bw
	why="" detail=""
	((src == 0)) || why+=" server exit $src;"
	((crc == 0)) || why+=" client exit $crc;"
	if [[ $prog == *pingpong* ]]; then
		for f in "$sout" "$cout"; do
			grep -q "^$bytes bytes in " "$f" || why+=" $(basename "$f") did not report $bytes bytes;"
			grep -q "^$it iters in " "$f" || why+=" $(basename "$f") did not report $it iters;"
		done
		detail=$(grep -m1 ' bytes in ' "$cout" 2>/dev/null | sed 's/.*= //')
	else
		line=$(awk '/#bytes/ { getline; print; exit }' "$cout" 2>/dev/null)
		read -r b i bw _ <<<"$line" || true
		[[ ${b:-} == "$bytes" ]] || why+=" client printed no $bytes-byte result;"
		[[ ${i:-} == "$it" ]] || why+=" client reports ${i:-no} iterations, not $it;"
		[[ ${bw:-} =~ ^[0-9.]+$ ]] && awk -v v="$bw" 'BEGIN { exit !(v > 0) }' || why+=" no positive bandwidth;"
		detail="${bw:-?} Gb/s"
	fi
}
# Loss spares ACK packets (BTH opcode 0x11, also the NAKs): ibv_rc_pingpong ends each side
# as soon as its own last SEND is acknowledged and its last receive is in, and destroys the
# QP, so the ACK of either side's final SEND, if lost, can never be recovered (the peer QP
# that would answer the retransmission is gone): a standard requester then ends with "retry
# counter exceeded", and rdma_rxe's, which takes retry_cnt 7 as "retry forever", hangs until
# the timeout kills it.  Data packets are lost, duplicated, delayed and reordered on both
# hosts' eth1, ACKs go out at once (so they also overtake data); lost ACKs between softib and
# rdma_rxe are the interop stage's field_lossy_atomics_sib1_rxe0 (sib-load keeps both QPs
# until all is complete).
NETEM_ALL=${NETEM_ALL:-"duplicate 1% delay 1ms reorder 10% 50%"}
NETEM_LOSS=${NETEM_LOSS:-"loss 2%"}
netem() { # on|off: netem on eth1 of both hosts; on: sets netem_why when it is not there
	local c="tc qdisc del dev eth1 root"
	# band 3 (all but RoCE ACKs, by the priomap) goes through netem, band 2 (ACKs, by the u32
	# filter: IPv4 without options, protocol UDP, port 4791, BTH opcode 0x11) straight out
	# (the kernel allows no second netem in a tree with a duplicating one), so ACKs also
	# overtake delayed data
	[[ $1 == on ]] && c="modprobe -a sch_netem sch_prio cls_u32; $c 2>/dev/null
		tc qdisc add dev eth1 root handle 1: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 &&
		tc qdisc add dev eth1 parent 1:3 handle 30: netem $NETEM_LOSS $NETEM_ALL &&
		tc filter add dev eth1 parent 1: protocol ip prio 1 u32 match u8 5 0x0f at 0 \\
			match u8 17 0xff at 9 match u16 4791 0xffff at 22 match u8 0x11 0xff at 28 flowid 1:2"
	bash -c "$c" 2>/dev/null
	remote run "$c; tc qdisc show dev eth1; tc filter show dev eth1"
	wait_file "$DIR/rc.$rn" 60
	[[ $1 == on ]] || return 0
	netem_why=""
	netem_shown "$(tc qdisc show dev eth1; tc filter show dev eth1)" || netem_why+=" no netem (ACKs spared) on host 1's eth1;"
	netem_shown "$(cat "$DIR/out.$rn" 2>/dev/null)" || netem_why+=" no netem (ACKs spared) on host 2's eth1;"
}
netem_shown() { # TEXT: tc's qdisc and filter listing shows the lossy band and the ACK filter
	[[ $1 =~ "netem 30: parent 1:3 "[^$'\n']*"loss" && $1 =~ "flowid 1:2" ]]
}
# the sum of sib1's recovery counters (retransmits, sequence NAKs, duplicates, ...)
recovery() {
	local c s=0
	for c in retransmits seq_nak_sent seq_nak_rcvd duplicate_request rcvd_out_of_seq loss_probes; do
		s=$((s + $(counter sib1 "$c" 0)))
	done
	echo $s
}
# eth1 takes page fragments (scatter-gather) iff virtio-net negotiated VIRTIO_NET_F_CSUM
# (feature bit 0); QEMU's dgram backend has no vnet header, so it does not
eth1_sg() { [[ $(cut -c1 /sys/class/net/eth1/device/features 2>/dev/null) == 1 ]]; }
# ib_write_bw from sib1 (one QP): over a netdev without scatter-gather only the packets the
# QP built before its first one left have fragments, and each of those is copied into one
# buffer before it goes (zero_copy_pkts and send_linearized grow alike, by a few); the rest
# are built in one buffer. Over a netdev with scatter-gather, as fragments.
zcopy_check() { # ZERO_COPY_PKTS_BEFORE SEND_LINEARIZED_BEFORE
	local z=$(($(counter sib1 zero_copy_pkts 0) - $1)) l=$(($(counter sib1 send_linearized 0) - $2))
	if ! eth1_sg; then
		((z == l && l <= 64)) || why+=" eth1 has no scatter-gather, yet sib1 built $z packets with fragments and copied $l before sending (want equal, at most 64);"
		detail+=", built in one buffer but the first $l (eth1: no scatter-gather)"
	else
		((z > 0)) || why+=" eth1 has scatter-gather, yet sib1 sent no packet as fragments;"
		detail+=", $z packets as fragments"
	fi
}
# ibv_rc_pingpong -m 4096 over eth1's MTU 1500: sib1's 4 KiB packets (full buffers of more
# than half a page) come from its page pools (kernel/net.c; without scatter-gather on eth1
# they are built in one buffer) and IP fragments them; --chk checked the data
pool_check() { # TX_POOL_PKTS_BEFORE SEND_IP_FRAGMENTED_BEFORE
	local p=$(($(counter sib1 tx_pool_pkts 0) - $1)) f=$(($(counter sib1 send_ip_fragmented 0) - $2))
	((f > 0)) || why+=" sib1 sent 4 KiB packets over MTU 1500 without IP fragmenting any;"
	if ! eth1_sg; then
		((p > 0)) || why+=" sib1 built its 4 KiB packets in one buffer, yet none in a pool page (tx_pool_pkts +0);"
	fi
	detail+=", $f packets IP-fragmented, $p buffers from the page pools"
}
cell() { # PAIR CLIENT>SERVER FAM PROG
	local pair=$1 d=$2 fam=$3 prog=$4 n=$((ITERS / 4)) bytes name t=$SECONDS try rec0=0 z0 l0 p0 f0
	name="$pair/$d/$fam/$prog"
	for try in 1 2 3; do
		case $prog in
		rc_pingpong) bytes=$((8192 * n * 2))
			run_cell "$d" "$fam" $prog ibv_rc_pingpong -s 8192 -n "$n" --chk ;;
		rc_pingpong_lossy) bytes=$((8192 * n * 2)) rec0=$(recovery)
			netem on
			run_cell "$d" "$fam" $prog ibv_rc_pingpong -s 8192 -n "$n" --chk
			netem off ;;
		rc_pingpong_4k) bytes=$((16384 * n * 2))
			p0=$(counter sib1 tx_pool_pkts 0) f0=$(counter sib1 send_ip_fragmented 0)
			run_cell "$d" "$fam" $prog ibv_rc_pingpong -m 4096 -s 16384 -n "$n" --chk ;;
		ud_pingpong) bytes=$((1024 * n * 2))
			run_cell "$d" "$fam" $prog ibv_ud_pingpong -s 1024 -n "$n" ;;
		raw_frames) run_raw; break ;;
		*) bytes=16384 z0=$(counter sib1 zero_copy_pkts 0) l0=$(counter sib1 send_linearized 0)
			run_cell "$d" "$fam" $prog "$prog" -s $bytes -n "$ITERS" -F --report_gbits ;;
		esac
		judge "$prog" "$([[ $prog == *pingpong* ]] && echo $n || echo "$ITERS")" "$bytes"
		[[ $prog == ib_write_bw && $d == "sib>peer" ]] && zcopy_check "$z0" "$l0"
		[[ $prog == rc_pingpong_4k ]] && pool_check "$p0" "$f0"
		if [[ $prog == *_lossy ]]; then
			why+=$netem_why
			rec0=$(($(recovery) - rec0))
			((rec0 > 0)) || why+=" sib1's recovery counters did not move (netem without effect?);"
			detail+=", sib1 recovery counters +$rec0"
		fi
		# perftest's clock can spoil a complete run's figure on a loaded TCG guest; only that
		# is retried (perftest_clock_lost)
		[[ -n $why && $src == 0 && $crc == 0 ]] && ((try < 3)) &&
			{ perftest_clock_lost "$cout" "$ITERS" || perftest_clock_lost "$sout" "$ITERS"; } || break
		echo "== $prog: perftest's clock spoiled a complete run (${why# }), running it again"
	done
	if [[ -z $why ]]; then
		echo "CELL $pair $d $fam $prog PASS $detail ($((SECONDS - t)) s)"
		result "$name" ok "$detail"
	else
		why=${why# }
		echo "CELL $pair $d $fam $prog FAIL ${why%;} ($((SECONDS - t)) s)"
		result "$name" FAIL "${why%;}"
		echo "---- server:"; tail -20 "$sout" | sed 's/^/   /'
		echo "---- client:"; tail -20 "$cout" | sed 's/^/   /'
	fi
}

t0=$SECONDS
phase=softib-softib
while read -r pair d fam prog; do
	if [[ $pair != "$phase" ]]; then
		# host 2 gives up softib for rdma_rxe (both want UDP port 4791)
		remote run "rdma link delete sib1; rdma link delete sib0; rmmod softib &&
			modprobe rdma_rxe && rdma link add rxe1 type rxe netdev eth1 &&
			for i in \$(seq 100); do grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state && break; sleep 0.1; done &&
			$TOOLS/roce-gid-index --addr 10.0.3.2 rxe1 && $TOOLS/roce-gid-index --addr fd03::2 rxe1"
		if wait_file "$DIR/rc.$rn" 120 && [[ $(cat "$DIR/rc.$rn") == 0 ]]; then
			check rxe_phase ok "host 2: softib unloaded, rxe1 on eth1"
		else
			check rxe_phase FAIL "host 2: $(tr '\n' ' ' <"$DIR/out.$rn" 2>/dev/null)"
		fi
		phase=$pair peerdev=rxe1
	fi
	cell "$pair" "$d" "$fam" "$prog"
done < <(cells)
echo "twohosts.sh: matrix done in $((SECONDS - t0)) s"
# the wire watchdog of tools/vm-guest-init (a device reset of eth1 when QEMU stalls its TX
# queue), asked for once, last (a reset is no small thing for the wire: in one run eth1's TX
# queue stalled for real 15 s after the asked-for reset): eth1 must come back with its
# addresses and sib1, and reach host 2
up_again() { dmesg | grep -c 'vm-guest-init: eth1 .*up again'; }
reach2() { local r; r=$(timeout 5 bash -c 'exec 3<>/dev/tcp/10.0.3.2/9' 2>&1); [[ $r == *"Connection refused"* ]]; }
k0=$(up_again) why="no device reset logged within 30 s"
touch /run/vm-wire-reset
for ((i = 0; i < 150; i++)); do
	(($(up_again) > k0)) && { why=""; break; }
	rpc_nap 0.2
done
if [[ -z $why ]]; then
	for ((i = 0; i < 50; i++)); do reach2 && break; rpc_nap 0.2; done
	reach2 || why="10.0.3.2 not reached after the reset"
	wait_active sib1 || why+="${why:+; }sib1 not added again and active after the reset"
fi
if [[ -z $why ]]; then check wire_reset ok "eth1 reset and up again ($(dmesg | grep 'vm-guest-init: eth1 .*up again' | tail -1 | sed 's/.*vm-guest-init: //')), 10.0.3.2 reached, sib1 active"
else check wire_reset FAIL "$why"; fi
rm -rf "$OUT"
echo "twohosts: $nok passed, $nfail failed"
tl_status
