#!/bin/bash
# nvme-loop.sh: NVMe over Fabrics (RDMA) connect + disconnect in a loop, in loopback on one
# guest (nvmet-rdma and nvme-rdma both on 10.0.2.15), first over softib's sib0, then over
# rdma_rxe's rxe0, then over sib0 again, all in the same boot: the per-loop time of each
# (blktests nvme/031's work; tests/vm/ulps.sh measures it between two guests).
# Run inside a guest started by tools/vm-run (softib loaded, sib0 on eth0).
#   tests/vm/nvme-loop.sh [--loops N] [--order "sib rxe sib"] [--trace] [--ko KO]
#	[--graph "FUNC..." [--depth N]]
# --order: a list of sib (the loaded softib, else --ko), sib=KO (softib.ko from KO, for an
# A/B comparison of two builds in one boot) and rxe
# --trace: a function_graph breakdown (time per call of the set-up and teardown
# functions of nvme-rdma, nvmet-rdma, the RDMA core and the device) over the loops,
# after the timed loops (tracing slows them down).
set -uo pipefail
LOOPS=10 ORDER="sib rxe sib" TRACE=0 GRAPH="" DEPTH=3
ADDR=10.0.2.15 NQN=sib-nvme-loop CFS=/sys/kernel/config/nvmet
KO=${VM_SOFTIB_KO:-}
# the softib.ko loaded now (tools/vm-run loaded the guest's)
LOADED=""
[[ -d /sys/module/softib ]] && LOADED=$KO
while (($#)); do
	case $1 in
	--loops) LOOPS=${2:?}; shift 2 ;;
	--order) ORDER=${2:?}; shift 2 ;;
	--trace) TRACE=1; shift ;;
	--graph) GRAPH=${2:?}; shift 2 ;;
	--depth) DEPTH=${2:?}; shift 2 ;;
	--ko) KO=${2:?}; shift 2 ;;
	-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "nvme-loop.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
W=$(mktemp -d /tmp/nvme-loop.XXXXXX)
TR=/sys/kernel/tracing
mountpoint -q $TR || mount -t tracefs none $TR

tgt_up() {
	mkdir "$CFS/subsystems/$NQN" && echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host" &&
	mkdir "$CFS/subsystems/$NQN/namespaces/1" &&
	echo -n "$W/ns.img" >"$CFS/subsystems/$NQN/namespaces/1/device_path" &&
	{ echo 1 >"$CFS/subsystems/$NQN/namespaces/1/buffered_io"; true; } &&
	echo 1 >"$CFS/subsystems/$NQN/namespaces/1/enable" &&
	mkdir "$CFS/ports/1" && echo "$ADDR" >"$CFS/ports/1/addr_traddr" &&
	echo rdma >"$CFS/ports/1/addr_trtype" && echo 4420 >"$CFS/ports/1/addr_trsvcid" &&
	echo ipv4 >"$CFS/ports/1/addr_adrfam" &&
	ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
}
tgt_down() {
	rm -f "$CFS/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$CFS/ports/1" 2>/dev/null
	echo 0 >"$CFS/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN" 2>/dev/null
	true
}
dev_down() {
	local d
	for d in sib0 rxe0; do [[ -e /sys/class/infiniband/$d ]] && rdma link delete $d; done
	[[ -d /sys/module/rdma_rxe ]] && modprobe -r rdma_rxe
	true
}
dev_up() { # sib|sib=KO|rxe: sib=KO loads softib from KO (in place of a loaded one)
	dev_down
	if [[ $1 == rxe ]]; then
		[[ -d /sys/module/softib ]] && rmmod softib
		LOADED=""
		modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || return 1
		DEV=rxe0
	else
		# sib: the guest's module (tools/vm-run's, or --ko); sib=KO: that one
		local ko=$KO
		[[ $1 == sib=* ]] && ko=${1#sib=}
		[[ -n $ko ]] || { echo "nvme-loop.sh: no softib.ko to load (--ko)"; return 1; }
		if [[ $LOADED != "$ko" ]]; then
			[[ -d /sys/module/softib ]] && rmmod softib
			modprobe -a ib_uverbs udp_tunnel ip6_udp_tunnel
			insmod "$ko" || return 1
			LOADED=$ko
		fi
		rdma link add sib0 type softib netdev eth0 || return 1
		DEV=sib0
	fi
	for ((i = 0; i < 100; i++)); do
		grep -q ACTIVE /sys/class/infiniband/$DEV/ports/1/state 2>/dev/null && break
		sleep 0.1
	done
	sleep 1
}
ctrl_up() { local c; for c in /sys/class/nvme/nvme*; do [[ $(cat "$c/subsysnqn" 2>/dev/null) == "$NQN" ]] && return 0; done; return 1; }
loop() { # N: N connect + disconnect; prints "connect s, disconnect s" per loop
	local n=$1 i t1 t2 tc=0 td=0 t0=$EPOCHREALTIME out
	for ((i = 0; i < n; i++)); do
		t1=$EPOCHREALTIME
		out=$(timeout 60 nvme connect -t rdma -a $ADDR -s 4420 -n $NQN 2>&1) && ctrl_up ||
			{ echo "connect failed: $out"; return 1; }
		t2=$EPOCHREALTIME
		out=$(timeout 60 nvme disconnect -n $NQN 2>&1)
		[[ $out == *"disconnected 1 controller"* ]] || { echo "disconnect failed: $out"; return 1; }
		tc=$(awk -v s="$tc" -v a="$t1" -v b="$t2" 'BEGIN { print s + b - a }')
		td=$(awk -v s="$td" -v a="$t2" -v b="$EPOCHREALTIME" 'BEGIN { print s + b - a }')
	done
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$n" -v c="$tc" -v d="$td" \
		'BEGIN { printf "%.3f s per loop (connect %.3f s, disconnect %.3f s)", (b - a) / n, c / n, d / n }'
}
FUNCS="nvme_rdma_create_ctrl nvme_rdma_delete_ctrl nvme_rdma_alloc_queue nvme_rdma_start_queue
nvme_rdma_stop_queue nvme_rdma_free_queue nvme_rdma_create_queue_ib nvme_rdma_destroy_queue_ib
nvmet_rdma_free_queue nvmet_rdma_create_queue_ib nvmet_rdma_alloc_queue nvmet_rdma_queue_connect
rdma_resolve_addr rdma_resolve_route rdma_connect_locked rdma_accept rdma_disconnect
rdma_destroy_id rdma_create_qp rdma_destroy_qp ib_create_qp_kernel ib_destroy_qp_user
ib_drain_qp __ib_drain_sq __ib_drain_rq ib_cq_pool_get ib_cq_pool_put ib_alloc_mr
ib_dereg_mr_user ib_mr_pool_init ib_mr_pool_destroy ib_modify_qp ib_modify_qp_with_udata
__nvme_submit_sync_cmd nvme_init_ctrl_finish nvme_remove_namespaces nvme_scan_work
synchronize_rcu"
trace_on() {
	local f
	echo 0 >$TR/tracing_on; echo nop >$TR/current_tracer; : >$TR/trace
	: >$TR/set_ftrace_filter
	for f in $FUNCS; do echo "$f" >>$TR/set_ftrace_filter 2>/dev/null; done
	echo 20000 >$TR/buffer_size_kb
	echo function_graph >$TR/current_tracer
	echo 1 >$TR/options/funcgraph-tail; echo 1 >$TR/options/funcgraph-proc
	echo 0 >$TR/options/funcgraph-irqs 2>/dev/null
	echo 1 >$TR/tracing_on
}
trace_off() { # N: per function: calls, total ms / N loops, ms per call (top 60 by total)
	echo 0 >$TR/tracing_on
	trace_sum "$1"
	echo nop >$TR/current_tracer; : >$TR/set_ftrace_filter; : >$TR/trace
}
trace_sum() {
	awk -v n="$1" '
	/us +\|/ {
		if (!match($0, /[0-9]+\.[0-9]+ us/)) next
		d = substr($0, RSTART, RLENGTH - 3) + 0
		s = $0; sub(/.*\| */, "", s)
		if (s ~ /^} \/\* /) { sub(/^} \/\* /, "", s); sub(/ \*\/.*/, "", s) }
		else { sub(/\(\);.*/, "", s) }
		if (s ~ /[{}]/ || s == "") next
		c[s]++; t[s] += d
	}
	END { for (f in t) printf "%10.1f ms/loop %6d calls %9.3f ms/call  %s\n", t[f] / 1000 / n, c[f], t[f] / 1000 / c[f], f }' \
		$TR/trace | sort -rn | head -${TOP:-60}
	echo "lost events: $(grep -c LOST $TR/trace)"
}

