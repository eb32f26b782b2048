#!/bin/bash
# faults.sh: RC under a bad network. Two network namespaces A and B joined by a veth pair
# (MTU 9000, so IB MTU 4096), a softib device in each (sibA on vethA, sibB on vethB), tc
# netem on the veths; tools/load/sib-load connects QPs between sibA and sibB in one process
# and checks every byte and completion.  Meant to run inside a tools/vm-run guest:
#   tools/vm-run -- tests/vm/faults.sh [--only NAME] [--quick]
set -euo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/faults.sh [--results FILE] [--seed N] [--only NAME[,NAME...]] [--quick] [--big] [--list]

Cases (netem on both veths unless noted; sib-load, mixed WRITE/READ/SEND(+imm)/atomics, path
MTU 4096, both directions):
  clean      no fault, 16 MiB
  loss1      loss 1%, 16 MiB            loss5   loss 5%, 16 MiB
  loss20     loss 20%, 8 MiB            big20   loss 20%, 256 MiB (only with --big/--only big20)
  reorder    delay 1ms, 25% of packets sent at once (reordered), 16 MiB
  duplicate  duplicate 5%, 16 MiB (duplicate_request must move)
  corrupt    corrupt 2% (one bit flipped): the ICRC must catch it, rcvd_icrc_err > 0, 16 MiB
  jitter     delay 2ms +- 1ms, 8 MiB
  linkflap   vethA down for 1 s and up again during traffic (retransmits must move)
  rnr_inf    receives posted 1 s late, rnr_retry 7 (infinite): everything arrives once
  rnr_exceeded  receives 3 s late, rnr_retry 1: must end with IBV_WC_RNR_RETRY_EXC_ERR
  peer_gone  after 4 s all packets are lost (netem loss 100%): IBV_WC_RETRY_EXC_ERR
For each: "RESULT faults_<name> ok|FAIL <bytes, completions, mismatches, lost, duplicated,
counters>" (also appended to FILE). ok when sib-load exits 0 with 0 mismatches, lost,
duplicated, unknown and wrong completions, no error status (the exhaustion cases: exactly the
expected one besides flushes) and the case's counter condition holds.  --list prints the
names of the cases the other options select (faults_<name>) and exits.  Exit 0 iff all ok, 2
when --only names no case that the other options let run.
USAGE
}
RESULTS=/dev/null SEED="" ONLY="" QUICK=0 BIG=0 LIST=0 TMO=${FAULTS_TIMEOUT:-300}
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--seed) SEED=${2:?}; shift 2 ;;
	--only) ONLY=${2:?}; shift 2 ;;
	--quick) QUICK=1; shift ;;
	--big) BIG=1; shift ;;
	--list) LIST=1; shift ;;
	*) echo "faults.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOAD=$HERE/../../tools/load/sib-load
TL_PREFIX=faults_
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
# with --list the cases below go by without running: run prints each name (listing)
if ((!LIST)); then
	[[ -x $LOAD ]] || { echo "faults.sh: $LOAD not built (make -C tools/load)" >&2; exit 2; }
	OUT=$(mktemp -d /tmp/faults.XXXXXX)
fi

