#!/bin/bash
# lifecycle.sh: take softib devices away under running verbs traffic and check that
# everything ends in bounded time: `rdma link delete`, `ip link delete` of the netdev under
# the device, and `rmmod softib` with devices, with and without processes holding them.
# Meant to run inside a tools/vm-run guest with softib loaded (sib0 on eth0).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/lifecycle.sh [--ko FILE] [--bound SEC] [--results FILE] [--only NAME] [--list]

Cases (each prints "RESULT lifecycle_<name> ok|FAIL <detail>", also appended to FILE):
  port_events    ip link set down/up of the veth under a device: ibv_asyncwatch sees
                 IBV_EVENT_PORT_ERR / IBV_EVENT_PORT_ACTIVE, the port state follows
  link_delete    ib_write_bw (server and client) on a device over a veth; rdma link delete;
                 ibv_asyncwatch on the device sees IBV_EVENT_DEVICE_FATAL
  dm_gone        device memory and a zero-based MR on it held by a process (tests/dm-gone.py;
                 also bogus handles refused by an imported context: ENOENT) while
                 rdma link delete removes the device: the delete returns, the
                 process's mapping keeps its bytes, the process exits cleanly
  netdev_delete  ibv_rc_pingpong on a device over a veth; ip link delete of that veth
  netdev_delete_perftest  ib_write_bw -D 30 server and client on a device over a veth (their
                 out-of-band TCP over 127.0.0.1); ip link delete of the veth: both exit with
                 an error, well before their 30 s
  rmmod_idle     traffic killed, then rmmod softib with two devices; insmod again
  rmmod_live     sib-load and ibv_rc_pingpong running on two devices; rmmod softib
  limits_devinfo softib reloaded with small limits (module parameters): ibv_devinfo -v shows
                 them and max_res_rd_atom derived from max_qp; modinfo gives each a range
  limits_queue_size  queues of max_qp_wr, max_cqe, max_srq_wr entries created, one more
                 EINVAL, no *_limit_exceeded counted (tests/limits/sib-limits -q)
  limits_create  QPs, CQs, MRs, SRQs, PDs, AHs, MWs created up to each limit, the next
                 ENOMEM, one destroyed lets one more be created; <kind>_limit_exceeded
                 rises by the ENOMEM refusals exactly
  limits_bad_value  insmod with a value out of range or not of the right shape fails and
                 the kernel log names each; then reloaded with the defaults
  (--only limits runs the four)
Each removal must return within --bound seconds (default 60), the traffic processes must
exit with an error status within the bound (not hang, not be killed), the device must be
gone, and afterwards a new device on the same netdev must carry ibv_rc_pingpong.
At the end softib is loaded again with sib0 on eth0 (tools/vm-run unloads it).
--ko: the softib.ko to insmod again (default \$VM_SOFTIB_KO, else ./softib.ko).
--list prints the names of the cases --only selects (lifecycle_<name>) and exits.
Exit status 0 iff all cases are ok.
USAGE
}
KO=${VM_SOFTIB_KO:-$PWD/softib.ko} BOUND=60 RESULTS=/dev/null ONLY="" LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--ko) KO=${2:?}; shift 2 ;;
	--bound) BOUND=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--only) ONLY=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "lifecycle.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../../tools
TL_PREFIX=lifecycle_
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
want() { [[ -z $ONLY || $ONLY == "$1" ]]; }
# the cases, in the order they run below (--only limits* runs the four limits_* cases)
lc=()
for lcc in port_events link_delete dm_gone netdev_delete netdev_delete_perftest rmmod_idle rmmod_live; do
	want $lcc && lc+=("$lcc")
