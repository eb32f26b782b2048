#!/bin/bash
# wire.sh: crafted RoCEv2 packets (tests/wire-inject.py) and tampered user rings
# (tests/ring-tamper) against softib.  Meant to run inside a tools/vm-run guest (root,
# softib loaded).  A veth pair wirea/wireb: softib device sibw on wirea (10.77.0.1/24),
# nothing on wireb, whose end the injector writes frames into and reads answers from.
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/wire.sh [--results FILE] [--slow F] [--only "CASES"] [--no-rings] [--list]

Prints "RESULT wire_<case> ok|FAIL <detail>" per case (also appended to FILE) and
"wire: N/M ok"; exit status 0 iff all ok.  --slow F stretches the quiet periods (debug
kernel); --only runs some injection cases; --no-rings skips the ring tampering part;
--list prints the names of the cases the other options select (wire_<case>,
wire_ring_<case>) and exits.
USAGE
}
RESULTS="" SLOW=1 ONLY="" RINGS=1 LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--slow) SLOW=${2:?}; shift 2 ;;
	--only) ONLY=${2:?}; shift 2 ;;
	--no-rings) RINGS=0; shift ;;
	--list) LIST=1; shift ;;
	*) echo "wire.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# the cases are the two programs' (their --list); wire-inject.py prints the RESULT lines itself
if ((LIST)); then
	# shellcheck disable=SC2086 # (ONLY: a list of names)
	if [[ -n $ONLY ]]; then printf 'wire_%s\n' $ONLY
	else /usr/bin/python3 "$REPO/tests/wire-inject.py" --list | sed 's/^/wire_/'; fi
	((RINGS)) && "$REPO/tests/ring-tamper/ring-tamper" --list | sed 's/^/wire_ring_/'
	exit 0
fi
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
[[ -x $REPO/tests/ring-tamper/ring-tamper ]] || { echo "wire.sh: tests/ring-tamper not built (make wire)" >&2; exit 2; }
[[ -n $RESULTS ]] || RESULTS=$(mktemp /tmp/wire.XXXXXX)
ip link add wirea type veth peer name wireb || exit 2
ip addr add 10.77.0.1/24 dev wirea
ip link set wirea up
ip link set wireb up
# the peer does not exist: its MAC is wireb's, so answers come out on wireb
ip neigh replace 10.77.0.2 lladdr "$(cat /sys/class/net/wireb/address)" dev wirea nud permanent
# no IPv6 noise on the injection side
sysctl -qw net.ipv6.conf.wireb.disable_ipv6=1 net.ipv6.conf.wirea.disable_ipv6=1
rdma link add sibw type softib netdev wirea || exit 2
wait_gid sibw "" 50 0.2
rc=0
wait=$(awk -v s="$SLOW" 'BEGIN { print 5 * s }')
t0=$SECONDS
/usr/bin/python3 "$REPO/tests/wire-inject.py" --dev sibw --wait "$wait" --slow "$SLOW" \
	--results "$RESULTS" $ONLY || rc=1
echo "wire.sh: packet injection took $((SECONDS - t0)) s"
t0=$SECONDS
if ((RINGS)); then
	"$REPO/tests/ring-tamper/ring-tamper" --dev sibw --gid "$("$REPO/tools/roce-gid-index" sibw)" \
		--timeout "$(awk -v s="$SLOW" 'BEGIN { print 20 * s }')" --results "$RESULTS" || rc=1
	echo "wire.sh: ring tampering took $((SECONDS - t0)) s"
fi
rdma link delete sibw
ip link delete wirea
exit $rc