setup() {
	((LIST)) && return
	modprobe veth; modprobe sch_netem
	netns_pair A B vethA vethB 192.168.77.1 192.168.77.2 9000 || exit 1
	MAC_A=$(ip netns exec A cat /sys/class/net/vethA/address)
	MAC_B=$(ip netns exec B cat /sys/class/net/vethB/address)
	pin_neighbours || exit 1
	ip netns exec A rdma link add sibA type softib netdev vethA
	ip netns exec B rdma link add sibB type softib netdev vethB
	wait_active sibB 50 || true
}
teardown() {
	rdma link delete sibA 2>/dev/null || true
	rdma link delete sibB 2>/dev/null || true
	ip netns del A 2>/dev/null || true
	ip netns del B 2>/dev/null || true
	rm -rf "$OUT"
}
((LIST)) || trap teardown EXIT
# Permanent neighbours: the cases test RC's recovery, not ARP's. ib_core resolves a QP's
# destination MAC at RTR with a 1 s deadline; after peer_gone's 100% loss the entry has
# failed, and under big20's 20% loss a new ARP exchange that loses a packet retries only
# after those 1 s: RTR then fails with ETIMEDOUT. A link that goes down (linkflap) flushes
# permanent entries too, so netem() pins them again before every case.
MAC_A="" MAC_B=""
pin_neighbours() {
	ip -n A neigh replace 192.168.77.2 lladdr "$MAC_B" dev vethA nud permanent &&
		ip -n B neigh replace 192.168.77.1 lladdr "$MAC_A" dev vethB nud permanent
}
netem() { # netem SIDES ARGS...: SIDES is A, B or AB; no ARGS: remove
	local sides=$1 s; shift
	((LIST)) && return
	pin_neighbours || { echo "faults.sh: cannot pin the neighbours" >&2; return 1; }
	for s in $(grep -o . <<<"$sides"); do
		tc -n "$s" qdisc del dev "veth$s" root 2>/dev/null || true
		(($#)) && tc -n "$s" qdisc add dev "veth$s" root netem "$@"
	done
	return 0
}
field() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }
# cnt FILE DEV NAME: counter delta from sib-load's "counters DEV: name=+N ..." line
cnt() { sed -n "s/^counters *$2: .*[ ]$3=+\([0-9]*\).*/\1/p" "$1" | head -1; }
# nonzero FILE DEV: the counters of DEV that moved, "name=+N" each
nonzero() {
	sed -n "s/^counters *$2: //p" "$1" | tr ' ' '\n' |
		grep -vE '=\+0$|^(work_rounds|inline_rounds|softirq_rounds|completions)=' | paste -sd' ' || true
}
expect_name() {
	case $1 in
	retry-exceeded) echo IBV_WC_RETRY_EXC_ERR ;;
	rnr-retry-exceeded) echo IBV_WC_RNR_RETRY_EXC_ERR ;;
	*) echo "$1" ;;
	esac
}

# run NAME [--expect STATUS] [--need COUNTER] [--during 'CMD'] -- SIB-LOAD-ARGS...
run() {
	listing "$1" && return 0
	local name=$1 f=$OUT/$1 rc=0 why="" k v expect="" need="" during="" st seed bg=""
	shift
	while [[ $1 != -- ]]; do
		case $1 in
		--expect) expect=$2; shift 2 ;;
		--need) need=$2; shift 2 ;;
		--during) during=$2; shift 2 ;;
		esac
	done
	shift
	local args=(-d sibA -D sibB -m 4096 "$@" ${expect:+--expect-status "$expect"} ${SEED:+--seed "$SEED"})
	echo "== faults_$name: netem A: $(tc -n A qdisc show dev vethA | grep -o 'netem.*' || echo none)"
	echo "\$ sib-load ${args[*]}"
	local t0=$SECONDS
	if [[ -n $during ]]; then (eval "$during") & bg=$!; fi
	timeout -s KILL "$TMO" "$LOAD" "${args[@]}" >"$f" 2>&1 || rc=$?
	[[ -n $bg ]] && wait "$bg" || true
	grep -vE '^(counters|opcodes|memory)' "$f" | head -40
	((rc == 0)) || why+=" exit $rc;"
	for k in mismatches lost duplicated unknown wrong_cqe; do
		v=$(field "$k" "$f")
		[[ $v == 0 ]] || why+=" $k ${v:-missing};"
	done
	st=$(sed -n 's/^statuses *//p' "$f")
	if [[ -z $expect ]]; then
		[[ $st == none* ]] || why+=" error statuses: ${st%;};"
	else
		[[ $st == *"$(expect_name "$expect")"* ]] || why+=" expected $expect, statuses: ${st%;};"
	fi
	grep -q '^result *ok' "$f" || why+=" no 'result ok' line;"
	if [[ -n $need ]]; then
		v=$(( $(cnt "$f" sibA "$need" || echo 0) + $(cnt "$f" sibB "$need" || echo 0) ))
		((v > 0)) || why+=" counter $need did not move;"
	fi
	seed=$(sed -n 's/^sib-load: seed \([0-9]*\).*/\1/p' "$f")
	local detail
	detail="$(field bytes "$f") bytes, $(field completions "$f") completions, mismatches $(field mismatches "$f"), lost $(field lost "$f"), duplicated $(field duplicated "$f")${expect:+, $expect}, $((SECONDS - t0)) s, seed ${seed:-?}; sibA: $(nonzero "$f" sibA); sibB: $(nonzero "$f" sibB)"
	if [[ -z $why ]]; then result "$name" ok "$detail"
	else why=${why# }; result "$name" FAIL "${why%;}; $detail"; fi
}
# --only takes one name or a comma-separated list
want() { [[ -z $ONLY || ",$ONLY," == *",$1,"* ]] && { ((!QUICK)) || [[ " clean loss5 corrupt " == *" $1 "* ]]; }; }

