#!/bin/bash
# mem.sh: kernel memory-registration verbs on a softib device, run inside a guest:
# NVMe over Fabrics (RDMA) in loopback, whose host side registers every I/O with a
# fast-registration MR (ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR) and whose target
# answers with SEND_WITH_INV (or the host invalidates with IB_WR_LOCAL_INV).
set -uo pipefail
DEV=sib0 ADDR=10.0.2.15 MB=16 RESULTS=/dev/null LIST=0
while (($#)); do
	case $1 in
	-h|--help) echo "Usage: tests/vm/mem.sh [--dev DEV] [--addr IP] [--mb N] [--results FILE] [--list]"; exit 0 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	--dev) DEV=${2:?}; shift 2 ;;
	--addr) ADDR=${2:?}; shift 2 ;;
	--mb) MB=${2:?}; shift 2 ;;
	*) echo "mem.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TL_PREFIX=mem_
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
# (nvme_setup: a set-up failure, reported instead of them)
cases comp_vectors nvme_connect nvme_io_queues nvme_data comp_handler_cpu fast_reg
TL_CASES[nvme_setup]=1
cnt() { counter "$DEV" "$1" 0; }

NQN=sib-mem-test
CFS=/sys/kernel/config/nvmet
W=$(mktemp -d /tmp/mem.XXXXXX)
cleanup() {
	[[ -e /sys/kernel/tracing/events/softib/sib_comp_handler/enable ]] &&
		echo 0 >/sys/kernel/tracing/events/softib/sib_comp_handler/enable
	[[ -n ${NVMEDEV:-} ]] && echo 1 > "/sys/class/nvme/${NVMEDEV}/delete_controller" 2>/dev/null
	rm -f "$CFS/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$CFS/ports/1" 2>/dev/null
	echo 0 > "$CFS/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# one completion vector per online CPU (max_comp_vectors, default 32), each on its own CPU
NCPU=$(nproc)
nvec=$(/usr/bin/python3 -c "
from pyverbs.device import Context
print(Context(name='$DEV').num_comp_vectors)" 2>&1)
want=$((NCPU < 32 ? NCPU : 32))
if [[ $nvec == "$want" ]]; then
	result comp_vectors ok "num_comp_vectors $nvec ($NCPU CPUs)"
else
	result comp_vectors FAIL "num_comp_vectors $nvec, want $want ($NCPU CPUs)"
fi
modprobe -a nvmet nvmet-rdma nvme-rdma || { result nvme_setup FAIL "modprobe"; exit 1; }
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
truncate -s "${MB}M" "$W/ns.img"
mkdir "$CFS/subsystems/$NQN" && echo 1 > "$CFS/subsystems/$NQN/attr_allow_any_host" &&
mkdir "$CFS/subsystems/$NQN/namespaces/1" &&
echo -n "$W/ns.img" > "$CFS/subsystems/$NQN/namespaces/1/device_path" &&
{ echo 1 > "$CFS/subsystems/$NQN/namespaces/1/buffered_io"; true; } &&
echo 1 > "$CFS/subsystems/$NQN/namespaces/1/enable" &&
mkdir "$CFS/ports/1" && echo "$ADDR" > "$CFS/ports/1/addr_traddr" &&
echo rdma > "$CFS/ports/1/addr_trtype" && echo 4420 > "$CFS/ports/1/addr_trsvcid" &&
echo ipv4 > "$CFS/ports/1/addr_adrfam" &&
ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN" || { result nvme_setup FAIL "nvmet configfs"; exit 1; }
fr0=$(cnt fast_reg) li0=$(cnt local_inv) ri0=$(cnt remote_inv) qh0=$(cnt comp_handler_queued)
klog0=$(dmesg | wc -l)
# every kernel CQ's completion handler call from here on (tracepoint softib:sib_comp_handler)
TR=/sys/kernel/tracing EV=/sys/kernel/tracing/events/softib/sib_comp_handler
[[ -e $TR/trace ]] || mount -t tracefs nodev $TR 2>/dev/null
tr_on=0
if [[ -e $EV/enable ]]; then
	echo 0 >$TR/tracing_on; : >$TR/trace
	echo 1 >$EV/enable && echo 1 >$TR/tracing_on && tr_on=1
fi
# nr_io_queues left to nvme-rdma: one per CPU, bounded by the device's completion vectors
if ! echo "transport=rdma,traddr=$ADDR,trsvcid=4420,nqn=$NQN" > /dev/nvme-fabrics; then
	result nvme_connect FAIL "write to /dev/nvme-fabrics failed"; exit 1
fi
for c in /sys/class/nvme/nvme*; do
	[[ $(cat "$c/subsysnqn" 2>/dev/null) == "$NQN" ]] && NVMEDEV=${c##*/}
done
# the namespace's block device: nvmeXnY (not a hidden multipath nvmeXcZnY) of our NQN
BDEV=
for i in $(seq 50); do
	for b in /sys/block/nvme*; do
		[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		q=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
		[[ $q == "$NQN" ]] && BDEV=/dev/${b##*/}
	done
	[[ -n $BDEV ]] && break
	sleep 0.2
done
[[ -n ${NVMEDEV:-} && -n $BDEV ]] || { result nvme_connect FAIL "no namespace block device"; exit 1; }
result nvme_connect ok "$NVMEDEV $BDEV over $DEV"
# nvme-rdma: "creating N I/O queues." with N = min(CPUs, num_comp_vectors), as on a NIC
nq=$(dmesg | tail -n +"$((klog0 + 1))" | sed -n "s/.*$NVMEDEV: creating \([0-9]*\) I\/O queues.*/\1/p" | tail -1)
if [[ $nq == "$want" ]]; then
	result nvme_io_queues ok "$nq I/O queues ($NCPU CPUs, $nvec completion vectors)"
else
	result nvme_io_queues FAIL "${nq:-no} I/O queues, want $want ($NCPU CPUs, $nvec completion vectors)"
fi
# every block size class: one page, several pages (one MR of many pages), 1 MiB
head -c $((MB * 1024 * 1024)) /dev/urandom > "$W/src"
ok=1
for bs in 4k 64k 1M; do
	dd if="$W/src" of="$BDEV" bs=$bs oflag=direct conv=fsync status=none || ok=0
	dd if="$BDEV" of="$W/dst" bs=$bs iflag=direct status=none || ok=0
	cmp -s "$W/src" "$W/dst" || { ok=0; echo "mem.sh: data mismatch with bs=$bs" >&2; }
	rm -f "$W/dst"
done
((ok)) && result nvme_data ok "${MB} MiB written and read back with bs 4k, 64k, 1M, compared" ||
	result nvme_data FAIL "I/O error or mismatch"
# I/O from each CPU in turn (blk-mq sends it to the I/O queue whose vector is that CPU's:
# get_vector_affinity), then: each kernel CQ's handler ran on its vector's CPU (the vector-th
# online CPU), and the handlers ran on every vector nvme-rdma uses
mapfile -t CPUS < <(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) print c } }' /sys/devices/system/cpu/online)
pinned_ok=1
for c in "${CPUS[@]}"; do
	taskset -c "$c" dd if="$W/src" of="$BDEV" bs=64k count=32 oflag=direct status=none || pinned_ok=0
done
if ((!pinned_ok)); then
	result comp_handler_cpu FAIL "a write with dd pinned to one CPU (taskset) failed"
elif ((tr_on)); then
	echo 0 >$EV/enable	# (tracing_on stays 1, its default)
	# "task-pid [CPU] flags stamp: sib_comp_handler: cq N vector V[ queued]"
	read -r n bad nv q first < <(grep -a 'sib_comp_handler: cq ' $TR/trace | awk -v cpus="${CPUS[*]}" '
		BEGIN { nc = split(cpus, cpu, " ") }
		{
			# (anchored on the event: a task name may hold brackets too)
			if (!match($0, /\[[0-9]+\] [^ ]+ +[0-9.]+: sib_comp_handler: /)) next
			c = substr($0, RSTART + 1); c = substr(c, 1, index(c, "]") - 1) + 0
			for (i = 1; i <= NF; i++) if ($i == "vector") v = $(i + 1) + 0
			n++; vec[v] = 1; if (/ queued$/) q++
			if (v >= nc || cpu[v + 1] != c) { bad++; if (!w) { w = $0; sub(/^ +/, "", w) } }
		}
		END { for (v in vec) nv++; printf "%d %d %d %d %s\n", n, bad, nv, q, w ? w : "-" }')
	: >$TR/trace
	if ((n > 0 && bad == 0 && nv == want)); then
		result comp_handler_cpu ok "$n handler calls of kernel CQs, each on its vector's CPU, on all $nv vectors ($q handed over from another CPU)$( ((want < 2)) && echo "; one CPU: no other to run on")"
	else
		result comp_handler_cpu FAIL "$n handler calls, $bad not on their vector's CPU (first: $first), on $nv vectors (want $want)"
	fi
else
	result comp_handler_cpu FAIL "no tracepoint softib:sib_comp_handler in $TR"
fi
fr=$(( $(cnt fast_reg) - fr0 )) li=$(( $(cnt local_inv) - li0 )) ri=$(( $(cnt remote_inv) - ri0 ))
if ((fr > 0 && li + ri > 0)); then
	result fast_reg ok "fast_reg +$fr, local_inv +$li, remote_inv +$ri, completion handlers queued on their vector's CPU +$(( $(cnt comp_handler_queued) - qh0 ))"
else
	result fast_reg FAIL "fast_reg +$fr, local_inv +$li, remote_inv +$ri (expected registrations and invalidations)"
fi
echo "mem: $nok/$((nok + nfail)) ok on $DEV"
tl_status
