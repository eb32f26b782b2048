#!/bin/bash
# cc.sh: congestion control (issue 21): ECN, CNPs and DCQCN between two softib devices in two
# network namespaces joined by a veth pair whose sender side (vethA, in ccA) is a bottleneck
# that marks ECN instead of dropping: tbf 20 Mbit/s with an fq_codel child that marks CE on
# every ECN-capable packet queued longer than 1 ms.  sib-load (verified RC traffic, one way,
# sibA -> sibB) drives it, over IPv4 GIDs and once over IPv6 GIDs.  Meant to run inside a tools/vm-run guest (root, softib loaded).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/cc.sh [--results FILE] [--out DIR] [--time SEC] [--list]

Prints "RESULT cc_<case> ok|FAIL <detail>" per case (also appended to FILE) and a last line
"cc: N/M ok"; exit status 0 iff all ok.  --out DIR keeps the captures (data.pcap, cnp.pcap)
and the counters there (default: a temporary directory, removed).  --time SEC: seconds of
traffic per run (default 6).  --list prints the names of the cases (cc_<case>) and exits.
USAGE
}
RESULTS=/dev/null LIST=0 KEEP="" SECS=6
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--out) KEEP=${2:?}; shift 2 ;;
	--time) SECS=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "cc.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
LOAD=$REPO/tools/load/sib-load
CC=$REPO/tools/sib-cc/sib-cc
TL_PREFIX=cc_ TL_STAMP=1
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
cases params_show params_set params_errors data_ect0 bottleneck_marks np_ecn_marked np_cnp_sent \
	rp_cnp_handled rp_rate_decrease rp_paced rate_in_restrack data_verified cnp_tshark cnp_scapy \
	rp_off_ignored rp_off_verified ecn_off_no_marks ud_rp xrc_rp ipv6_ect0 ipv6_cnp bench_on bench_off bench_mixed
for f in "$LOAD" "$CC"; do [[ -x $f ]] || { echo "cc.sh: $f not built (make load pkey)" >&2; exit 2; }; done
if [[ -n $KEEP ]]; then OUT=$KEEP; mkdir -p "$OUT"; else OUT=$(mktemp -d /tmp/cc.XXXXXX); fi
teardown() {
	rdma link delete sibA 2>/dev/null || true
	rdma link delete sibB 2>/dev/null || true
	ip netns del ccA 2>/dev/null || true
	ip netns del ccB 2>/dev/null || true
	[[ -n $KEEP ]] || rm -rf "$OUT"
}
trap teardown EXIT
log() { echo "$(date +%T) $*" >>"$OUT/progress"; }
check() { # NAME DETAIL CONDITION (evaluated)
	if eval "$3"; then result "$1" ok "$2"; else result "$1" FAIL "$2"; fi
}
modprobe veth; modprobe sch_tbf
netns_pair ccA ccB vethA vethB 192.168.78.1 192.168.78.2 || exit 2
ip netns exec ccA rdma link add sibA type softib netdev vethA || exit 2
ip netns exec ccB rdma link add sibB type softib netdev vethB || exit 2
wait_active sibA 50; wait_active sibB 50
wait_gid sibA "" 50 0.2; wait_gid sibB "" 50 0.2
tc -n ccA qdisc add dev vethA root handle 1: tbf rate 20mbit burst 32k latency 50ms || exit 2
tc -n ccA qdisc add dev vethA parent 1:1 handle 10: fq_codel ecn ce_threshold 1ms || exit 2
# ARP both ways before the QPs resolve their AHs (see pkey.sh)
ip netns exec ccA bash -c 'exec 3<>/dev/tcp/192.168.78.2/9' 2>/dev/null
ip netns exec ccB bash -c 'exec 3<>/dev/tcp/192.168.78.1/9' 2>/dev/null

# --- parameters (sib-cc) ---
"$CC" show sibA >"$OUT/params" 2>&1
check params_show "$(wc -l <"$OUT/params") parameters; $(grep -E ' (ecn_enable|np_min_time_between_cnps|rp_dce_tcp_g|rp_ai_rate) ' "$OUT/params" | awk '{print $2"="$3$4}' | paste -sd' ')" \
	'grep -q "^sibA ecn_enable 1 bool$" "$OUT/params" && grep -q "^sibA rp_dce_tcp_g 1019 " "$OUT/params" && grep -q "^sibA np_min_time_between_cnps 4 us$" "$OUT/params"'
