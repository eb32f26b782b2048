#!/bin/bash
# srq.sh: run rdma-core's SRQ, UC and XRC example programs (ibv_srq_pingpong,
# ibv_uc_pingpong, ibv_xsrq_pingpong) unchanged over one RDMA device, server and client in
# the same host.  Meant to run inside a tools/vm-run guest.
set -euo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/srq.sh [--dev DEV] [--addr IP] [--results FILE] [--list] [TEST...]

TESTs (default: all): srq_pingpong srq_pingpong_big srq_pingpong_events uc_pingpong
uc_pingpong_big xsrq_pingpong xsrq_pingpong_big.  Every test gets a line
"RESULT <name> ok|FAIL <detail>" (also appended to FILE with --results): ok when both sides
exit 0 and print the expected byte and iteration counts (xsrq: "success" from both sides);
the programs that have --chk run with it.  Exit status 0 iff all ok.
USAGE
}
DEV=sib0 ADDR=10.0.2.15 RESULTS=/dev/null LIST=0 TMO=${PROGRAM_TIMEOUT:-120} tests=()
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--dev) DEV=${2:?}; shift 2 ;;
	--addr) ADDR=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	-*) echo "srq.sh: unknown argument $1" >&2; exit 2 ;;
	*) tests+=("$1"); shift ;;
	esac
done
((${#tests[@]})) || tests=(srq_pingpong srq_pingpong_big srq_pingpong_events uc_pingpong
			   uc_pingpong_big xsrq_pingpong xsrq_pingpong_big)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
cases "${tests[@]}"
OUT=$(mktemp -d /tmp/srq.XXXXXX)
PORT=18515

# pair NAME SERVER-ARGS... -- CLIENT-EXTRA-ARGS...: sets src, crc
pair() {
	local name=$1; shift
	local sargs=() cargs=()
	while (($#)) && [[ $1 != -- ]]; do sargs+=("$1"); shift; done
	(($#)) && shift
	cargs=("${sargs[@]}" "$@" "$ADDR")
	echo "== $name"
	echo "\$ ${sargs[*]} &"
	echo "\$ ${cargs[*]}"
	timeout -s KILL "$TMO" "${sargs[@]}" >"$OUT/$name.server" 2>&1 &
	local spid=$!
	wait_listen $PORT $spid "" 100 || echo "(server not listening on TCP port $PORT)" >>"$OUT/$name.server"
	crc=0; timeout -s KILL "$TMO" "${cargs[@]}" >"$OUT/$name.client" 2>&1 || crc=$?
	src=0; wait $spid || src=$?
	echo "-- server (exit $src):"; sed 's/^/   /' "$OUT/$name.server" | grep -v 'address:' || true
	echo "-- client (exit $crc):"; sed 's/^/   /' "$OUT/$name.client" | grep -v 'address:' || true
}
# check NAME PATTERN...: both sides exit 0 and print every PATTERN (a line prefix)
check() {
	local name=$1 side p why=""; shift
	((src == 0)) || why+=" server exit $src;"
	((crc == 0)) || why+=" client exit $crc;"
	for side in server client; do
		for p in "$@"; do
			grep -q "^$p" "$OUT/$name.$side" || why+=" $side did not print '$p';"
		done
	done
	if [[ -z $why ]]; then
		result "$name" ok "$(grep -m1 ' bytes in ' "$OUT/$name.client" | sed 's/.*= //')"
	else
		why=${why# }; result "$name" FAIL "${why%;}"
	fi
}

GID=$("$HERE/../../tools/roce-gid-index" "$DEV") || { echo "srq.sh: no RoCE v2 IPv4 GID on $DEV" >&2; exit 2; }
for t in "${tests[@]}"; do
	case $t in
	srq_pingpong)	# 16 QPs on one SRQ, 4 KiB messages, data checked
		pair "$t" ibv_srq_pingpong -d "$DEV" -g "$GID" -n 200 --chk
		check "$t" "1638400 bytes in " "200 iters in " ;;
	srq_pingpong_big)	# multi-packet messages of an odd size, few receives posted
		pair "$t" ibv_srq_pingpong -d "$DEV" -g "$GID" -q 4 -r 8 -s 10007 -m 1024 -n 100 --chk
		check "$t" "2001400 bytes in " "100 iters in " ;;
	srq_pingpong_events)	# completion events instead of polling
		pair "$t" ibv_srq_pingpong -d "$DEV" -g "$GID" -q 8 -n 100 -e --chk
		check "$t" "819200 bytes in " "100 iters in " ;;
	uc_pingpong)
		pair "$t" ibv_uc_pingpong -d "$DEV" -g "$GID" -n 200 --chk
		check "$t" "1638400 bytes in " "200 iters in " ;;
	uc_pingpong_big)	# multi-packet UC messages
		pair "$t" ibv_uc_pingpong -d "$DEV" -g "$GID" -s 10007 -m 1024 -n 100 --chk
		check "$t" "2001400 bytes in " "100 iters in " ;;
	xsrq_pingpong)	# XRC: INI QP -> XRC SRQ through a TGT QP; ibv_xsrq_pingpong has no --chk
		pair "$t" ibv_xsrq_pingpong -d "$DEV" -g "$GID" -n 50
		check "$t" "success" ;;
	xsrq_pingpong_big)
		pair "$t" ibv_xsrq_pingpong -d "$DEV" -g "$GID" -s 10007 -m 1024 -n 20
		check "$t" "success" ;;
	*) echo "srq.sh: unknown test $t" >&2; exit 2 ;;
	esac
done
rm -rf "$OUT"
echo "srq.sh: $nok ok, $nfail failed"
tl_status
