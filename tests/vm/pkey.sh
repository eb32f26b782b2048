#!/bin/bash
# pkey.sh: P_Key partitions and Q_Key protection between two softib devices in two network
# namespaces joined by a veth pair (sibA on vA in pkA, sibB on vB in pkB), and between softib
# and rdma_rxe.  Meant to run inside a tools/vm-run guest (needs root and softib loaded; the
# rxe part deletes sib0 to free UDP port 4791 in the initial netns).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/pkey.sh [--results FILE] [--no-rxe] [--list]

Prints "RESULT pkey_<case> ok|FAIL <detail>" per case (also appended to FILE) and a last
line "pkey: N/M ok"; exit status 0 iff all ok.  --no-rxe skips the rdma_rxe part.  --list
prints the names of the cases (pkey_<case>) and exits.
USAGE
}
RESULTS=/dev/null RXE=1 LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--no-rxe) RXE=0; shift ;;
	--list) LIST=1; shift ;;
	*) echo "pkey.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
T=$REPO/tools/sib-pkey/sib-pkey
P=$REPO/tests/pkey/pkey-traffic
# the results on stdout carry the seconds since the start
TL_PREFIX=pkey_ TL_STAMP=1
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
# the traffic cases (traffic below): all messages arrive / none does; the rdma_rxe ones
TRAFFIC_ALL=(rc_full_full ud_full_full rc_full_limited ud_full_limited rc_default)
TRAFFIC_NONE=(rc_limited_limited ud_limited_limited rc_other_partition ud_other_partition
	      rc_other_qp_partition ud_other_qp_partition)
RXE_CASES=(rxe_rc_sib_to_rxe rxe_rc_rxe_to_sib rxe_ud_sib_to_rxe rxe_ud_rxe_to_sib)
((RXE)) || RXE_CASES=()
# every check below, in order
cases table_default table_set table_errors max_pkeys modify_invalid_index \
	"${TRAFFIC_ALL[@]}" "${TRAFFIC_NONE[@]}" ud_qkey_mismatch ud_qkey_wr_high_bit ud_qkey_privileged \
	ud_qkey_privileged_nocap change_keeps_qps change_event default_removed default_partition_closed \
	qp_entry_removed qp_entry_changed qp_entry_changed_in rdma_statistic "${RXE_CASES[@]}"