"$CC" set sibA rp_ai_rate 7 && v=$("$CC" show sibA | awk '$2 == "rp_ai_rate" {print $3}')
"$CC" set sibA rp_ai_rate 5
check params_set "rp_ai_rate set to 7 reads back $v" '[[ $v == 7 ]]'
e1=0 e2=0 e3=0
"$CC" set sibA no_such_param 1 2>/dev/null; e1=$?
"$CC" set sibA rp_dce_tcp_g 5000 2>/dev/null; e2=$?
"$CC" set sibA 2>/dev/null; e3=$?
check params_errors "unknown name exit $e1, out of range exit $e2, missing value exit $e3" \
	'[[ $e1 == 1 && $e2 == 1 && $e3 == 2 ]]'

# --- one run: sib-load one way sibA -> sibB through the bottleneck ---
snap() { counters sibA "$1"; }
declare -A A0 A1 B0 B1 A2 A3 B2 B3
run_load() { # TAG
	timeout -s KILL $((SECS + 60)) "$LOAD" -d sibA -D sibB -q 2 -t "$SECS" --one-way \
		--ops-mix write,write_imm,send -M 64K -o 8 >"$OUT/load-$1" 2>&1
}
load_ok() { # TAG
	grep -q '^result *ok' "$OUT/load-$1" && [[ $(awk '$1 == "mismatches" {print $2}' "$OUT/load-$1") == 0 ]]
}
marks() { tc -n ccA -s qdisc show dev vethA | awk '/ce_mark/ {for (i = 1; i < NF; i++) if ($i == "ce_mark") s += $(i + 1)} END {print s + 0}'; }
drops() { tc -n ccA -s qdisc show dev vethA | awk '/dropped/ {gsub(/[(),]/, ""); for (i = 1; i < NF; i++) if ($i == "dropped") {print $(i + 1); exit}}'; }

counters sibA A0; counters sibB B0; m0=$(marks)
# A TCG guest moves packets about 100 times slower than a host: the CNPs of a 20 Mbit/s
# bottleneck come milliseconds apart, so with ConnectX's microsecond periods alpha has decayed
# to nothing before the next one and the rate never gets low enough to pace. Scale the
# periods and start from 1 Gbit/s (the defaults are checked above).
for kv in "rp_max_rate 1000" "rp_dce_tcp_rtt 200" "rp_time_reset 5000"; do "$CC" set sibA $kv; done
log "captures start"
# bounded: a capture that sees too little ends by itself (cc-capture.py: dumpcap saw
# nothing of the veths in the namespaces here)
ip netns exec ccB /usr/bin/python3 "$HERE/cc-capture.py" vethB "$OUT/data.pcap" 50 $((SECS + 20)) \
	>"$OUT/capture1.log" 2>&1 &
cap1=$!
ip netns exec ccA /usr/bin/python3 "$HERE/cc-capture.py" vethA "$OUT/cnp.pcap" 20 $((SECS + 20)) 0x81 \
	>"$OUT/capture2.log" 2>&1 &
cap2=$!
sleep 4
log "load starts"
run_load on &
lp=$!
# the rate of a limited QP while the load runs (sampled)
: >"$OUT/restrack"; : >"$OUT/restrack.raw"
for ((i = 0; i < 2 * SECS; i++)); do
	sleep 0.2
	rdma -d -d res show qp >"$OUT/restrack.1" 2>&1
	cat "$OUT/restrack.1" >>"$OUT/restrack.raw"
	grep -oE 'cc_(rate_mbps|target_mbps|alpha) [0-9]+' "$OUT/restrack.1" | paste -sd' ' >>"$OUT/restrack"
	grep -qE 'cc_rate_mbps [1-9]' "$OUT/restrack" && break
done
wait "$lp"; lrc=$?
log "load done ($lrc), waiting for the captures"
wait "$cap1" "$cap2" 2>/dev/null
log "captures done"
counters sibA A1; counters sibB B1; m1=$(marks)
dA() { counters_delta A0 A1 "$1"; }
dB() { counters_delta B0 B1 "$1"; }
grep -E '^(result|ops|bytes|mismatches|lost|statuses|MB/s|rate)' "$OUT/load-on" | head -8
echo "sibA: $(for k in sent_pkts rp_cnp_handled rp_cnp_ignored rp_rate_decrease rp_rate_increase rp_paced_waits retransmitted_pkts; do printf '%s=+%s ' $k "$(dA $k)"; done)"
echo "sibB: $(for k in rcvd_pkts np_ecn_marked_roce_packets np_cnp_sent np_cnp_suppressed; do printf '%s=+%s ' $k "$(dB $k)"; done)"
echo "bottleneck: ce_mark +$((m1 - m0)), dropped $(drops)"

