#!/bin/bash
# load.sh: run tools/load/sib-load (the verifying RC load tool) over one RDMA device in a few
# shapes and check that every byte and every completion was right.  Meant to run inside a
# tools/vm-run guest:  tools/vm-run -- tests/vm/load.sh
set -euo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/load.sh [--dev DEV] [--results FILE] [--seed N] [--quick] [--short] [--only NAME] [--list]

Runs sib-load in these configurations (all RC, both directions, all ops the device has):
  small     -q 1, sizes 0..4 KiB, depth 8, 2000 ops per QP
  sge       -q 2, sizes 0..64 KiB, 1..max_sge SGEs, one WR in 3 signaled, 400 ops per QP
  big       -q 4, sizes 0..4 MiB, depth 4, 40 ops per QP
  total64m  -q 4, sizes 0..1 MiB, until 64 MiB were posted
  rnr_wait  SENDs to receives posted 1 s late, rnr_retry 7 (infinite): all must arrive once
  rnr_wait_write_imm   the same with RDMA WRITEs with immediate
  rnr_exceeded    receives 3 s late, rnr_retry 1, one way: must end with IBV_WC_RNR_RETRY_EXC_ERR
  retry_exceeded  peer QPs moved to ERROR after 1 s: must end with IBV_WC_RETRY_EXC_ERR
--quick runs only small and sge; --short runs every case with a quarter of the ops or bytes
(small 500, sge 100, big 10 ops per QP, total64m only 16 MiB: the debug kernel).  Each gets "RESULT load_<name> ok|FAIL <detail>" (also
appended to FILE with --results): ok when sib-load exits 0 and its summary reports 0
mismatches, 0 lost, 0 duplicated, 0 unknown and 0 wrong completions and no error status (the
fault cases: exactly the expected status besides flush errors).
--seed N gives every run the same seed (default: sib-load picks one and prints it).
--list prints the names of the cases the other options select (load_<name>) and exits.
Exit status 0 iff all ok, 2 when --only names no case that the other options let run.
USAGE
}
DEV=sib0 RESULTS=/dev/null SEED="" QUICK=0 SHORT=0 ONLY="" LIST=0 TMO=${LOAD_TIMEOUT:-600}
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--dev) DEV=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--seed) SEED=${2:?}; shift 2 ;;
	--quick) QUICK=1; shift ;;
	--short) SHORT=1; shift ;;
	--only) ONLY=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "load.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOAD=$HERE/../../tools/load/sib-load
TL_PREFIX=load_
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
((LIST)) || [[ -x $LOAD ]] || { echo "load.sh: $LOAD not built (make -C tools/load)" >&2; exit 2; }
((LIST)) || OUT=$(mktemp -d /tmp/load.XXXXXX)
summary=()

# field NAME FILE: the first number on sib-load's summary line "NAME   <number> ..."
field() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

# run NAME [--expect STATUS] SIB-LOAD-ARGS...: with --expect, sib-load gets --expect-status
# STATUS and that status must show on its statuses line (besides it only flush errors); the
# run lines below are the case list (--list: each prints its name instead)
run() {
	local name=$1 f=${OUT:-}/$1 rc=0 why="" k v seed mbs expect="" st
	shift
	if [[ ${1:-} == --expect ]]; then expect=$2; shift 2; fi
	[[ -n $ONLY && $ONLY != "$name" ]] && return 0
	((QUICK)) && [[ $name != small && $name != sge ]] && return 0
	listing "$name" && return 0
	local args=(-d "$DEV" "$@" ${expect:+--expect-status "$expect"} ${SEED:+--seed "$SEED"})
	echo "== load_$name"
	echo "\$ sib-load ${args[*]}"
	timeout -s KILL "$TMO" "$LOAD" "${args[@]}" >"$f" 2>&1 || rc=$?
	cat "$f"
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
	seed=$(sed -n 's/^sib-load: seed \([0-9]*\).*/\1/p' "$f")
	mbs=$(awk '$1 == "elapsed" { print $4; exit }' "$f")
	if [[ -z $why ]]; then
		result "$name" ok "$(field bytes "$f") bytes, $(field ops "$f") ops, ${mbs:-?} MB/s, 0 mismatches/lost/dup${expect:+, $expect as expected}, seed ${seed:-?}"
		summary+=("$name ${mbs:-?} MB/s")
	else
		why=${why# }
		result "$name" FAIL "${why%;} (seed ${seed:-?})"
		summary+=("$name FAIL")
	fi
}
expect_name() { # the IBV_WC_* name sib-load prints for an --expect-status alias
	case $1 in
	retry-exceeded) echo IBV_WC_RETRY_EXC_ERR ;;
	rnr-retry-exceeded) echo IBV_WC_RNR_RETRY_EXC_ERR ;;
	*) echo "$1" ;;
	esac
}

# --short (the debug kernel, ~20x slower): the same shapes with a quarter of the ops/bytes
N_SMALL=2000 N_SGE=400 N_BIG=40 B_TOTAL=64M
((SHORT)) && N_SMALL=500 N_SGE=100 N_BIG=10 B_TOTAL=16M
run small -q 1 -M 4K -o 8 -n $N_SMALL
run sge -q 2 -M 64K -o 6 -n $N_SGE --signal-every 3
run big -q 4 -M 4M -o 4 -n $N_BIG
run total64m -q 4 -M 1M -o 4 -b $B_TOTAL
# RNR: receives posted 1 s late; infinite rnr_retry must deliver everything once
run rnr_wait -q 1 -M 4K -n 100 --ops-mix send,send_imm --recv-delay 1
run rnr_wait_write_imm -q 1 -M 4K -n 100 --ops-mix write_imm --recv-delay 1
# faults that must end with exactly the right status and nothing lost or duplicated
run rnr_exceeded --expect rnr-retry-exceeded -q 1 -M 4K -n 100 --ops-mix send,send_imm --one-way \
	--recv-delay 3 --rnr-retry 1 --min-rnr-timer 1
run retry_exceeded --expect retry-exceeded -q 2 -M 64K -t 20 --peer-error-after 1 \
	--ack-timeout 12 --retry-cnt 2
((LIST)) && exit 0
rm -rf "$OUT"
if [[ -n $ONLY ]] && ((nok + nfail == 0)); then
	echo "load.sh: --only $ONLY names no case run here (--list shows them)" >&2
	exit 2
fi
echo "load: $nok/$((nok + nfail)) ok on $DEV: ${summary[*]/%/,}" | sed 's/,$//'
tl_status