for f in "$T" "$P"; do [[ -x $f ]] || { echo "pkey.sh: $f not built (make pkey)" >&2; exit 2; }; done
check() { # name detail condition (evaluated)
	if eval "$3"; then result "$1" ok "$2"; else result "$1" FAIL "$2"; fi
}
wait_gid() { # DEV: the RoCE GID cache fills asynchronously
	gid_index "$1" "" 50 0.2 >/dev/null || { echo "pkey.sh: no RoCE v2 IPv4 GID on $1" >&2; return 1; }
}
OUT=$(mktemp -d /tmp/pkey.XXXXXX)
BOUT=$OUT/batch.out
# F[CASE.KEY]: the fields of pkey-traffic's "CASE CASE exit=.. sent=.. A.rcvd_pkts=.." lines,
# L[CASE]: the first five of them (in bash: a fork costs much in a TCG guest)
declare -A F L
# ib_core resolves a RoCE AH's MAC (create_ah, RTR) within a 1 s timeout: the neighbours of
# NEIGH ("NETNS IP" pairs, NETNS - for the initial one) are resolved before a batch runs, by a
# TCP connection attempt to a closed port (ARP, then a reset; there is no ping here). Every
# case failed at RTR/create_ah with EINVAL twice on the debug kernel, never on a rerun.
NEIGH=()
resolve_neighbours() {
	local nsd ns ip ex
	for nsd in "${NEIGH[@]}"; do
		read -r ns ip <<<"$nsd"
		ex=(); [[ $ns == - ]] || ex=(ip netns exec "$ns")
		"${ex[@]}" timeout 10 bash -c "exec 3<>/dev/tcp/$ip/9" 2>/dev/null
		"${ex[@]}" ip neigh show "$ip" | grep -q lladdr ||
			echo "pkey.sh: $ip not resolved in $ns (the cases will show it)"
	done
}
batch() { # FILE: run the cases of FILE in one process, output to $BOUT
	local line name kv
	resolve_neighbours
	"$P" --batch "$1" >"$BOUT" 2>&1
	while IFS= read -r line; do
		echo "  | $line"
		[[ $line == "CASE "* ]] || continue
		set -- $line
		name=$2; shift 2
		L[$name]="${*:1:5}"
		for kv in "$@"; do F[$name.${kv%%=*}]=${kv#*=}; done
	done <"$BOUT"
	# a set-up that failed at address resolution (see NEIGH above): the GID tables, routes
	# and neighbours, for the log
	if grep -q 'setup=\(modify_qp_rtr\|create_ah\)' "$BOUT"; then
		echo "  | address state after a set-up failure:"
		gid_dump | sed 's/^/  |   /'
	fi
	# none got past address resolution: once more, said in the log (each case's checks
	# then judge the second run; a second such failure fails them)
	if ((!${BATCH_RETRY:-0})) &&
	   grep -q '^CASE .*setup=\(modify_qp_rtr\|create_ah\) errno=EINVAL' "$BOUT" &&
	   ! grep '^CASE ' "$BOUT" |
		grep -vq 'setup=\(modify_qp_rtr\|create_ah\|modify_qp_init\) errno=EINVAL'; then
		echo "  | RETRY: no case got past address resolution (EINVAL at RTR/create_ah); running the batch once more"
		sleep 2
		BATCH_RETRY=1 batch "$1"
	fi
}
gid_dump() {
	local d f i ns
	for d in /sys/class/infiniband/sib[AB]; do
		[[ -d $d ]] || continue
		for f in "$d"/ports/1/gids/*; do
			i=${f##*/}
			[[ $(cat "$f" 2>/dev/null) == 0000:0000:0000:0000:0000:0000:0000:0000 ]] && continue
			echo "${d##*/} gid $i $(cat "$f" 2>/dev/null) $(cat "$d/ports/1/gid_attrs/types/$i" 2>/dev/null) $(cat "$d/ports/1/gid_attrs/ndevs/$i" 2>/dev/null)"
		done
	done
	for ns in pkA pkB; do
		echo "$ns: $(ip -n $ns -br addr | paste -sd';') | route $(ip -n $ns route | paste -sd';') | neigh $(ip -n $ns neigh | paste -sd';')"
	done
}

# ------------------------------------------------------------------ setup
netns_pair pkA pkB vA vB 192.168.77.1 192.168.77.2 || exit 2
ip netns exec pkA rdma link add sibA type softib netdev vA || exit 2
ip netns exec pkB rdma link add sibB type softib netdev vB || exit 2
wait_gid sibA && wait_gid sibB || exit 2
NEIGH=("pkA 192.168.77.2" "pkB 192.168.77.1")

# ------------------------------------------------------------------ the table
out=$("$T" show sibA 2>&1); echo "$out"
check table_default "sib-pkey show: 64 entries, 1 valid: index 0 = 0xffff full; sysfs pkeys/0 and 64 pkeys files" \
	'grep -q "^sibA port 1: 64 entries, 1 valid$" <<<"$out" &&
	 grep -q "^sibA port 1 index 0 pkey 0xffff full$" <<<"$out" &&
	 [[ $(cat /sys/class/infiniband/sibA/ports/1/pkeys/0) == 0xffff &&
	    $(ls /sys/class/infiniband/sibA/ports/1/pkeys | wc -l) == 64 ]]'
ok=1
for s in "sibA 1 0x8001" "sibA 2 0x8002" "sibA 3 0x0003" "sibA 5 0x8005" \
	 "sibB 1 0x8001" "sibB 2 0x0002" "sibB 3 0x0003" "sibB 4 0x8004"; do
	"$T" set $s || ok=0
done
outB=$("$T" show sibB 2>&1); echo "$outB"
check table_set "4 entries set per device; sib-pkey show and sysfs show them" \
	'((ok)) && [[ $(cat /sys/class/infiniband/sibB/ports/1/pkeys/2) == 0x0002 ]] &&
	 grep -q "^sibB port 1: 64 entries, 5 valid$" <<<"$outB" &&
	 grep -q "^sibB port 1 index 2 pkey 0x0002 limited$" <<<"$outB"'