log tshark 1
ecn=$(timeout -s KILL 180 tshark -r "$OUT/data.pcap" -Y 'udp.dstport == 4791 && infiniband.bth.opcode != 0x81' -T fields -e ip.dsfield.ecn 2>/dev/null | sort | uniq -c | awk '{print $2":"$1}' | paste -sd' ')
check data_ect0 "ECN field of captured RoCEv2 packets (value:count; 2 = ECT(0), 3 = CE): ${ecn:-none}" \
	'[[ -n $ecn ]] && ! grep -qE "(^| )0:" <<<"$ecn"'
check bottleneck_marks "fq_codel ce_mark +$((m1 - m0)), dropped $(drops)" '((m1 - m0 > 0))'
check np_ecn_marked "sibB np_ecn_marked_roce_packets +$(dB np_ecn_marked_roce_packets)" '(($(dB np_ecn_marked_roce_packets) > 0))'
check np_cnp_sent "sibB np_cnp_sent +$(dB np_cnp_sent), suppressed +$(dB np_cnp_suppressed)" '(($(dB np_cnp_sent) > 0))'
check rp_cnp_handled "sibA rp_cnp_handled +$(dA rp_cnp_handled), ignored +$(dA rp_cnp_ignored)" \
	'(($(dA rp_cnp_handled) > 0 && $(dA rp_cnp_ignored) == 0))'
check rp_rate_decrease "sibA rp_rate_decrease +$(dA rp_rate_decrease), rp_rate_increase +$(dA rp_rate_increase), rp_paced_waits +$(dA rp_paced_waits)" \
	'(($(dA rp_rate_decrease) > 0))'
check rp_paced "sibA rp_paced_waits +$(dA rp_paced_waits) (requester out of credit, pacing timer started)" '(($(dA rp_paced_waits) > 0))'
# the QPs' DCQCN state is in rdma's QP lines; a rate above 0 when a sample caught a QP limited
rsample=$(grep -E 'cc_rate_mbps [1-9]' "$OUT/restrack" | head -1)
check rate_in_restrack "${rsample:-no limited QP in $(wc -l <"$OUT/restrack") samples: $(tail -1 "$OUT/restrack")}" \
	'grep -q cc_rate_mbps "$OUT/restrack"'
check data_verified "sib-load exit $lrc: $(grep -E '^(result|mismatches)' "$OUT/load-on" | paste -sd' ')" '((lrc == 0)) && load_ok on'

# --- the CNP's format: tshark's RoCE dissector and scapy's encoder ---
log tshark 2
tsh=$(timeout -s KILL 180 tshark -r "$OUT/cnp.pcap" -T fields -e frame.len -e ip.dsfield.dscp -e ip.dsfield.ecn \
	-e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.p_key -e infiniband.bth.destqp \
	-e infiniband.bth.a 2>/dev/null | sort | uniq -c | head -3)
echo "tshark CNPs (count frame-len dscp ecn opcode psn pkey destqp ackreq):"; echo "$tsh"
# 74 bytes: Ethernet 14, IPv4 20, UDP 8, BTH 12, reserved 16, ICRC 4; BECN is checked by scapy
check cnp_tshark "$(wc -l <<<"$tsh") kinds of CNP: $(head -1 <<<"$tsh" | xargs)" \
	'[[ -n $tsh ]] && awk '"'"'{ if ($2 != 74 || $3 != 48 || $4 != 0 || ($5 != "0x81" && $5 != 129) || $6 != 0 || $9 != 0) bad = 1 } END { exit bad }'"'"' <<<"$tsh"'
log scapy
scp=$(timeout -s KILL 180 /usr/bin/python3 - "$OUT/cnp.pcap" <<'PY' 2>&1
import sys
from scapy.all import rdpcap, IP, UDP
from scapy.contrib.roce import BTH, cnp
n = bad = 0
for p in rdpcap(sys.argv[1]):
    if UDP not in p or p[UDP].dport != 4791:
        continue
    n += 1
    ip = p[IP]
    b = p[BTH]
    # an independent encoding of the same CNP (scapy computes the ICRC)
    ref = IP(src=ip.src, dst=ip.dst, tos=ip.tos, id=ip.id, flags=ip.flags, ttl=ip.ttl) / \
        UDP(sport=p[UDP].sport, dport=4791, chksum=p[UDP].chksum) / cnp(b.dqpn)
    ref[BTH].pkey = b.pkey
    ref = IP(bytes(ref))
    if bytes(ref[UDP].payload) != bytes(p[UDP].payload):
        bad += 1
        print("differs:", bytes(p[UDP].payload).hex(), "scapy:", bytes(ref[UDP].payload).hex())
print("cnps %d differing %d" % (n, bad))
PY
)
echo "scapy: $scp"
check cnp_scapy "$(tail -1 <<<"$scp")" '[[ $(tail -1 <<<"$scp") =~ ^cnps\ [1-9][0-9]*\ differing\ 0$ ]]'

