#!/bin/bash
# ib-cable-gone.sh (tools/vm-run): an IB device whose cable is plugged goes away with its
# netdev (ip link del), a second one stays plugged while the module is unloaded (vm-run
# unloads softib after the command and fails on any kernel report)
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
L=$REPO/tools/sib-link/sib-link
ip link add d0 type dummy && ip link set d0 up && ip addr add 10.9.9.1/24 dev d0
rdma link add sibd0 type softib-ib netdev d0 || exit 1
rdma link add sibd1 type softib-ib netdev d0 && { echo "second IB device on d0 accepted"; exit 1; }
$L sibd0 peer 10.9.9.2 || exit 1
$L sibd0 peer fe80::1 port 5000 local-port 4793 || exit 1
$L sibd0 show
$L sib0 show; echo "RoCE device: exit $?"
$L sibd0 peer 10.9.9.2 port 4791; echo "port 4791: exit $?"
sleep 0.5
ip link del d0
sleep 1
rdma link show | grep -c sibd0 && { echo "sibd0 still there"; exit 1; }
echo "sibd0 gone with d0"
rdma link add sibib0 type softib-ib netdev eth0 || exit 1
$L sibib0 peer 10.0.2.2 || exit 1
$L sibib0 unplug; $L sibib0 unplug; echo "second unplug: exit $?"
$L sibib0 peer 10.0.2.2 || exit 1
$L show
echo ok
