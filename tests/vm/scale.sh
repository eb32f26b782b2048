#!/bin/bash
# scale.sh: many QPs on one device.  2048 RC QPs created, connected in pairs and each used
# (tools/perf/sib-memuse: one 32-byte RDMA WRITE per QP, every one checked), and perftest
# ib_write_bw with 64 QPs and ib_read_bw with 4 QPs; on softib also that RC payload and RDMA
# READ responses went out as page fragments (hw counters zero_copy_pkts, zero_copy_read_pkts).
# Meant to run inside a tools/vm-run guest.
set -euo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/scale.sh [--dev DEV] [--addr IP] [--qps N] [--results FILE] [--list]

Prints "RESULT <name> ok|FAIL <detail>" lines (also appended to FILE) for qps_many (N QPs,
default 2048, created in four batches, connected, one checked WRITE each, destroyed;
sib-memuse exits 0), write_bw_q64 (ib_write_bw -q 64 -s 65536: both sides exit 0, the
client reports 65536-byte results for all 64 x 20 iterations and a positive bandwidth),
read_bw_q4 (ib_read_bw -q 4 -s 65536, the same checks for 4 x 20 iterations) and, when DEV
has the counters, zero_copy (zero_copy_pkts grew by at least the full-MTU packets of the
write run's payload) and zero_copy_read (zero_copy_read_pkts grew by at least the full-MTU
response packets of the read run).  --list prints the names (zero_copy* only on softib
devices, DEV sib*) and exits.  Exit status 0 iff all ok.
USAGE
}
DEV=sib0 ADDR=10.0.2.15 RESULTS=/dev/null NQP=2048 ITERS=20 PORT=18530 LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--dev) DEV=${2:?}; shift 2 ;;
	--addr) ADDR=${2:?}; shift 2 ;;
	--qps) NQP=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "scale.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$HERE/../..
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
# the zero-copy counters are softib's (zcopy below reports nothing without them)
if [[ $DEV == sib* ]]; then cases qps_many write_bw_q64 zero_copy read_bw_q4 zero_copy_read
else cases qps_many write_bw_q64 read_bw_q4; fi
OUT=$(mktemp -d /tmp/scale.XXXXXX)
zc_counter() { counter "$DEV" "$1" ""; }
GID=$("$REPO/tools/roce-gid-index" --addr "$ADDR" "$DEV")
MTU=$(ibv_devinfo -d "$DEV" | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' | head -1)

echo "== sib-memuse -d $DEV -g $GID -q $NQP"
rc=0; timeout -s KILL 600 "$REPO/tools/perf/sib-memuse" -d "$DEV" -g "$GID" -q "$NQP" \
	>"$OUT/memuse" 2>&1 || rc=$?
cat "$OUT/memuse"
if ((rc == 0)) && grep -q "^qp_used $DEV $NQP QPs connected" "$OUT/memuse"; then
	result qps_many ok "$NQP QPs used; $(grep '^qp_bytes' "$OUT/memuse" | cut -d' ' -f3-6) bytes/QP"
else
	result qps_many FAIL "sib-memuse exit $rc: $(tail -1 "$OUT/memuse")"
fi

# bw NAME TEST QPS: perftest server and client, both exits, iterations and bandwidth checked
bw() {
	local name=$1 t=$2 q=$3 spid crc src b it bw why="" i try
	# a complete run whose figure perftest's clock spoiled (perftest_clock_lost) runs again
	for try in 1 2; do
		PORT=$((PORT + 1))
		echo "== $t -q $q -s 65536 -n $ITERS"
		timeout -s KILL 300 "$t" -d "$DEV" -x "$GID" -F -p $PORT -q "$q" -s 65536 -n $ITERS \
			--report_gbits >"$OUT/server" 2>&1 &
		spid=$!
		wait_listen $PORT $spid "" 150 || true
		crc=0; timeout -s KILL 300 "$t" -d "$DEV" -x "$GID" -F -p $PORT -q "$q" -s 65536 -n $ITERS \
			--report_gbits "$ADDR" >"$OUT/client" 2>&1 || crc=$?
		src=0; wait $spid || src=$?
		sed 's/^/   /' "$OUT/client"
		((src == 0 && crc == 0 && try == 1)) && perftest_clock_lost "$OUT/client" $((q * ITERS)) || break
		echo "== $t: 0 Gb/s after a complete run (perftest's clock), running it again"
	done
	read -r b it _ bw _ <<<"$(awk '$1 == 65536 && NF >= 5 { print; exit }' "$OUT/client")" || true
	((src == 0)) || why+=" server exit $src;"
	((crc == 0)) || why+=" client exit $crc;"
	[[ ${b:-} == 65536 && ${it:-} == $((q * ITERS)) ]] ||
		why+=" client reports ${it:-no} iterations of ${b:-?} B, not $((q * ITERS));"
	[[ ${bw:-} =~ ^[0-9.]+$ ]] && awk -v v="$bw" 'BEGIN { exit !(v > 0) }' || why+=" no positive bandwidth;"
	if [[ -z $why ]]; then result "$name" ok "$bw Gb/s"; else why=${why# }; result "$name" FAIL "${why%;}"; fi
}
# zcopy NAME COUNTER BEFORE AFTER QPS: the counter grew by the full-MTU packets of QPS x ITERS x 64 KiB
zcopy() {
	local want
	[[ -n $3 && -n $4 ]] || return 0
	want=$(( $5 * ITERS * 65536 / ${MTU:-4096} ))
	if (( $4 - $3 >= want )); then
		result "$1" ok "$2 +$(($4 - $3)) (>= $want)"
	else
		result "$1" FAIL "$2 +$(($4 - $3)), want >= $want"
	fi
}

z0=$(zc_counter zero_copy_pkts)
bw write_bw_q64 ib_write_bw 64
z1=$(zc_counter zero_copy_pkts)
# every full-MTU packet of the 64 x ITERS x 64 KiB payload is big enough for fragments
zcopy zero_copy zero_copy_pkts "$z0" "$z1" 64

r0=$(zc_counter zero_copy_read_pkts)
bw read_bw_q4 ib_read_bw 4
r1=$(zc_counter zero_copy_read_pkts)
zcopy zero_copy_read zero_copy_read_pkts "$r0" "$r1" 4
echo "scale: $nok ok, $nfail failed on $DEV"
tl_status
