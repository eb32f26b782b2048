#!/bin/bash
# doorbell.sh: softib's send doorbells (the doorbell file /dev/softib_db of softib_db.ko,
# the ioctl method SIB_METHOD_QP_DOORBELL and the zero-WR post_send command,
# include/uapi/rdma/softib-abi.h). Meant to run inside a tools/vm-run guest with softib
# and softib_db loaded (sib0 on eth0).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/doorbell.sh [--ko FILE] [--bound SEC] [--results FILE] [--bench N] [--list]

Prints "RESULT doorbell_<case> ok|FAIL <detail>" per case (also appended to FILE):
  provider_uses_file, provider_uses_ioctl, ring_valid, bogus_handle, cq_handle,
  other_context, file_unbound, file_bind_bad_fd, file_ring_valid, file_bogus_qpn,
  file_qpn_too_big, file_other_context, file_init_qp, file_bind_busy, file_after_close,
  file_closed_first, file_ring_teardown, file_lazy, file_emfile, forced_write, ring_write, dup_after_close
                       tests/doorbell/sib-doorbell cases on sib0 (see there)
  rc_pingpong          unmodified ibv_rc_pingpong: every doorbell is a doorbell file one
  rc_pingpong_ioctl    the same with SOFTIB_DOORBELL=ioctl: every doorbell an ioctl one
  rc_pingpong_write    the same with SOFTIB_DOORBELL=write: neither kind, it works
  link_delete          a process holds QPs on a device over a veth; rdma link delete
                       returns within the bound; then its ioctl and write doorbells and
                       ibv_post_send fail with EIO, its doorbell file with ENOTCONN (a
                       thread of it rings the file all along: only ENOENT, EINVAL or
                       ENOTCONN), and it exits cleanly; before the removal, rmmod
                       softib_db must fail (a file is bound)
  rmmod                the same with rmmod softib (the doorbells pin nothing: rmmod
                       succeeds while the process holds the device and a bound doorbell
                       file); softib is loaded again with sib0 on eth0 at the end
Then the cost of one doorbell of each kind (sib-doorbell bench, --bench N calls, default
2000; printed, not judged). Exit status 0 iff all cases are ok.
--ko: the softib.ko to insmod again (default \$VM_SOFTIB_KO, else ./softib.ko).
--list prints the case names (doorbell_<case>) and exits.
USAGE
}
KO=${VM_SOFTIB_KO:-$PWD/softib.ko} BOUND=60 RESULTS=/dev/null BENCH=2000 LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--ko) KO=${2:?}; shift 2 ;;
	--bound) BOUND=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--bench) BENCH=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "doorbell.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../../tools
