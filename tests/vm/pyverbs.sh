#!/bin/bash
# pyverbs.sh: run rdma-core's python test suite (Debian's python3-pyverbs ships it in
# /usr/share/doc/rdma-core/tests, partly gzipped) against one RDMA device, one process per
# test module so that a crash or a hang costs one module, not the suite.
set -euo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/pyverbs.sh [--dev DEV] [--out DIR] [--timeout SEC] [--batch REGEX]
                           [--batch-timeout SEC] [--hugepages N] [--select FILE]
                           [--exclude REGEX] [--list] [MODULE...]

Copies the suite to a temporary directory, gunzips it and runs
  /usr/bin/python3 run_tests.py --dev DEV -v tests.MODULE
for every test_*.py module (or the MODULEs given, e.g. test_cq), with a per-module timeout
(default 600 s).  The verbose output of module M goes to DIR/M.log and its exit status to
DIR/M.rc (124/137: timeout).  tests/pyverbs-report turns DIR into per-test results.
Modules matching --batch (default: the vendor-only ones, '^test_(mlx5|efa)', which skip on
other devices) run together in one process, logged as DIR/vendor_batch.log, to save the
interpreter start-ups, with their own timeout (--batch-timeout, default: --timeout).
--exclude REGEX leaves out the modules it matches (e.g. '^test_(mlx5|efa)': the vendor
modules skip on every device but their vendor's, whatever the kernel).
--select FILE runs only the tests listed in FILE (unittest ids such as
tests.test_qp.QPTest.test_query_rc_qp, one per line, '#' comments), all in one process
logged as DIR/<FILE's name>.log.
Before the run it reserves N 2 MiB huge pages (default 64, i.e. 128 MiB; 0 leaves the
setting alone) so that the suite's huge-page tests run instead of skipping; it fails
when fewer than N could be reserved, and says so when the kernel has no huge pages at all
(the debug kernel: CONFIG_HUGETLBFS is off, see tests/kconfig-compare).
--list prints the runs the other options select, one a line, each the name of its DIR/NAME.log
(the suite's own tests are listed by tests/pyverbs-report from those logs), and exits.
USAGE
}
DEV=sib0 OUT=build/check/pyverbs TMO=600 BTMO="" mods=() BATCH="^test_(mlx5|efa)" HUGE=64 SELECT="" EXCL="" LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--dev) DEV=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--timeout) TMO=${2:?}; shift 2 ;;
	--batch) BATCH=${2:?}; shift 2 ;;
	--batch-timeout) BTMO=${2:?}; shift 2 ;;
	--select) SELECT=$(realpath "${2:?}"); shift 2 ;;
	--exclude) EXCL=${2:?}; shift 2 ;;
	--hugepages) HUGE=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	-*) echo "pyverbs.sh: unknown option $1" >&2; exit 2 ;;
	*) mods+=("${1%.py}"); shift ;;
	esac
done
SRC=/usr/share/doc/rdma-core/tests
[[ -f $SRC/run_tests.py ]] || { echo "pyverbs.sh: $SRC/run_tests.py missing (install python3-pyverbs)" >&2; exit 2; }
# runs MODULE... (default: every test_*.py module): the modules on their own, the --batch ones
# together as vendor_batch; sets runs and batch
plan() {
	local m
	if ((${#mods[@]} == 0)); then
		mapfile -t mods < <(cd "$1" && ls test_*.py test_*.py.gz 2>/dev/null | sed 's/\.gz$//; s/\.py$//' | sort -u)
	fi
	runs=() batch=()
	for m in "${mods[@]}"; do
		if [[ -n $EXCL && $m =~ $EXCL ]]; then ((LIST)) || echo "  $m: left out (--exclude)"; continue; fi
		if [[ -n $BATCH && $m =~ $BATCH ]]; then batch+=("tests.$m"); else runs+=("$m"); fi
	done
	((${#batch[@]})) && runs+=(vendor_batch)
	return 0
}
if ((LIST)); then
	if [[ -n $SELECT ]]; then name=$(basename "$SELECT"); echo "${name%.*}"
	else plan "$SRC"; printf '%s\n' "${runs[@]}"; fi
	exit 0
fi
mkdir -p "$OUT"
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if ((HUGE > 0)) && [[ ! -e $hp ]]; then
	echo "pyverbs.sh: this kernel has no 2 MiB huge pages (CONFIG_HUGETLBFS off): huge-page tests skip"
elif ((HUGE > 0)); then
	echo "$HUGE" >"$hp"
	got=$(cat "$hp")
	((got >= HUGE)) || { echo "pyverbs.sh: only $got of $HUGE huge pages reserved" >&2; exit 2; }
	echo "pyverbs.sh: $got huge pages of 2 MiB reserved"
fi
rm -f "$OUT"/*.log "$OUT"/*.rc
T=$(mktemp -d /tmp/rdma-tests.XXXXXX)
cp -r "$SRC" "$T/tests"
find "$T/tests" -name '*.gz' -exec gunzip -f {} +
if [[ -n $SELECT ]]; then
	mapfile -t sel < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$SELECT")
	name=$(basename "$SELECT"); name=${name%.*}
	echo "pyverbs.sh: ${#sel[@]} tests of $SELECT on $DEV in one process, log $OUT/$name.log"
	start=$SECONDS rc=0
	(cd "$T/tests" && timeout -k 10 "$TMO" /usr/bin/python3 run_tests.py --dev "$DEV" -v "${sel[@]}") \
		>"$OUT/$name.log" 2>&1 </dev/null || rc=$?
	echo "$rc" >"$OUT/$name.rc"
	last=$(grep -E '^(OK|FAILED)' "$OUT/$name.log" | tail -1 || true)
	printf '  %-28s exit %-3s %4ss  %s\n' "$name" "$rc" $((SECONDS - start)) "${last:-(no unittest summary)}"
	rm -rf "$T"
	exit 0
fi
((${#mods[@]})) || mapfile -t mods < <(cd "$T/tests" && ls test_*.py | sed 's/\.py$//' | sort)
echo "pyverbs.sh: ${#mods[@]} modules on $DEV, logs in $OUT"
plan "$T/tests"
for m in "${runs[@]}"; do
	start=$SECONDS
	rc=0
	tmo=$TMO
	if [[ $m == vendor_batch ]]; then names=("${batch[@]}") tmo=${BTMO:-$TMO}; else names=("tests.$m"); fi
	(cd "$T/tests" && timeout -k 10 "$tmo" /usr/bin/python3 run_tests.py --dev "$DEV" -v "${names[@]}") \
		>"$OUT/$m.log" 2>&1 </dev/null || rc=$?
	echo "$rc" >"$OUT/$m.rc"
	last=$(grep -E '^(OK|FAILED)' "$OUT/$m.log" | tail -1 || true)
	printf '  %-28s exit %-3s %4ss  %s\n' "$m" "$rc" $((SECONDS - start)) "${last:-(no unittest summary)}"
done
rm -rf "$T"