log "rp off"
# --- reaction point off: CNPs counted as ignored, data still verified ---
"$CC" set sibA rp_enable 0
counters sibA A2; counters sibB B2
run_load off; lrc=$?
counters sibA A3; counters sibB B3
ign=$(counters_delta A2 A3 rp_cnp_ignored) hnd=$(counters_delta A2 A3 rp_cnp_handled)
check rp_off_ignored "rp_enable 0: rp_cnp_ignored +$ign, rp_cnp_handled +$hnd, sibB np_cnp_sent +$(counters_delta B2 B3 np_cnp_sent), retransmitted_pkts +$(counters_delta A2 A3 retransmitted_pkts)" \
	'((ign > 0 && hnd == 0))'
check rp_off_verified "sib-load exit $lrc: $(grep -E '^(result|mismatches)' "$OUT/load-off" | paste -sd' ')" '((lrc == 0)) && load_ok off'
"$CC" set sibA rp_enable 1

log "ecn off"
# --- ECN off on the sender: nothing is ECN-capable, nothing is marked ---
"$CC" set sibA ecn_enable 0
counters sibB B2; m2=$(marks)
SECS=3 run_load ecnoff
counters sibB B3; m3=$(marks)
"$CC" set sibA ecn_enable 1
check ecn_off_no_marks "ecn_enable 0: ce_mark +$((m3 - m2)), np_ecn_marked_roce_packets +$(counters_delta B2 B3 np_ecn_marked_roce_packets), dropped $(drops)" \
	'((m3 == m2)) && (($(counters_delta B2 B3 np_ecn_marked_roce_packets) == 0))'

# --- a UD and an XRC sender through the bottleneck (perftest's send): the CNPs go to the
# sending QP (for UD the DETH's source QP, for XRC the initiator) and cut that QP's one rate,
# for UD for all of its destinations. UD's drops are UD's: only XRC's server must finish ---
g4=$(gid_index sibA 192.168.78.1)
qp_rp() { # CASE TYPE SIZE ITERS
	local c=$1 t=$2 srv cli crc src=0 sample
	log "$t"
	counters sibA A2; counters sibB B2
	ip netns exec ccB timeout -s KILL 45 ib_send_bw -d sibB -x "$g4" -c "$t" -s "$3" -n "$4" -p 18610 \
		>"$OUT/$c-srv" 2>&1 &
	srv=$!
	sleep 1
	ip netns exec ccA timeout -s KILL 40 ib_send_bw -d sibA -x "$g4" -c "$t" -s "$3" -n "$4" -p 18610 \
		192.168.78.2 >"$OUT/$c-cli" 2>&1 &
	cli=$!
	: >"$OUT/restrack-$c"
	while kill -0 "$cli" 2>/dev/null; do
		rdma -d -d res show qp 2>/dev/null | grep -E "type $t[A-Z_]* .*cc_rate_mbps [1-9]" >>"$OUT/restrack-$c"
		[[ -s $OUT/restrack-$c ]] && break
		sleep 0.2
	done
	wait "$cli"; crc=$?
	if [[ $t == UD ]]; then sleep 2; kill -9 "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
	else wait "$srv"; src=$?; fi
	counters sibA A3; counters sibB B3
	sample=$(grep -oE "type $t[A-Z_]*|cc_(rate_mbps|target_mbps|alpha) [0-9]+" "$OUT/restrack-$c" | head -4 | paste -sd' ')
	local h=$(counters_delta A2 A3 rp_cnp_handled) i=$(counters_delta A2 A3 rp_cnp_ignored) d=$(counters_delta A2 A3 rp_rate_decrease)
	check "$c" "ib_send_bw -c $t exit $crc/$src; sibB np_cnp_sent +$(counters_delta B2 B3 np_cnp_sent); sibA rp_cnp_handled +$h, ignored +$i, rp_rate_decrease +$d; limited QP: ${sample:-none seen}" \
		"((crc == 0 && src == 0 && h > 0 && i == 0 && d > 0)) && [[ -n \$sample ]]"
}
qp_rp ud_rp UD 1024 8000
qp_rp xrc_rp XRC 4096 1000

