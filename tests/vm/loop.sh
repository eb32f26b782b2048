#!/bin/bash
# loop.sh: the same-device loopback fast path (kernel/loop.c) over one softib device: it is
# taken (the loopback_direct counter rises by the messages sent), data and completions are
# right, and the cases the responder refuses (RNR, a bad R_Key, a too long SEND) end as on
# the packet path.  Meant to run inside a tools/vm-run guest.
set -euo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/loop.sh [--dev DEV] [--results FILE] [--iters N] [--no-dmabuf] [--list]

Results ("RESULT <name> ok|FAIL <detail>", also appended to FILE with --results):
  loop_data       tests/loop/loop-check: N one-packet SEND / SEND+imm / inline SEND / WRITE /
                  WRITE+imm of 1..1024 B between two QPs of DEV, both ways, one at a time;
                  every byte and completion checked; loopback_direct must rise by >= N
  loop_rnr        a SEND before its receive (rnr_retry 7) arrives; rnr_nak_sent rises
  loop_rnr_exc    the same with rnr_retry 0: IBV_WC_RNR_RETRY_EXC_ERR
  loop_bad_rkey   a WRITE with a wrong R_Key: IBV_WC_REM_ACCESS_ERR, target untouched
  loop_too_long   a SEND longer than the receive: REM_INV_REQ_ERR / LOC_LEN_ERR
  loop_pingpong   ibv_rc_pingpong -s 512 -n 500 --chk (two processes); loopback_direct
                  rises by >= 500
  loop_send_lat   ib_send_lat -s 2 -n 1000 (two processes); loopback_direct rises by >= 1000
  loop_write_lat  ib_write_lat -s 2 -n 1000; loopback_direct rises by >= 1000
  loop_odp_*      tests/odp/sib-odp: on-demand paging MRs between two QPs of DEV, one
                  result per case (first touch, madvise DONTNEED, munmap, fork, atomics,
                  SEND/receive, implicit MR, its R_Key on unmapped and kernel addresses, a
                  DONTNEED storm under traffic, advise_mr)
  loop_dmabuf_*   tests/dmabuf/sib-dmabuf: MRs on dma-bufs that vgem exports (modprobe vgem)
                  and the system dma-buf heap where the kernel has one (6.12, the debug
                  kernel), one result per case (WRITE/READ, local SGEs, atomics, an MR inside
                  a page, bounds, the fd closed after registration, bad input); not with
                  --no-dmabuf (a kernel with neither: the caller reports them skipped)
  loop_raw_*      tests/raw/sib-raw-check: raw packet QPs, flow steering and RSS, one result
                  per case (a group frame looped to another QP's rule, priorities, a rule
                  taking ping's replies from the stack and DONT_TRAP sharing them, frames
                  too short or too long, SEND_WITH_IMM, bad rules, bad WQs and RSS hashes,
                  no CAP_NET_RAW)
  loop_tm_*       tests/tm/sib-tm-check: tag matching between two RC QPs of DEV, the server
                  on a TM SRQ, one result per case (a tag under its mask, a deleted tag,
                  messages without a header or tag, a rendezvous whose READ is refused and
                  one larger than its buffer, bad TM SRQs, QPs and operations)
Exit status 0 iff all ok.
USAGE
}
DEV=sib0 RESULTS=/dev/null ITERS=2000 LIST=0 DMABUF=1 TMO=${PROGRAM_TIMEOUT:-180}
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--list) LIST=1; shift ;;
	--dev) DEV=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--iters) ITERS=${2:?}; shift 2 ;;
	--no-dmabuf) DMABUF=0; shift ;;
	*) echo "loop.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../../tools