bad=""
"$T" set sibA 64 0x8010 2>/dev/null && bad+=" index-64"
"$T" set sibA 9 0x8000 2>/dev/null && bad+=" 0x8000"
"$T" set sibA 9 0x0000 2>/dev/null && bad+=" 0x0000"
"$T" set sibA 9 0x8001 2>/dev/null && bad+=" duplicate"
"$T" del sibA 9 2>/dev/null && bad+=" del-empty"
"$T" show nosuchdev 2>/dev/null && bad+=" unknown-dev"
u=$("$T" set sibA 9 2>&1 >/dev/null); [[ $? == 2 && $u == *"try sib-pkey --help"* && $(wc -l <<<"$u") == 1 ]] ||
	bad+=" usage(one line + hint, exit 2: '$u')"
for p in 0 2; do	# every port but 1 alike: exit 1, named
	u=$("$T" --port $p show sibA 2>&1 >/dev/null); [[ $? == 1 && $u == *"sibA has no port $p"* ]] ||
		bad+=" port-$p('$u')"
done
capsh --drop=cap_net_admin -- -c "$T set sibA 9 0x8009" 2>/dev/null && bad+=" no-CAP_NET_ADMIN-set"
capsh --drop=cap_net_admin -- -c "$T show sibA" >/dev/null || bad+=" no-CAP_NET_ADMIN-show"
check table_errors "refused: index 64, 0x8000, 0x0000, duplicate, del of an empty entry, unknown device, --port 0 and 2 (exit 1), set without CAP_NET_ADMIN; a usage error is one line and exit 2${bad:+; wrong:$bad}" \
	'[[ -z $bad && $("$T" show sibA | grep -c index) == 5 ]]'

# ------------------------------------------------------------------ one process, many cases
cat >"$OUT/cases" <<CASES
--show-pkeys sibA
--name badidx --type rc --index-a 9 -n 1
# A sends 4 messages to B: full/full, full/limited, limited/limited, other partitions
--name rc_full_full --type rc --index-a 1 --index-b 1
--name ud_full_full --type ud --index-a 1 --index-b 1
--name rc_full_limited --type rc --index-a 2 --index-b 2
--name ud_full_limited --type ud --index-a 2 --index-b 2
--name rc_limited_limited --type rc --index-a 3 --index-b 3
--name ud_limited_limited --type ud --index-a 3 --index-b 3
--name rc_other_partition --type rc --index-a 5 --index-b 4
--name ud_other_partition --type ud --index-a 5 --index-b 4
--name rc_other_qp_partition --type rc --index-a 1 --index-b 4
--name ud_other_qp_partition --type ud --index-a 1 --index-b 4
--name rc_default --type rc --index-a 0 --index-b 0
# Q_Keys
--name qkey_bad --type ud --index-a 1 --index-b 1 --qkey-b 0x22222222 --wr-qkey 0x33333333
--name qkey_own --type ud --index-a 1 --index-b 1 --qkey-a 0x22222222 --qkey-b 0x22222222 --wr-qkey 0x80000000
--name qkey_priv --type ud --index-a 1 --index-b 1 --qkey-a 0x80000005 --qkey-b 0x80000005 -n 2
# table changes under live QPs
--name change_keep --type rc --index-a 1 --index-b 1 -n 6 --pause-after 3 --pause-cmd '$T del sibA 0 && $T del sibB 0 && $T set sibA 2 0x8012 && $T set sibB 6 0x8006'
--show-pkeys sibB
--name idx0 --type ud --index-a 1 --index-b 0 -n 1
--name default_closed --pre-cmd '$T set sibA 0 0xffff' --type ud --index-a 0 --index-b 1
--name entry_removed --type rc --index-a 1 --index-b 1 --pause-after 2 --pause-cmd '$T del sibA 1'
--name entry_changed --pre-cmd '$T set sibA 1 0x8001' --type ud --index-a 1 --index-b 1 --pause-after 2 --pause-cmd '$T set sibA 1 0x0001'
--name entry_changed_in --type ud --index-a 1 --index-b 4 --pause-after 2 --pause-cmd '$T set sibA 1 0x8004'
CASES
batch "$OUT/cases"

check max_pkeys "ibv_query_device max_pkeys 64, ibv_query_port pkey_tbl_len 64, ibv_query_pkey lists sibA's 5 entries" \
	'grep -qx "MAX_PKEYS sibA 64" $BOUT && grep -qx "PKEY_TBL_LEN sibA 64" $BOUT &&
	 [[ $(grep -c "^PKEY sibA" $BOUT) == 5 ]] && grep -qx "PKEY sibA 3 0x0003" $BOUT'