trap 'nvme disconnect -n $NQN >/dev/null 2>&1; tgt_down; rm -rf "$W"' EXIT
modprobe -a nvmet nvmet-rdma nvme-rdma || exit 1
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
truncate -s 16M "$W/ns.img"
rc=0
for d in $ORDER; do
	tgt_down
	dev_up "$d" || { echo "$d: device set-up failed"; rc=1; continue; }
	tgt_up || { echo "$d: nvmet set-up failed"; rc=1; continue; }
	loop 1 >/dev/null   # warm-up
	echo "$d ($DEV): $(loop "$LOOPS" || rc=1); $LOOPS loops; load$(uptime | sed 's/.*load average//')"
	if [[ -n $GRAPH ]]; then
		echo 0 >$TR/tracing_on; echo nop >$TR/current_tracer; : >$TR/trace
		: >$TR/set_ftrace_filter; : >$TR/set_graph_function
		for f in $GRAPH; do echo "$f" >>$TR/set_graph_function; done
		echo "$DEPTH" >$TR/max_graph_depth; echo 20000 >$TR/buffer_size_kb
		echo function_graph >$TR/current_tracer
		echo 1 >$TR/options/funcgraph-tail; echo 1 >$TR/options/funcgraph-proc
		echo 0 >$TR/options/funcgraph-irqs 2>/dev/null
		echo 1 >$TR/tracing_on
		loop 2 >/dev/null
		echo 0 >$TR/tracing_on
		echo "--- $d: graph of $GRAPH, depth $DEPTH, 2 loops"
		TOP=80 trace_sum 2
		echo nop >$TR/current_tracer; : >$TR/set_graph_function; echo 0 >$TR/max_graph_depth
	fi
	if ((TRACE)); then
		trace_on
		loop 3 >/dev/null
		echo "--- $d: function_graph over 3 loops"
		trace_off 3
	fi
done
tgt_down
dev_down
modprobe -a ib_uverbs udp_tunnel ip6_udp_tunnel
[[ -d /sys/module/softib ]] || insmod "$KO"
[[ -e /sys/class/infiniband/sib0 ]] || rdma link add sib0 type softib netdev eth0
exit $rc