CHECK=$HERE/../loop/loop-check
ODP=$HERE/../odp/sib-odp
DMABUFT=$HERE/../dmabuf/sib-dmabuf
RAWT=$HERE/../raw/sib-raw-check
TMT=$HERE/../tm/sib-tm-check
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
# the cases of loop-check (one process) and the two-process runs (pair below)
[[ -x $CHECK ]] || { echo "loop.sh: $CHECK not built (make loop)" >&2; exit 2; }
mapfile -t CHECK_CASES < <("$CHECK" --list)
((${#CHECK_CASES[@]})) || { echo "loop.sh: $CHECK --list listed nothing" >&2; exit 2; }
[[ -x $ODP ]] || { echo "loop.sh: $ODP not built (make loop)" >&2; exit 2; }
mapfile -t ODP_CASES < <("$ODP" --list)
((${#ODP_CASES[@]})) || { echo "loop.sh: $ODP --list listed nothing" >&2; exit 2; }
DMABUF_CASES=()
if ((DMABUF)); then
	[[ -x $DMABUFT ]] || { echo "loop.sh: $DMABUFT not built (make loop)" >&2; exit 2; }
	mapfile -t DMABUF_CASES < <("$DMABUFT" --list)
	((${#DMABUF_CASES[@]})) || { echo "loop.sh: $DMABUFT --list listed nothing" >&2; exit 2; }
fi
mapfile -t RAW_CASES < <("$RAWT" --list)
((${#RAW_CASES[@]})) || { echo "loop.sh: $RAWT --list listed nothing" >&2; exit 2; }
mapfile -t TM_CASES < <("$TMT" --list)
((${#TM_CASES[@]})) || { echo "loop.sh: $TMT --list listed nothing" >&2; exit 2; }
PAIRS=(loop_pingpong loop_send_lat loop_write_lat)
cases "${CHECK_CASES[@]/#/loop_}" "${PAIRS[@]}" "${ODP_CASES[@]/#/loop_odp_}" \
	"${DMABUF_CASES[@]/#/loop_dmabuf_}" "${RAW_CASES[@]/#/loop_raw_}" "${TM_CASES[@]/#/loop_tm_}"
OUT=$(mktemp -d /tmp/loop.XXXXXX)
PORT=18700

cnt() { counter "$DEV" "$1"; }
GID=$("$TOOLS/roce-gid-index" "$DEV")

# loop-check: one process, two QPs
d0=$(cnt loopback_direct) r0=$(cnt rnr_nak_sent)
rc=0; timeout -s KILL "$TMO" "$CHECK" -d "$DEV" -g "$GID" -n "$ITERS" >"$OUT/check" 2>&1 || rc=$?
cat "$OUT/check"
d=$(($(cnt loopback_direct) - d0)) r=$(($(cnt rnr_nak_sent) - r0))
for c in "${CHECK_CASES[@]}"; do
	line=$(grep "^CASE $c " "$OUT/check" || true)
	read -r _ _ st detail <<<"$line" || true
	why=""
	[[ ${st:-} == ok ]] || why="${detail:-no result (exit $rc)}"
	[[ $c == data && -z $why ]] && ((d < ITERS)) && why="loopback_direct +$d, not >= $ITERS"
	[[ $c == rnr && -z $why ]] && ((r < 1)) && why="rnr_nak_sent +$r"
	if [[ -z $why ]]; then
		case $c in
		data) result "loop_$c" ok "$ITERS messages checked, loopback_direct +$d" ;;
		rnr) result "loop_$c" ok "rnr_nak_sent +$r" ;;
		*) result "loop_$c" ok ;;
		esac
	else
		result "loop_$c" FAIL "$why"
	fi
done

# two processes: the nested runs hand requests to each other
pair() { # NAME MIN-DIRECT CHECK-REGEX ARGS...: server ARGS, client ARGS + address
	local name=$1 min=$2 re=$3 spid src=0 crc=0 d0 d why=""
	shift 3
	PORT=$((PORT + 1))
	d0=$(cnt loopback_direct)
	timeout -s KILL "$TMO" "$@" -p $PORT >"$OUT/$name.s" 2>&1 &
	spid=$!
	wait_listen $PORT "" "" 100 || true
	timeout -s KILL "$TMO" "$@" -p $PORT 10.0.2.15 >"$OUT/$name.c" 2>&1 || crc=$?
	wait $spid || src=$?
	d=$(($(cnt loopback_direct) - d0))
	echo "== $name: $* (server exit $src, client exit $crc, loopback_direct +$d)"
	tail -n 4 "$OUT/$name.c"
	((src == 0 && crc == 0)) || why="exit server $src client $crc; "
	grep -Eq "$re" "$OUT/$name.c" || why+="no result line /$re/; "
	((d >= min)) || why+="loopback_direct +$d, not >= $min"
	if [[ -z $why ]]; then result "$name" ok "loopback_direct +$d"
	else result "$name" FAIL "${why%; }"; fi
}
for p in "${PAIRS[@]}"; do
	case $p in
	loop_pingpong) pair "$p" 500 '^512000 bytes in ' \
		ibv_rc_pingpong -d "$DEV" -g "$GID" -s 512 -n 500 --chk ;;
	loop_send_lat) pair "$p" 1000 '^ 2 +1000 ' ib_send_lat -d "$DEV" -x "$GID" -F -s 2 -n 1000 ;;
	loop_write_lat) pair "$p" 1000 '^ 2 +1000 ' ib_write_lat -d "$DEV" -x "$GID" -F -s 2 -n 1000 ;;
	*) result "$p" FAIL "loop.sh: no such case" ;;
	esac
done

# program_results NAME RC CASE...: a result loop_NAME_CASE per case from the "CASE NAME_CASE
# ok|FAIL detail" lines of the program's output OUT/NAME (it exited with RC); a case without
# a line fails with the output's last line
program_results() {
	local name=$1 rc=$2 c line st detail; shift 2
	for c in "$@"; do
		line=$(grep "^CASE ${name}_$c " "$OUT/$name" || true)
		st="" detail=""
		read -r _ _ st detail <<<"$line" || true
		if [[ $st == ok ]]; then
			result "loop_${name}_$c" ok "$detail"
		else
			result "loop_${name}_$c" FAIL "${detail:-no result (exit $rc: $(tail -1 "$OUT/$name"))}"
		fi
	done
}

# sib-odp: one process, two QPs, ODP MRs
f0=$(cnt odp_page_faults)
rc=0; timeout -s KILL "$TMO" "$ODP" -d "$DEV" >"$OUT/odp" 2>&1 || rc=$?
cat "$OUT/odp"
f=$(($(cnt odp_page_faults) - f0))
program_results odp "$rc" "${ODP_CASES[@]}"
echo "loop: sib-odp exit $rc, odp_page_faults +$f"

# sib-dmabuf: one process, two QPs, MRs on dma-bufs of vgem and the system heap
if ((DMABUF)); then
	rc=0
	# vgem where the kernel has it (a module on Debian's kernels); the system heap
	# (/dev/dma_heap/system) where it is built in (6.12, the debug kernel): one is enough
	if modprobe vgem 2>"$OUT/vgem" || [[ -c /dev/dma_heap/system ]]; then
		timeout -s KILL "$TMO" "$DMABUFT" -d "$DEV" >"$OUT/dmabuf" 2>&1 || rc=$?
	else
		echo "no dma-buf exporter: modprobe vgem failed ($(head -1 "$OUT/vgem")), no /dev/dma_heap/system" >"$OUT/dmabuf"; rc=2
	fi
	cat "$OUT/dmabuf"
	program_results dmabuf "$rc" "${DMABUF_CASES[@]}"
	echo "loop: sib-dmabuf exit $rc"
fi

# sib-raw-check: raw packet QPs, flows and RSS on DEV's netdev
rc=0; timeout -s KILL "$TMO" "$RAWT" --dev "$DEV" >"$OUT/raw" 2>&1 || rc=$?
cat "$OUT/raw"
program_results raw "$rc" "${RAW_CASES[@]}"
echo "loop: sib-raw-check exit $rc"

# sib-tm-check: tag matching between two QPs of DEV
rc=0; timeout -s KILL "$TMO" "$TMT" --dev "$DEV" --gid "$GID" >"$OUT/tm" 2>&1 || rc=$?
cat "$OUT/tm"
program_results tm "$rc" "${TM_CASES[@]}"
echo "loop: sib-tm-check exit $rc"

rm -rf "$OUT"
echo "loop: $nok/$((nok + nfail)) ok on $DEV"
tl_status