check modify_invalid_index "modify_qp to an index without an entry: ${L[badidx]}" \
	'[[ ${F[badidx.setup]} == modify_qp_init && ${F[badidx.errno]} == EINVAL ]]'
# traffic CASE all|none: every message arrived, or none did and each packet was a violation
traffic() {
	local n=$1 sent rcvd perr
	sent=${F[$n.A.sent_pkts]} rcvd=${F[$n.B.rcvd_pkts]} perr=${F[$n.B.rcvd_pkey_err]}
	local d="${L[$n]}; sibA sent_pkts +$sent, sibB rcvd_pkts +$rcvd rcvd_pkey_err +$perr"
	if [[ $2 == all ]]; then
		check "$n" "$d" '[[ ${F[$n.exit]} == 0 ]] && ((perr == 0 && sent > 0))'
	elif [[ $n == rc_* ]]; then
		# nothing arrives, the requester ends in retry exhaustion (retry_cnt 2; loss probes
		# may add transmissions), every packet it sent was dropped as a violation
		check "$n" "$d" '[[ ${F[$n.exit]} == 3 && ${F[$n.status]} == transport_retry_counter_exceeded ]] &&
			((perr == sent && rcvd == sent && sent >= 3))'
	else
		check "$n" "$d" '[[ ${F[$n.exit]} == 3 ]] && ((perr == 4 && sent == 4 && rcvd == 4))'
	fi
}
for t in "${TRAFFIC_ALL[@]}"; do traffic "$t" all; done
for t in "${TRAFFIC_NONE[@]}"; do traffic "$t" none; done

check ud_qkey_mismatch "DETH Q_Key != the QP's: ${L[qkey_bad]}; sibB rcvd_qkey_err +${F[qkey_bad.B.rcvd_qkey_err]}" \
	'[[ ${F[qkey_bad.exit]} == 3 && ${F[qkey_bad.B.rcvd_qkey_err]} == 4 && ${F[qkey_bad.B.rcvd_pkey_err]} == 0 ]]'
check ud_qkey_wr_high_bit "WR Q_Key 0x80000000 sends the QP's own: ${L[qkey_own]}; rcvd_qkey_err +${F[qkey_own.B.rcvd_qkey_err]}" \
	'[[ ${F[qkey_own.exit]} == 0 && ${F[qkey_own.B.rcvd_qkey_err]} == 0 ]]'
check ud_qkey_privileged "privileged Q_Key 0x80000005 with CAP_NET_RAW: ${L[qkey_priv]}" \
	'[[ ${F[qkey_priv.exit]} == 0 ]]'
capsh --drop=cap_net_raw -- -c "$P --name nocap --type ud --index-a 1 --index-b 1 --qkey-a 0x80000005 -n 1" \
	>"$OUT/nocap" 2>&1
cat "$OUT/nocap"
check ud_qkey_privileged_nocap "without CAP_NET_RAW: $(cut -d' ' -f3-4 "$OUT/nocap" | head -1)" \
	'grep -q "^CASE nocap exit=2 setup=modify_qp_init errno=EPERM" "$OUT/nocap"'

check change_keeps_qps "0xFFFF removed from both, entries added/changed while an RC pair on 0x8001 runs: ${L[change_keep]}; sibB rcvd_pkey_err +${F[change_keep.B.rcvd_pkey_err]}" \
	'[[ ${F[change_keep.exit]} == 0 && ${F[change_keep.B.rcvd_pkey_err]} == 0 ]]'
check change_event "IB_EVENT_PKEY_CHANGE reaches the users of both devices" \
	'grep -q "^ASYNC_EVENT A P_Key change" $BOUT && grep -q "^ASYNC_EVENT B P_Key change" $BOUT'
check default_removed "sibB index 0 after del: sysfs $(cat /sys/class/infiniband/sibB/ports/1/pkeys/0), not listed by ibv_query_pkey; a QP on it: ${L[idx0]}" \
	'! grep -q "^PKEY sibB 0 " $BOUT && grep -qx "PKEY sibB 6 0x8006" $BOUT &&
	 [[ $(cat /sys/class/infiniband/sibB/ports/1/pkeys/0) == 0x0000 ]] &&
	 [[ ${F[idx0.setup]} == modify_qp_init && ${F[idx0.errno]} == EINVAL ]]'
