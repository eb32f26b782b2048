#!/bin/bash
# ib-cable.sh: one host of a tools/vm-pair run (the cable engineer's check of issue 22's
# cable): make sibib0 (softib-ib) on eth1, plug the cable to the other host, watch the port
# reach LinkUp/INIT, unplug and replug. Both hosts run it; $VM_HOST_ID is 1 or 2.
#   tools/vm-pair -- 'bash tests/vm/ib-cable.sh' 'bash tests/vm/ib-cable.sh'
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
L=$REPO/tools/sib-link/sib-link
me=$VM_HOST_ID other=$((3 - VM_HOST_ID))
st() { ibv_devinfo -d sibib0 | grep -E "state|link_layer|active_mtu|max_mtu" | tr -s ' \t' ' ' | tr '\n' ';'; echo; }
rdma link add sibib0 type softib-ib netdev eth1 || exit 1
rdma link show | grep sib
echo "created: $(st)"
cat /sys/class/infiniband/sibib0/node_guid /sys/class/infiniband/sibib0/ports/1/gids/0
$L sibib0 show
$L sibib0 peer 10.0.3.$other || exit 1
t0=$(date +%s.%N)
for i in $(seq 1 100); do
	ibv_devinfo -d sibib0 | grep -q PORT_INIT && break
	sleep 0.1
done
echo "INIT after $(echo "$(date +%s.%N) - $t0" | bc) s: $(st)"
$L sibib0 show
sleep 3
if [ "$me" = 1 ]; then
	$L sibib0 unplug
	echo "unplugged: $(st)"
	sleep 3
	$L sibib0 show
	$L sibib0 peer 10.0.3.$other
	sleep 1.5
	echo "replugged: $(st)"
else
	sleep 1.6
	echo "partner unplugged: $(st)"
	sleep 3.5
	echo "partner replugged: $(st)"
fi
$L show
ip link set eth1 down
sleep 0.3
echo "eth1 down: $(st)"
ip link set eth1 up
sleep 3
echo "eth1 up: $(st)"
cat /sys/class/infiniband/sibib0/ports/1/hw_counters/link_pkts_* 2>/dev/null
ls /dev/infiniband/
rdma link del sibib0
echo done