done
[[ -z $ONLY || $ONLY == limits* ]] && lc+=(limits_devinfo limits_queue_size limits_create limits_bad_value)
cases "${lc[@]}"
OUT=$(mktemp -d /tmp/lifecycle.XXXXXX)
NIC=eth0 NICADDR=10.0.2.15
VA=10.77.0.1 VB=10.77.0.2		# veth pair lcv0 (device side) / lcv1
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
gid() { "$TOOLS/roce-gid-index" --addr "$2" "$1"; }
veth_up() {
	ip link add lcv0 type veth peer name lcv1 || return 1
	ip addr add $VA/24 dev lcv0 && ip addr add $VB/24 dev lcv1 &&
		ip link set lcv0 up && ip link set lcv1 up
}
dev_gone() { [[ ! -e /sys/class/infiniband/$1 ]]; }
# wait_gid DEV ADDR: until the device has a RoCE v2 GID for ADDR (the GID cache fills async)
wait_gid() { gid_index "$1" "$2" >/dev/null || { echo "no RoCE v2 GID for $2 on $1"; return 1; }; }
# sent DEV: packets the device has sent so far
sent() { counter "$1" sent_pkts 0; }
# wait_traffic DEV: until the device's packet counter moves (traffic really runs)
wait_traffic() {
	local a b i
	a=$(sent "$1")
	for i in $(seq 300); do
		sleep 0.2
		b=$(sent "$1")
		((b > a + 200)) && return 0
	done
	echo "no traffic on $1 (sent_pkts $a -> $b)"; tail -n 5 "$OUT"/*.[scl] 2>/dev/null; return 1
}
# wait_exit PID NAME: PID must exit with a non-zero status within BOUND seconds; appends
# to $why otherwise. A process still running is killed (and the case fails).
wait_exit() {
	local pid=$1 name=$2 rc end=$((SECONDS + BOUND))
	while ((SECONDS < end)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		why+=" $name still running after ${BOUND}s (hangs);"
		kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		return
	fi
	rc=0; wait "$pid" || rc=$?
	if ((rc == 0)); then why+=" $name exited 0 (no error);"
	elif ((rc >= 128)); then why+=" $name killed by signal $((rc - 128));"
	else detail+=" $name exit $rc;"; fi
}
# timed CMD...: run CMD with a hard limit of BOUND seconds; sets t (seconds) and trc
timed() {
	local t0
	t0=$(now)
	trc=0; timeout -s KILL "$BOUND" "$@" >"$OUT/timed.out" 2>&1 || trc=$?
	t=$(secs "$t0" "$(now)")
	cat "$OUT/timed.out"
}
# usable DEV ADDR PORT: a fresh ibv_rc_pingpong over DEV works
usable() {
	local g s c rcs=0 rcc=0
	wait_gid "$1" "$2" || { why+=" new $1 has no GID;"; return; }
	g=$(gid "$1" "$2")
	timeout -s KILL 60 ibv_rc_pingpong -d "$1" -g "$g" -p "$3" -n 50 >"$OUT/u.s" 2>&1 &
	s=$!
	wait_listen "$3" $s
	timeout -s KILL 60 ibv_rc_pingpong -d "$1" -g "$g" -p "$3" -n 50 "$2" >"$OUT/u.c" 2>&1 || rcc=$?
	wait $s || rcs=$?
	if ((rcs || rcc)) || ! grep -q "^50 iters in" "$OUT/u.c"; then
		why+=" new $1 not usable (pingpong server $rcs client $rcc: $(tail -1 "$OUT/u.c"));"
	else
		detail+=" new $1 ok;"
	fi
}
finish() { # name
	if [[ -z $why ]]; then result "$1" ok "$detail"; else result "$1" FAIL "$why$detail"; fi
}
cleanup_procs() { kill -KILL "$@" 2>/dev/null; wait "$@" 2>/dev/null; }

port_state() { ibv_devinfo -d "$1" 2>/dev/null | awk '$1 == "state:" { print $2; exit }'; }
# wait_grep FILE PATTERN: until FILE has PATTERN, at most BOUND seconds
wait_grep() {
	local end=$((SECONDS + BOUND))
	while ((SECONDS < end)); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done
	return 1
}

# ---------------------------------------------------------------- port events
if want port_events; then
	echo "== port_events: ip link set lcv0 down / up under siblc, ibv_asyncwatch -d siblc"
	why="" detail=""
	veth_up && rdma link add siblc type softib netdev lcv0 && wait_gid siblc $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		stdbuf -oL ibv_asyncwatch -d siblc >"$OUT/pe.w" 2>&1 & w=$!
		wait_grep "$OUT/pe.w" "async event FD" || why+=" ibv_asyncwatch did not start;"
		ip link set lcv0 down
		wait_grep "$OUT/pe.w" IBV_EVENT_PORT_ERR || why+=" no IBV_EVENT_PORT_ERR;"
		st=$(port_state siblc); detail+=" down: $st;"
		[[ $st == PORT_DOWN ]] || why+=" port $st after link down;"
		ip link set lcv0 up
		wait_grep "$OUT/pe.w" IBV_EVENT_PORT_ACTIVE || why+=" no IBV_EVENT_PORT_ACTIVE;"
		st=$(port_state siblc); detail+=" up: $st;"
		[[ $st == PORT_ACTIVE ]] || why+=" port $st after link up;"
		cleanup_procs $w
		cat "$OUT/pe.w"
		rdma link delete siblc 2>/dev/null
	fi
	ip link delete lcv0 2>/dev/null
	finish port_events
fi

# ---------------------------------------------------------------- rdma link delete
if want link_delete; then
	echo "== link_delete: ib_write_bw on siblc (veth lcv0), then rdma link delete siblc"
	why="" detail=""
	veth_up && rdma link add siblc type softib netdev lcv0 && wait_gid siblc $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		g=$(gid siblc $VA)
		stdbuf -oL ibv_asyncwatch -d siblc >"$OUT/ld.w" 2>&1 & w=$!
		wait_grep "$OUT/ld.w" "async event FD" || why+=" ibv_asyncwatch did not start;"
		ib_write_bw -d siblc -x "$g" -p 18601 -s 65536 -D 600 >"$OUT/ld.s" 2>&1 & s=$!
		wait_listen 18601 $s
		ib_write_bw -d siblc -x "$g" -p 18601 -s 65536 -D 600 $VA >"$OUT/ld.c" 2>&1 & c=$!
		if wait_traffic siblc; then
			timed rdma link delete siblc
			detail+=" delete ${t}s rc $trc;"
			((trc == 0)) || why+=" rdma link delete failed or hung (rc $trc after ${t}s);"
			wait_exit $s ib_write_bw-server; wait_exit $c ib_write_bw-client
			# the async fd gets the event; it stays open (and blocks) until closed
			wait_grep "$OUT/ld.w" IBV_EVENT_DEVICE_FATAL || why+=" no IBV_EVENT_DEVICE_FATAL;"
			cleanup_procs $w
			dev_gone siblc || why+=" siblc still there;"
		else
			why+=" traffic did not start;"; cleanup_procs $s $c $w
		fi
		tail -n 2 "$OUT/ld.s" "$OUT/ld.c" "$OUT/ld.w"
		rdma link add siblc type softib netdev lcv0 || why+=" rdma link add again failed;"
		usable siblc $VA 18602
		rdma link delete siblc 2>/dev/null
	fi
	ip link delete lcv0 2>/dev/null
	finish link_delete
fi

# ---------------------------------------------------------------- device memory, device gone
if want dm_gone; then
	echo "== dm_gone: device memory and an MR on it held on siblc (veth lcv0), rdma link delete siblc"
	why="" detail=""
	veth_up && rdma link add siblc type softib netdev lcv0 && wait_gid siblc $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		rc=0
		timeout -s KILL "$BOUND" python3 -u "$HERE/../dm-gone.py" siblc >"$OUT/dm.o" 2>&1 || rc=$?
		cat "$OUT/dm.o"
		if ((rc == 0)) && grep -q '^dm-gone: ok' "$OUT/dm.o"; then
			detail+=" $(grep -m1 '^dm-gone: ok' "$OUT/dm.o" | cut -d' ' -f3-);"
		else
			why+=" dm-gone.py exit $rc: $(grep -m1 '^dm-gone: FAIL' "$OUT/dm.o");"
		fi
		dev_gone siblc || why+=" siblc still there;"
		rdma link add siblc type softib netdev lcv0 || why+=" rdma link add again failed;"
		usable siblc $VA 18606
		rdma link delete siblc 2>/dev/null
	fi
	ip link delete lcv0 2>/dev/null
	finish dm_gone
fi

# ---------------------------------------------------------------- ip link delete
# netdev_delete_under CASE PORT CLIENT-ADDR GID-OPTION PROG ARGS...: PROG ARGS (and GID-OPTION
# with siblc's GID index of $VA) as server and client (to CLIENT-ADDR) on siblc over lcv0, traffic flowing, then ip link delete lcv0: the delete
# returns, siblc goes, both processes exit with an error within the bound; then a new veth
# and device carry traffic
netdev_delete_under() {
	local name=$1 port=$2 caddr=$3 gopt=$4 g s c t0; shift 4
	echo "== $name: $* on siblc (veth lcv0), then ip link delete lcv0"
	why="" detail=""
	veth_up && rdma link add siblc type softib netdev lcv0 && wait_gid siblc $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		g=$(gid siblc $VA)
		"$@" -d siblc "$gopt" "$g" -p "$port" >"$OUT/$name.s" 2>&1 & s=$!
		wait_listen "$port" $s
		"$@" -d siblc "$gopt" "$g" -p "$port" "$caddr" >"$OUT/$name.c" 2>&1 & c=$!
		if wait_traffic siblc; then
			t0=$(now)
			timed ip link delete lcv0
			detail+=" ip link delete ${t}s rc $trc;"
			((trc == 0)) || why+=" ip link delete failed or hung (rc $trc after ${t}s);"
			end=$((SECONDS + BOUND))
			while ((SECONDS < end)) && ! dev_gone siblc; do sleep 0.2; done
			dev_gone siblc || why+=" siblc still there ${BOUND}s after its netdev went;"
			wait_exit $c "$1-client"; wait_exit $s "$1-server"
			detail+=" both gone $(secs "$t0" "$(now)")s after the delete;"
		else
			why+=" traffic did not start;"; cleanup_procs $s $c
		fi
		tail -n 2 "$OUT/$name.s" "$OUT/$name.c"
		ip link delete lcv0 2>/dev/null
		veth_up && rdma link add siblc type softib netdev lcv0 || why+=" new veth + device failed;"
		usable siblc $VA $((port + 1))
		rdma link delete siblc 2>/dev/null
	fi
	ip link delete lcv0 2>/dev/null
	finish "$name"
}
want netdev_delete && netdev_delete_under netdev_delete 18611 $VA -g ibv_rc_pingpong -s 4096 -n 100000000
# the field case of a bug report: ib_write_bw -D (duration mode) server and client on one
# device over a veth, the veth deleted under them. Both must fail and exit: the client sees
# its completions in error, the server (which only waits for the client's results) sees the
# client go. Their out-of-band TCP connection goes over 127.0.0.1: over the veth's own address
# it could not close at all once that address is gone (the client's FIN has no route), which
# leaves the server waiting in a TCP read with any RDMA device.
want netdev_delete_perftest && netdev_delete_under netdev_delete_perftest 18621 127.0.0.1 -x ib_write_bw -D 30 -F

# insmod_again: load softib and create sib0 on eth0 as tools/vm-run does
insmod_again() {
	insmod "$KO" || { why+=" insmod $KO failed;"; return 1; }
	rdma link add sib0 type softib netdev $NIC || { why+=" rdma link add sib0 failed;"; return 1; }
}

# ---------------------------------------------------------------- rmmod, processes killed
if want rmmod_idle; then
	echo "== rmmod_idle: traffic on sib0 and siblc killed, rmmod softib with both devices"
	why="" detail=""
	veth_up && rdma link add siblc type softib netdev lcv0 && wait_gid siblc $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		timeout -s KILL 300 "$TOOLS/load/sib-load" -d siblc -q 2 -M 64K -t 300 >"$OUT/ri.l" 2>&1 & l=$!
		g=$(gid sib0 $NICADDR)
		ibv_rc_pingpong -d sib0 -g "$g" -p 18621 -n 100000000 >"$OUT/ri.s" 2>&1 & s=$!
		wait_listen 18621 $s
		ibv_rc_pingpong -d sib0 -g "$g" -p 18621 -n 100000000 $NICADDR >"$OUT/ri.c" 2>&1 & c=$!
		wait_traffic siblc || why+=" no traffic on siblc;"
		wait_traffic sib0 || why+=" no traffic on sib0;"
		cleanup_procs $l $s $c
		timed rmmod softib
		detail+=" rmmod ${t}s rc $trc;"
		((trc == 0)) || why+=" rmmod failed or hung (rc $trc after ${t}s);"
		[[ -d /sys/module/softib ]] && why+=" softib still loaded;"
		dev_gone sib0 && dev_gone siblc || why+=" devices left;"
		insmod_again && rdma link add siblc type softib netdev lcv0 || why+=" siblc again failed;"
		usable sib0 $NICADDR 18622
		rdma link delete siblc 2>/dev/null
	fi
	ip link delete lcv0 2>/dev/null
	finish rmmod_idle
fi

# ---------------------------------------------------------------- rmmod under traffic
if want rmmod_live; then
	echo "== rmmod_live: sib-load on siblc, ibv_rc_pingpong on sib0, then rmmod softib"
	why="" detail=""
	veth_up && rdma link add siblc type softib netdev lcv0 && wait_gid siblc $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		"$TOOLS/load/sib-load" -d siblc -q 2 -M 64K -t 600 -T 10 >"$OUT/rl.l" 2>&1 & l=$!
		g=$(gid sib0 $NICADDR)
		ibv_rc_pingpong -d sib0 -g "$g" -p 18631 -n 100000000 >"$OUT/rl.s" 2>&1 & s=$!
		wait_listen 18631 $s
		ibv_rc_pingpong -d sib0 -g "$g" -p 18631 -n 100000000 $NICADDR >"$OUT/rl.c" 2>&1 & c=$!
		wait_traffic siblc || why+=" no traffic on siblc;"
		wait_traffic sib0 || why+=" no traffic on sib0;"
		timed rmmod softib
		detail+=" rmmod ${t}s rc $trc;"
		((trc == 0)) || why+=" rmmod failed or hung (rc $trc after ${t}s);"
		wait_exit $l sib-load; wait_exit $s rc_pingpong-server; wait_exit $c rc_pingpong-client
		tail -n 3 "$OUT/rl.l"; tail -n 2 "$OUT/rl.s" "$OUT/rl.c"
		[[ -d /sys/module/softib ]] && { why+=" softib still loaded;"; cleanup_procs $l $s $c; rmmod softib; }
		insmod_again && rdma link add siblc type softib netdev lcv0 || why+=" devices again failed;"
		usable siblc $VA 18632
		usable sib0 $NICADDR 18633
		rdma link delete siblc 2>/dev/null
	fi
	ip link delete lcv0 2>/dev/null
	finish rmmod_live
fi

# ---------------------------------------------------------------- module parameter limits
LIM_PARAMS="max_qp=8 max_cq=8 max_mr=8 max_srq=4 max_pd=8 max_ah=8 max_mw=8 max_qp_wr=512 max_cqe=1023 max_srq_wr=64"
LIM_KINDS="qp cq mr srq pd ah mw"
LIMITS=$HERE/../limits/sib-limits
# processes are slow in a TCG guest: each tool runs once and bash reads its output
declare -A dv mi c0 c1
# devinfo DEV: ibv_devinfo -v of DEV into dv[field]
devinfo() {
	local k v
	dv=()
	while read -r k v _; do [[ $k == *: ]] && dv[${k%:}]=$v; done < <(ibv_devinfo -v -d "$1" 2>/dev/null)
}
# (counters DEV ARRAY: every counter of DEV as `rdma statistic` shows it, testlib)
# res_count DEV KIND: live objects of KIND on DEV that the RDMA core tracks (rdma resource)
res_count() { rdma res show 2>/dev/null | awk -v d="$1:" -v k="$2" '$2 == d { for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# reload [PARAM=VALUE...]: softib loaded again with these parameters, sib0 on eth0
reload() {
	rdma link delete sib0 2>/dev/null; rmmod softib 2>/dev/null
	insmod "$KO" "$@" || { why+=" insmod $* failed;"; return 1; }
	rdma link add sib0 type softib netdev $NIC || { why+=" rdma link add sib0 failed;"; return 1; }
}
# softib must not stay loaded with the small limits, whatever happens: the stages after this
# one may run in the same guest (tests/vm/group.sh loads softib only when it is not loaded)
lim_small=0
defaults_again() { ((lim_small == 0)) || { reload; lim_small=0; }; }
trap 'defaults_again; exit 143' TERM INT
if [[ -z $ONLY || $ONLY == limits* ]]; then
	echo "== limits_*: softib reloaded with $LIM_PARAMS"
	lim_ok=1 t0=$SECONDS
	why="" detail=""
	[[ -x $LIMITS ]] || why+=" no $LIMITS (make limits);"
	[[ -z $why ]] && lim_small=1 && reload $LIM_PARAMS || lim_ok=0
	if ((lim_ok)); then
		devinfo sib0
		for pv in $LIM_PARAMS; do
			v=${dv[${pv%%=*}]:-}
			[[ $v == "${pv#*=}" ]] || why+=" ${pv%%=*} ${v:-missing}, want ${pv#*=};"
		done
		# derived: max_qp_rd_atom (128) for each QP
		[[ ${dv[max_res_rd_atom]:-} == 1024 ]] || why+=" max_res_rd_atom ${dv[max_res_rd_atom]:-missing}, want 1024;"
		while IFS=: read -r k v; do mi[$k]=$v; done < <(modinfo -p "$KO")
		for pv in $LIM_PARAMS; do
			[[ ${mi[${pv%%=*}]:-} =~ \(default\ [0-9]+,\ [0-9]+\.\.[0-9]+\) ]] ||
				why+=" modinfo: no default and range for ${pv%%=*};"
		done
		detail+=" ibv_devinfo -v shows the 10 values and max_res_rd_atom 1024, modinfo their ranges;"
	fi
	detail+=" $((SECONDS - t0))s;"
	finish limits_devinfo

	# queue sizes at and past max_qp_wr, max_cqe, max_srq_wr: EINVAL, counted nowhere
	why="" detail="" t0=$SECONDS
	if ((lim_ok)); then
		counters sib0 c0
		rc=0; "$LIMITS" -d sib0 -q 512,1023,64 >"$OUT/lim.q" 2>&1 || rc=$?
		cat "$OUT/lim.q"
		counters sib0 c1
		((rc == 0)) || why+=" sib-limits -q exit $rc: $(grep -m1 -v '^ok' "$OUT/lim.q");"
		for k in $LIM_KINDS; do
			[[ -n ${c1[${k}_limit_exceeded]:-} ]] || why+=" no counter ${k}_limit_exceeded;"
			((c1[${k}_limit_exceeded] == c0[${k}_limit_exceeded])) ||
				why+=" ${k}_limit_exceeded rose for EINVAL;"
		done
		detail+=" $(grep -c '^ok' "$OUT/lim.q") checks ok;"
	else
		why+=" not run (setup failed);"
	fi
	detail+=" $((SECONDS - t0))s;"
	finish limits_queue_size

	# objects up to each limit, ENOMEM past it, the counter rises by the refusals
	why="" detail="" t0=$SECONDS
	if ((lim_ok)) && wait_gid sib0 $NICADDR >/dev/null; then
		# what the kernel holds: QP1, its CQ and PD (rdma resource); each kernel PD also
		# holds an MR that rdma resource does not show (no local DMA lkey on softib)
		kpd=$(rdma res show pd dev sib0 2>/dev/null | grep -c 'comm \[')
		args=""
		for pv in $LIM_PARAMS; do
			k=${pv%%=*}; k=${k#max_}
			[[ " $LIM_KINDS " == *" $k "* ]] || continue
			used=$(res_count sib0 $k); used=${used:-0}
			[[ $k == mr ]] && used=$((used + kpd))
			args+=" $k=$((${pv#*=} - used))"
		done
		detail+=" free:$args;"
		counters sib0 c0
		# shellcheck disable=SC2086
		rc=0; "$LIMITS" -d sib0 -g "$(gid sib0 $NICADDR)" $args >"$OUT/lim.c" 2>&1 || rc=$?
		counters sib0 c1
		cat "$OUT/lim.c"
		((rc == 0)) || why+=" sib-limits exit $rc: $(grep -m1 '^FAIL' "$OUT/lim.c");"
		for k in $LIM_KINDS; do
			n=$(awk -v k=$k '$1 == "refused" && $2 == k { print $3 }' "$OUT/lim.c")
			d=$((c1[${k}_limit_exceeded] - c0[${k}_limit_exceeded]))
			[[ $n == 3 ]] || why+=" $k: ${n:-no} ENOMEM refusals, want 3;"
			((d == ${n:-0})) || why+=" ${k}_limit_exceeded rose by $d, refusals ${n:-0};"
		done
		detail+=" each kind: up to the limit ok, 3 ENOMEM, counter +3;"
	else
		why+=" not run (setup failed or no GID);"
	fi
	detail+=" $((SECONDS - t0))s;"
	finish limits_create

	# bad values fail the load with a line naming each; then the defaults again
	why="" detail="" t0=$SECONDS
	rdma link delete sib0 2>/dev/null; rmmod softib 2>/dev/null
	if [[ -d /sys/module/softib ]]; then why+=" rmmod softib failed;"; else lim_small=0; fi
	for bad in "max_qp=0" "max_qp_wr=1000 max_cqe=1024 max_mr=8388608"; do
		# shellcheck disable=SC2086
		if insmod "$KO" $bad 2>"$OUT/lim.i"; then
			why+=" insmod $bad succeeded;"; rmmod softib
		else
			detail+=" insmod $bad: $(tail -1 "$OUT/lim.i" | sed 's/.*: //');"
		fi
		[[ -d /sys/module/softib ]] && { why+=" softib loaded after insmod $bad;"; rmmod softib; }
		dmesg >"$OUT/lim.k"
		for pv in $bad; do
			grep -q "softib: $pv is " "$OUT/lim.k" || why+=" no kernel log line for $pv;"
		done
	done
	reload || true
	devinfo sib0
	[[ ${dv[max_qp]:-} == 65536 && ${dv[max_cqe]:-} == 1048575 ]] ||
		why+=" max_qp ${dv[max_qp]:-missing} max_cqe ${dv[max_cqe]:-missing} after the reload with defaults;"
	detail+=" reloaded with defaults (max_qp ${dv[max_qp]:-missing}); $((SECONDS - t0))s;"
	finish limits_bad_value
fi

# tools/vm-run expects softib with sib0 at the end (it unloads it itself)
defaults_again
[[ -d /sys/module/softib ]] || insmod "$KO"
[[ -e /sys/class/infiniband/sib0 ]] || rdma link add sib0 type softib netdev $NIC
rm -rf "$OUT"
echo "lifecycle: $nok/$((nok + nfail)) ok: ${TL_DONE[*]}"
tl_status