DB=$HERE/../doorbell/sib-doorbell
TL_PREFIX=doorbell_
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
# the cases of sib-doorbell (its "cases" command, listed by sib-doorbell --list), then this
# script's own
[[ -x $DB ]] || { echo "doorbell.sh: $DB not built (make doorbell)" >&2; exit 2; }
mapfile -t DB_CASES < <("$DB" --list)
((${#DB_CASES[@]})) || { echo "doorbell.sh: $DB --list listed nothing" >&2; exit 2; }
cases "${DB_CASES[@]}" rc_pingpong rc_pingpong_ioctl rc_pingpong_write link_delete rmmod
OUT=$(mktemp -d /tmp/doorbell.XXXXXX)
NIC=eth0 NICADDR=10.0.2.15 VA=10.78.0.1

gid() { "$TOOLS/roce-gid-index" --addr "$2" "$1"; }
cnt() { counter "$1" "$2"; }

g=$(gid sib0 $NICADDR)
# ---------------------------------------------------------------- sib-doorbell cases
"$DB" -d sib0 -g "$g" cases >"$OUT/cases" 2>&1
grep -v "^RESULT" "$OUT/cases"
for c in "${DB_CASES[@]}"; do
	r=$(grep "^RESULT doorbell_$c " "$OUT/cases" | head -1)
	if [[ -n $r ]]; then
		read -r _ _ st detail <<<"$r"
		result "$c" "$st" "$detail"
	else
		result "$c" FAIL "no result (sib-doorbell: $(tail -1 "$OUT/cases"))"
	fi
done

# ---------------------------------------------------------------- unmodified programs
# pingpong [ENV...]: ibv_rc_pingpong server + client on sib0; sets pp_rc, d_db, d_dbi, d_dbf
pingpong() {
	local s c port=$((18700 + RANDOM % 100)) db0 dbi0 dbf0
	db0=$(cnt sib0 sq_doorbells) dbi0=$(cnt sib0 sq_doorbells_ioctl)
	dbf0=$(cnt sib0 sq_doorbells_file)
	env "$@" ibv_rc_pingpong -d sib0 -g "$g" -p $port -n 200 >"$OUT/pp.s" 2>&1 & s=$!
	wait_listen $port $s
	env "$@" timeout 120 ibv_rc_pingpong -d sib0 -g "$g" -p $port -n 200 $NICADDR >"$OUT/pp.c" 2>&1
	pp_rc=$?
	wait $s || pp_rc=$((pp_rc ? pp_rc : 1))
	d_db=$(($(cnt sib0 sq_doorbells) - db0)) d_dbi=$(($(cnt sib0 sq_doorbells_ioctl) - dbi0))
	d_dbf=$(($(cnt sib0 sq_doorbells_file) - dbf0))
	grep -h "iters in" "$OUT/pp.c" || tail -3 "$OUT/pp.s" "$OUT/pp.c"
}
pingpong
d="exit $pp_rc, sq_doorbells +$d_db, sq_doorbells_file +$d_dbf, sq_doorbells_ioctl +$d_dbi"
((pp_rc == 0 && d_db > 0 && d_dbf == d_db && d_dbi == 0)) && result rc_pingpong ok "$d" ||
	result rc_pingpong FAIL "$d"
pingpong SOFTIB_DOORBELL=ioctl
d="SOFTIB_DOORBELL=ioctl: exit $pp_rc, sq_doorbells +$d_db, sq_doorbells_ioctl +$d_dbi, sq_doorbells_file +$d_dbf"
((pp_rc == 0 && d_db > 0 && d_dbi == d_db && d_dbf == 0)) && result rc_pingpong_ioctl ok "$d" ||
	result rc_pingpong_ioctl FAIL "$d"
pingpong SOFTIB_DOORBELL=write
d="SOFTIB_DOORBELL=write: exit $pp_rc, sq_doorbells +$d_db, sq_doorbells_ioctl +$d_dbi, sq_doorbells_file +$d_dbf"
((pp_rc == 0 && d_db > 0 && d_dbi == 0 && d_dbf == 0)) && result rc_pingpong_write ok "$d" ||
	result rc_pingpong_write FAIL "$d"

# ---------------------------------------------------------------- the device taken away
# removal NAME CMD...: sib-doorbell hold on sibdb (veth dbv0), then CMD; the process must
# then see EIO from both doorbells and ibv_post_send and exit 0
removal() {
	local name=$1 why="" detail="" pid t0 t1 rc st line; shift
	ip link add dbv0 type veth peer name dbv1 && ip addr add $VA/24 dev dbv0 &&
		ip link set dbv0 up && ip link set dbv1 up &&
		rdma link add sibdb type softib netdev dbv0 && wait_gid sibdb $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		rm -f "$OUT/hold.fifo"; mkfifo "$OUT/hold.fifo"
		"$DB" -d sibdb -g "$(gid sibdb $VA)" hold <"$OUT/hold.fifo" >"$OUT/hold" 2>&1 & pid=$!
		exec {w}>"$OUT/hold.fifo"
		for _ in $(seq 300); do grep -q READY "$OUT/hold" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		if grep -q READY "$OUT/hold"; then
			# a bound doorbell file holds softib_db
			if [[ -d /sys/module/softib_db ]] && rmmod softib_db 2>/dev/null; then
				why+=" rmmod softib_db succeeded while a file was bound;"
			fi
			t0=$(date +%s.%N)
			timeout "$BOUND" "$@"; rc=$?
			t1=$(date +%s.%N)
			detail+=" $* rc $rc in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }')s;"
			((rc == 0)) || why+=" '$*' failed or hung;"
			[[ -e /sys/class/infiniband/sibdb ]] && why+=" sibdb still there;"
		else
			why+=" sib-doorbell hold did not get ready: $(tail -1 "$OUT/hold");"
		fi
		echo go >&$w; exec {w}>&-
		st=0
		for _ in $(seq $((BOUND * 10))); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		if kill -0 $pid 2>/dev/null; then
			why+=" sib-doorbell hung;"; kill -9 $pid
		fi
		wait $pid || st=$?
		line=$(grep "^RESULT doorbell_after_removal" "$OUT/hold")
		detail+=" ${line#RESULT doorbell_after_removal } exit $st;"
		[[ $line == "RESULT doorbell_after_removal ok"* && $st == 0 ]] || why+=" process side: $(tail -2 "$OUT/hold" | tr '\n' ' ');"
	fi
	rdma link delete sibdb 2>/dev/null
	ip link delete dbv0 2>/dev/null
	if [[ -z $why ]]; then result "$name" ok "$detail"; else result "$name" FAIL "$why$detail"; fi
}
removal link_delete rdma link delete sibdb
removal rmmod rmmod softib
[[ -d /sys/module/softib ]] || insmod "$KO" || echo "doorbell.sh: insmod $KO failed"
[[ -e /sys/class/infiniband/sib0 ]] || rdma link add sib0 type softib netdev $NIC

# ---------------------------------------------------------------- cost (printed only)
wait_gid sib0 $NICADDR && "$DB" -d sib0 -g "$(gid sib0 $NICADDR)" bench "$BENCH"

rm -rf "$OUT"
echo "doorbell: $nok/$((nok + nfail)) ok: ${TL_DONE[*]}"
tl_status