# --- the same over IPv6 GIDs: ECT(0) in the traffic class, CE marked, CNPs over IPv6 ---
log "ipv6"
ip -n ccA -6 addr add fd78::1/64 dev vethA nodad && ip -n ccB -6 addr add fd78::2/64 dev vethB nodad
# neighbours resolved before the QPs resolve their AHs (as the ARP above)
ip netns exec ccA ping -6 -c 1 -W 5 fd78::2 >/dev/null 2>&1
g6a=$(gid_index sibA fd78::1 50 0.2) g6b=$(gid_index sibB fd78::2 50 0.2)
ip netns exec ccB /usr/bin/python3 "$HERE/cc-capture.py" vethB "$OUT/data6.pcap" 50 20 >"$OUT/capture6.log" 2>&1 &
cap6=$!
sleep 4
counters sibA A2; counters sibB B2; m2=$(marks)
lrc=99
if [[ -n $g6a && $g6a == "$g6b" ]]; then
	timeout -s KILL 70 "$LOAD" -d sibA -D sibB -g "$g6a" -q 2 -t 3 --one-way \
		--ops-mix write,write_imm,send -M 64K -o 8 >"$OUT/load-v6" 2>&1
	lrc=$?
fi
wait "$cap6" 2>/dev/null
counters sibA A3; counters sibB B3; m3=$(marks)
ecn6=$(timeout -s KILL 180 tshark -r "$OUT/data6.pcap" -Y 'ipv6 && udp.dstport == 4791 && infiniband.bth.opcode != 0x81' \
	-T fields -e ipv6.tclass.ecn 2>/dev/null | sort | uniq -c | awk '{print $2":"$1}' | paste -sd' ')
check ipv6_ect0 "GID index ${g6a:-none}/${g6b:-none}; ECN field of captured RoCEv2 packets over IPv6 (value:count): ${ecn6:-none}; sib-load exit $lrc: $(grep -E '^(result|mismatches)' "$OUT/load-v6" 2>/dev/null | paste -sd' ')" \
	'[[ -n $ecn6 ]] && ! grep -qE "(^| )0:" <<<"$ecn6" && ((lrc == 0)) && load_ok v6'
d6a() { counters_delta A2 A3 "$1"; }
d6b() { counters_delta B2 B3 "$1"; }
check ipv6_cnp "ce_mark +$((m3 - m2)); sibB np_ecn_marked_roce_packets +$(d6b np_ecn_marked_roce_packets), np_cnp_sent +$(d6b np_cnp_sent); sibA rp_cnp_handled +$(d6a rp_cnp_handled), ignored +$(d6a rp_cnp_ignored)" \
	'(($(d6b np_ecn_marked_roce_packets) > 0 && $(d6b np_cnp_sent) > 0 && $(d6a rp_cnp_handled) > 0 && $(d6a rp_cnp_ignored) == 0))'

# --- two senders, four flows, one bottleneck: tools/cc-bench, short (the figures are the
# benchmark's; here each case's data must be verified and its CNPs handled or ignored as the
# case says) ---
log "cc-bench"
BENCH_SECS=$((SECS < 3 ? SECS : 3))
timeout -s KILL 600 "$REPO/tools/cc-bench" --in-guest --time "$BENCH_SECS" --rate 5 >"$OUT/bench" 2>&1
brc=$?
grep -E '^(idle|CCBENCH)' "$OUT/bench"
bval() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
for c in on off mixed; do
	bl=$(grep -m1 "^CCBENCH $c " "$OUT/bench") bv=$(bval "$bl" verified)
	bh=$(bval "$bl" cnp_handled) bi=$(bval "$bl" cnp_ignored)
	case $c in
	on) want='((bh > 0 && bi == 0))' ;;	# both senders react
	off) want='((bh == 0 && bi > 0))' ;;	# neither does
	mixed) want='((bh > 0 && bi > 0))' ;;	# s1 reacts, s2 does not
	esac
	check "bench_$c" "${bl:+${bl#CCBENCH }}${bl:-no result (cc-bench exit $brc): $(tail -2 "$OUT/bench" | tr '\n' ' ')}" \
		"[[ \$bv == yes ]] && ${want}"
done

echo "cc: $nok/$((nok + nfail)) ok"
tl_status