setup
MIX=(-q 4 -M 1M -o 4)
want clean && { netem AB; run clean -- "${MIX[@]}" -b 16M; }
want loss1 && { netem AB loss 1%; run loss1 -- "${MIX[@]}" -b 16M; }
want loss5 && { netem AB loss 5%; run loss5 -- "${MIX[@]}" -b 16M; }
want loss20 && { netem AB loss 20%; run loss20 -- "${MIX[@]}" -b 8M; }
want reorder && { netem AB delay 1ms reorder 25% 50%; run reorder -- "${MIX[@]}" -b 16M; }
want duplicate && { netem AB duplicate 5%; run duplicate --need duplicate_request -- "${MIX[@]}" -b 16M; }
want corrupt && { netem AB corrupt 2%; run corrupt --need rcvd_icrc_err -- "${MIX[@]}" -b 16M; }
want jitter && { netem AB delay 2ms 1ms; run jitter -- "${MIX[@]}" -b 8M; }
# the link goes down 4 s after start (sib-load's setup takes a few seconds under TCG) for 1 s
# (ip(8) itself can take seconds under TCG: local ACK timeout 16, 1 s in softib, x 8 tries)
want linkflap && { netem AB; run linkflap --need retransmits \
	--during 'sleep 4; ip -n A link set vethA down; sleep 1; ip -n A link set vethA up; ip -n A route replace 192.168.77.0/24 dev vethA' \
	-- "${MIX[@]}" -t 12 --ack-timeout 16; }
want rnr_inf && { netem AB; run rnr_inf --need rnr_nak_sent -- -q 1 -M 4K -n 100 --ops-mix send,send_imm,write_imm \
	--recv-delay 1 --rnr-retry 7; }
want rnr_exceeded && { netem AB; run rnr_exceeded --expect rnr-retry-exceeded -- -q 1 -M 4K -n 100 \
	--ops-mix send,send_imm --one-way --recv-delay 3 --rnr-retry 1 --min-rnr-timer 1; }
want peer_gone && { netem AB; run peer_gone --expect retry-exceeded --need retry_exceeded_err \
	--during 'sleep 4; tc -n A qdisc add dev vethA root netem loss 100%; tc -n B qdisc add dev vethB root netem loss 100%' \
	-- -q 2 -M 64K -t 20 --ack-timeout 12 --retry-cnt 2; }
# 256 MiB at 20% loss: only with --only big20 or --big (1.5-3 min under TCG on the stock kernel)
if [[ ",$ONLY," == *,big20,* ]] || ((BIG)); then
	netem AB loss 20%; TMO=$((TMO > 600 ? TMO : 600)) run big20 -- -q 4 -M 4M -o 4 -b 256M
fi
((LIST)) && exit 0
netem AB
if [[ -n $ONLY ]] && ((nok + nfail == 0)); then
	echo "faults.sh: --only $ONLY names no case run here (--list shows them)" >&2
	exit 2
fi
echo "faults: $nok/$((nok + nfail)) ok"
tl_status