check default_partition_closed "0xFFFF packets to a port without 0xFFFF: ${L[default_closed]}; sibB rcvd_pkey_err +${F[default_closed.B.rcvd_pkey_err]}" \
	'[[ ${F[default_closed.exit]} == 3 && ${F[default_closed.B.rcvd_pkey_err]} == 4 ]]'
check qp_entry_removed "sibA's entry 1 removed after 2 of 4 RC messages: ${L[entry_removed]}; sibA send_pkey_err +${F[entry_removed.A.send_pkey_err]}, sibB rcvd_pkey_err +${F[entry_removed.B.rcvd_pkey_err]}" \
	'[[ ${F[entry_removed.exit]} == 1 && ${F[entry_removed.received]} == 2 &&
	   ${F[entry_removed.status]} == transport_retry_counter_exceeded &&
	   ${F[entry_removed.A.send_pkey_err]} -ge 3 && ${F[entry_removed.B.rcvd_pkey_err]} == 0 &&
	   ${F[entry_removed.A.sent_pkts]} == ${F[entry_removed.B.rcvd_pkts]} ]]'
check qp_entry_changed "sibA 0x8001 -> 0x0001 (limited) under a live UD QP, sibB's QP full: ${L[entry_changed]}; rcvd_pkey_err +${F[entry_changed.B.rcvd_pkey_err]}" \
	'[[ ${F[entry_changed.exit]} == 0 && ${F[entry_changed.B.rcvd_pkey_err]} == 0 ]]'
check qp_entry_changed_in "sibA 0x0001 -> 0x8004 towards sibB's 0x8004 QP: 2 dropped before, 2 delivered after: ${L[entry_changed_in]}; rcvd_pkey_err +${F[entry_changed_in.B.rcvd_pkey_err]}" \
	'[[ ${F[entry_changed_in.exit]} == 1 && ${F[entry_changed_in.received]} == 2 && ${F[entry_changed_in.B.rcvd_pkey_err]} == 2 ]]'
rs=$(rdma statistic show link sibB/1 2>&1)
check rdma_statistic "rdma statistic show link sibB/1: $(grep -o 'rcvd_pkey_err [0-9]*' <<<"$rs")" \
	'[[ $(grep -o "rcvd_pkey_err [0-9]*" <<<"$rs" | cut -d" " -f2) == $(cat /sys/class/infiniband/sibB/ports/1/hw_counters/rcvd_pkey_err) ]] &&
	 grep -q "send_pkey_err" <<<"$rs"'

ip netns exec pkA rdma link delete sibA
ip netns exec pkB rdma link delete sibB
ip netns del pkA; ip netns del pkB

# ------------------------------------------------------------------ rdma_rxe
if ((RXE)); then
	rdma link delete sib0 2>/dev/null
	ip netns add pkS
	ip link add vR type veth peer name vS netns pkS
	ip addr add 192.168.78.1/24 dev vR; ip link set vR up
	ip -n pkS addr add 192.168.78.2/24 dev vS; ip -n pkS link set vS up; ip -n pkS link set lo up
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev vR
	ip netns exec pkS rdma link add sibS type softib netdev vS
	wait_gid rxe0; wait_gid sibS
	NEIGH=("- 192.168.78.2" "pkS 192.168.78.1")
	cat >"$OUT/rxe" <<CASES
--name rxe_rc_sib_to_rxe --type rc -a sibS -b rxe0
--name rxe_rc_rxe_to_sib --type rc -a rxe0 -b sibS
--name rxe_ud_sib_to_rxe --type ud -a sibS -b rxe0
--name rxe_ud_rxe_to_sib --type ud -a rxe0 -b sibS
CASES
	batch "$OUT/rxe"
	for t in "${RXE_CASES[@]}"; do
		check $t "default partition, softib <-> rdma_rxe: ${L[$t]}" '[[ ${F[$t.exit]} == 0 ]]'
	done
	rdma link delete rxe0; ip netns exec pkS rdma link delete sibS
	ip netns del pkS
fi

echo "pkey: $nok/$((nok + nfail)) ok${TL_FAILED:+, failed: ${TL_FAILED[*]}}"
tl_status
