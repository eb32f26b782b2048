#!/bin/bash
# package.sh: inside a tools/vm-run guest whose root has softib's Debian packages installed
# (tests/package-test boots it with --root and --no-softib): the module DKMS built is the one
# modprobe loads, the installed provider and tools work, and softib unloads again.
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/package.sh [--results FILE] [--list]

Prints "RESULT package_<kernel>_<case> ok|FAIL <detail>" lines (also appended to FILE), where
<kernel> is 6.1 or 6.12.  Cases: modinfo (modprobe would take softib.ko from updates/dkms,
built for this kernel, not the source tree's), modprobe (modprobe softib loads it, its dependencies and softib_db),
link (rdma link add sib0 type softib netdev eth0: ACTIVE with an IPv4 RoCE v2 GID), provider
(libibverbs finds the packaged provider through /etc/libibverbs.d, and no other), devinfo
(ibv_devinfo -d sib0), pingpong (ibv_rc_pingpong --chk between two QPs of sib0: both exit 0,
the byte counts and the data verified), tools (sib-pkey show, sib-load, their manual pages
and softib(7)), unload (rdma link delete, modprobe -r softib takes softib_db too).  --list
prints the cases (without package_<kernel>_: the guest's kernel names it) and exits.  Exit
status 0 iff all ok.
USAGE
}
RESULTS=/dev/null LIST=0
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "package.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../../tools
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
cases modinfo modprobe link provider devinfo pingpong tools unload
KVER=$(uname -r)
case $KVER in 6.1.*) K=6.1 ;; 6.12.*) K=6.12 ;; *) K=${KVER%%-*} ;; esac
OUT=$(mktemp -d /tmp/package.XXXXXX)
TL_PREFIX=package_${K}_
run() { echo "\$ $*"; "$@"; }

# modinfo: what modprobe resolves softib to
f=$(modinfo -n softib 2>&1); vm=$(modinfo -F vermagic softib 2>/dev/null | cut -d' ' -f1)
fdb=$(modinfo -n softib_db 2>&1)
echo "modinfo -n softib: $f ($vm); softib_db: $fdb"
if [[ $f == /lib/modules/$KVER/updates/dkms/softib.ko* && $vm == "$KVER" &&
	$fdb == /lib/modules/$KVER/updates/dkms/softib_db.ko* ]]; then
	result modinfo ok "$f, vermagic $vm"
else
	result modinfo FAIL "softib resolves to '$f' (vermagic '$vm'), softib_db to '$fdb'"
fi

# modprobe: softib and what it depends on (ib_core, ib_uverbs, udp_tunnel, ...), and softib_db
# with it (softib's "softdep post"), as README says
if run modprobe softib && [[ -d /sys/module/softib && -d /sys/module/softib_db && -c /dev/softib_db ]]; then
	result modprobe ok "modprobe softib: softib and softib_db loaded, /dev/softib_db"
else
	result modprobe FAIL "modprobe softib failed: $(dmesg | tail -3 | tr '\n' ' ')"
fi

# link: the command a user types
gid=""
if run rdma link add sib0 type softib netdev eth0; then
	st=""
	for _ in $(seq 100); do
		st=$(cat /sys/class/infiniband/sib0/ports/1/state 2>/dev/null)
		gid=$("$TOOLS/roce-gid-index" sib0 2>/dev/null) || gid=""
		[[ $st == *ACTIVE* && -n $gid ]] && break
		sleep 0.1
	done
	if [[ $st == *ACTIVE* && -n $gid ]]; then result link ok "sib0 $st, IPv4 RoCE v2 GID index $gid"
	else result link FAIL "sib0 state '$st', IPv4 GID index '$gid'"; fi
else
	result link FAIL "rdma link add failed"
fi
rdma link show 2>&1 | sed 's/^/  /'

