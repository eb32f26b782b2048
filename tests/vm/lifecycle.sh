#!/bin/bash
# lifecycle.sh: take softib devices away under running verbs traffic and check that
# everything ends in bounded time: `rdma link delete`, `ip link delete` of the netdev under
# the device, and `rmmod softib` with devices, with and without processes holding them.
# Meant to run inside a tools/vm-run guest with softib loaded (sib0 on eth0).
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/lifecycle.sh [--ko FILE] [--bound SEC] [--results FILE] [--only NAME]

Cases (each prints "RESULT lifecycle_<name> ok|FAIL <detail>", also appended to FILE):
  port_events    ip link set down/up of the veth under a device: ibv_asyncwatch sees
                 IBV_EVENT_PORT_ERR / IBV_EVENT_PORT_ACTIVE, the port state follows
  link_delete    ib_write_bw (server and client) on a device over a veth; rdma link delete;
                 ibv_asyncwatch on the device sees IBV_EVENT_DEVICE_FATAL
  netdev_delete  ibv_rc_pingpong on a device over a veth; ip link delete of that veth
  rmmod_idle     traffic killed, then rmmod softib with two devices; insmod again
  rmmod_live     sib-load and ibv_rc_pingpong running on two devices; rmmod softib
Each removal must return within --bound seconds (default 60), the traffic processes must
exit with an error status within the bound (not hang, not be killed), the device must be
gone, and afterwards a new device on the same netdev must carry ibv_rc_pingpong.
At the end softib is loaded again with sib0 on eth0 (tools/vm-run unloads it).
--ko: the softib.ko to insmod again (default \$VM_SOFTIB_KO, else ./softib.ko).
Exit status 0 iff all cases are ok.
USAGE
}
KO=${VM_SOFTIB_KO:-$PWD/softib.ko} BOUND=60 RESULTS=/dev/null ONLY=""
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--ko) KO=${2:?}; shift 2 ;;
	--bound) BOUND=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--only) ONLY=${2:?}; shift 2 ;;
	*) echo "lifecycle.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../../tools
OUT=$(mktemp -d /tmp/lifecycle.XXXXXX)
NIC=eth0 NICADDR=10.0.2.15
VA=10.77.0.1 VB=10.77.0.2		# veth pair lcv0 (device side) / lcv1
nok=0 nfail=0 summary=()

result() { # name ok|FAIL detail
	echo "RESULT lifecycle_$1 $2 ${3:-}"
	echo "RESULT lifecycle_$1 $2 ${3:-}" >>"$RESULTS"
	if [[ $2 == ok ]]; then nok=$((nok + 1)); else nfail=$((nfail + 1)); fi
	summary+=("$1 $2")
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
gid() { "$TOOLS/roce-gid-index" --addr "$2" "$1"; }
veth_up() {
	ip link add lcv0 type veth peer name lcv1 || return 1
	ip addr add $VA/24 dev lcv0 && ip addr add $VB/24 dev lcv1 &&
		ip link set lcv0 up && ip link set lcv1 up
}
# wait_listen PORT PID: until the server PID listens on TCP PORT (its connection setup)
wait_listen() {
	local i
	for i in $(seq 200); do
		ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
dev_gone() { [[ ! -e /sys/class/infiniband/$1 ]]; }
# wait_gid DEV ADDR: until the device has a RoCE v2 GID for ADDR (the GID cache fills async)
wait_gid() {
	local i
	for i in $(seq 100); do gid "$1" "$2" >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "no RoCE v2 GID for $2 on $1"; return 1
}
# sent DEV: packets the device has sent so far
sent() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts" 2>/dev/null || echo 0; }
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
want() { [[ -z $ONLY || $ONLY == "$1" ]]; }
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

# ---------------------------------------------------------------- ip link delete
if want netdev_delete; then
	echo "== netdev_delete: ibv_rc_pingpong on siblc (veth lcv0), then ip link delete lcv0"
	why="" detail=""
	veth_up && rdma link add siblc type softib netdev lcv0 && wait_gid siblc $VA || why+=" setup failed;"
	if [[ -z $why ]]; then
		g=$(gid siblc $VA)
		ibv_rc_pingpong -d siblc -g "$g" -p 18611 -s 4096 -n 100000000 >"$OUT/nd.s" 2>&1 & s=$!
		wait_listen 18611 $s
		ibv_rc_pingpong -d siblc -g "$g" -p 18611 -s 4096 -n 100000000 $VA >"$OUT/nd.c" 2>&1 & c=$!
		if wait_traffic siblc; then
			timed ip link delete lcv0
			detail+=" ip link delete ${t}s rc $trc;"
			((trc == 0)) || why+=" ip link delete failed or hung (rc $trc after ${t}s);"
			end=$((SECONDS + BOUND))
			while ((SECONDS < end)) && ! dev_gone siblc; do sleep 0.2; done
			dev_gone siblc || why+=" siblc still there ${BOUND}s after its netdev went;"
			wait_exit $s rc_pingpong-server; wait_exit $c rc_pingpong-client
		else
			why+=" traffic did not start;"; cleanup_procs $s $c
		fi
		tail -n 2 "$OUT/nd.s" "$OUT/nd.c"
		ip link delete lcv0 2>/dev/null
		veth_up && rdma link add siblc type softib netdev lcv0 || why+=" new veth + device failed;"
		usable siblc $VA 18612
		rdma link delete siblc 2>/dev/null
	fi
	ip link delete lcv0 2>/dev/null
	finish netdev_delete
fi

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

# tools/vm-run expects softib with sib0 at the end (it unloads it itself)
[[ -d /sys/module/softib ]] || insmod "$KO"
[[ -e /sys/class/infiniband/sib0 ]] || rdma link add sib0 type softib netdev $NIC
rm -rf "$OUT"
echo "lifecycle: $nok/$((nok + nfail)) ok: ${summary[*]}"
((nfail == 0))