# provider: the packaged one, found the way libibverbs finds any provider
drv=/etc/libibverbs.d/softib.driver
lib=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/libsoftib-rdmav34.so 2>/dev/null)
owner=$(dpkg -S "$lib" 2>/dev/null | cut -d: -f1)
other=$(grep -rl softib /etc/libibverbs.d /usr/local/lib 2>/dev/null | grep -vx "$drv" | head -3 | tr '\n' ' ')
if [[ $(cat $drv 2>/dev/null) == "driver softib" && -n $lib && $owner == ibverbs-provider-softib &&
	-z ${RDMAV_DRIVERS:-}${IBV_CONFIG_DIR:-} && -z $other ]]; then
	result provider ok "$drv, $lib (package $owner)"
else
	result provider FAIL "driver file '$(cat $drv 2>/dev/null)', library '$lib' of '$owner', other: '$other'"
fi

# devinfo: the provider opens the device
if ibv_devinfo -d sib0 >"$OUT/devinfo" 2>&1 && grep -q 'state:.*PORT_ACTIVE' "$OUT/devinfo" &&
	! grep -qi 'couldn.t load driver' "$OUT/devinfo"; then
	result devinfo ok "$(grep -m1 -o 'transport:.*' "$OUT/devinfo" | tr -s ' \t' ' '), $(grep -m1 -o 'link_layer:.*' "$OUT/devinfo" | tr -s ' \t' ' ')"
else
	cat "$OUT/devinfo"; result devinfo FAIL "ibv_devinfo -d sib0 failed or port not active"
fi

# pingpong: data-checked RC traffic through the packaged provider and the DKMS module
if [[ -n $gid ]]; then
	timeout 120 ibv_rc_pingpong -d sib0 -g "$gid" -n 200 -s 4096 --chk -p 18601 >"$OUT/s" 2>&1 &
	spid=$!
	wait_listen 18601 "" "" 100
	crc=0; timeout 120 ibv_rc_pingpong -d sib0 -g "$gid" -n 200 -s 4096 --chk -p 18601 127.0.0.1 >"$OUT/c" 2>&1 || crc=$?
	src=0; wait "$spid" || src=$?
	sed 's/^/  server: /' "$OUT/s"; sed 's/^/  client: /' "$OUT/c"
	if ((src == 0 && crc == 0)) && grep -q '^1638400 bytes in' "$OUT/s" && grep -q '^1638400 bytes in' "$OUT/c" &&
		grep -q '^200 iters' "$OUT/c"; then
		result pingpong ok "200 x 4096 B verified, $(grep -m1 -o '[0-9.]* Mbit/sec' "$OUT/c")"
	else
		result pingpong FAIL "server exit $src, client exit $crc"
	fi
else
	result pingpong FAIL "not run: no GID"
fi

# tools: the user-facing tools of softib-tools and the manual pages
tl=""
sib-pkey show sib0 >"$OUT/pkey" 2>&1 && grep -qi 'ffff' "$OUT/pkey" || tl+=" sib-pkey show failed: $(head -2 "$OUT/pkey" | tr '\n' ' ');"
sib-load --help >/dev/null 2>&1 || tl+=" sib-load --help failed;"
for m in sib-pkey.8 sib-load.1 softib.7; do
	mf=/usr/share/man/man"${m##*.}"/"$m".gz
	if [[ ! -f $mf ]]; then tl+=" no manual page $m;"
	elif ! MANWIDTH=80 man -l "$mf" 2>/dev/null | grep -q '^NAME'; then tl+=" $m does not render (man -l);"; fi
done
if [[ -z $tl ]]; then result tools ok "sib-pkey, sib-load, sib-pkey(8), sib-load(1), softib(7)"
else result tools FAIL "$tl"; fi

# unload: what a user does before removing the package
ul=""
rdma link delete sib0 2>/dev/null || ul+=" rdma link delete failed;"
run modprobe -r softib 2>&1 || ul+=" modprobe -r softib failed;"
[[ -d /sys/module/softib ]] && ul+=" softib still loaded;"
[[ -d /sys/module/softib_db ]] && ul+=" softib_db still loaded;"
if [[ -z $ul ]]; then result unload ok "sib0 deleted, modprobe -r softib: softib and softib_db unloaded"
else result unload FAIL "$ul"; fi

rm -rf "$OUT"
echo "package.sh ($KVER): $nok ok, $nfail failed"
tl_status
