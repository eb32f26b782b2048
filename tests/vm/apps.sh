#!/bin/bash
# apps.sh: real RDMA applications, unchanged, between two hosts: UCX (ucx_info,
# ucx_perftest), Open MPI over UCX (tests/apps/sib-mpi) and libfabric's verbs provider
# (fi_info, fi_pingpong), first over softib on both hosts, then over rdma_rxe on both.
# Runs in the two guests of tools/vm-pair like tests/vm/twohosts.sh: "--role 1" drives,
# "--role 2" executes host 1's orders (tools/lib/pair-rpc.sh) until host 1 says stop.
set -uo pipefail
usage() {
	cat <<USAGE
Usage: tests/vm/apps.sh --role 1|2 --dir DIR [--results FILE] [--ko FILE] [--no-rxe]
                        [--cases "CASE..."] [--rxe-budget S]
       tests/vm/apps.sh --list [--no-rxe] [--cases "CASE..."]

Host 1 (--role 1) creates sib1 on eth1 (10.0.3.1) and runs every case against host 2
(10.0.3.2): phase 1 with softib on both hosts (sib1 on eth1), phase 2 with rdma_rxe on
both (softib unloaded, rxe1 on eth1).  Cases (DEV: softib, rxe):
  ucx_info            ucx_info -d lists the device with rc_verbs and ud_verbs
  ucx_<test>_<rc|ud>  ucx_perftest UCT tests between the hosts: put_bw and get_bw (zero
                      copy, 64 KiB, RC), am_lat (8 B, RC and UD), am_bw (512 B bcopy, UD)
  ucp_<test>_<rc|ud>  ucx_perftest UCP tests: tag_lat (8 B), tag_bw (64 KiB), stream_bw
                      (64 KiB) with UCX_TLS=rc (rc_verbs, ud_verbs for wire-up) or ud_verbs
  ucp_verify_<rc|ud>  tests/apps/sib-ucp, every byte checked: tagged messages 1 B..4 MiB
                      and their echo, a stream both ways, RMA put and get into a mapped
                      buffer (ucx_perftest checks no data); UCX_TLS=rc,self or ud_verbs,self
  ucp_verify_odp      ucp_verify_rc with UCX_IB_REG_METHODS=odp: UCX registers nothing but
                      one implicit ODP MR (its "global key") per host; the device's
                      odp_page_faults on host 1 must grow
  mpi_2x2             tests/apps/sib-mpi with 2 ranks on each host, mpirun's daemon on host
                      2 started through tests/apps/pair-rsh (no ssh in the guests)
  mpi_1x4             sib-mpi with 4 ranks on host 1
  fi_info             fi_info -p verbs shows the device's MSG and DGRAM domains
  fi_<msg|rdm|dgram>  fi_pingpong -c (data checked) with the verbs provider: MSG
                      endpoints, RDM endpoints over verbs;ofi_rxm, DGRAM endpoints;
                      100 x 1 KiB (the figure), then -S all (every size up to the
                      endpoint's largest message) twice each
MPI runs with --mca pml ucx, btl vader and tcp excluded, UCX_TLS=rc_verbs,ud_verbs,self and
UCX_NET_DEVICES=<dev>1:1: only the RDMA device can carry data between ranks.  One line per
case on stdout:
  CELL <softib|rxe> <workload> <case> PASS|FAIL <figure or why>
The softib cases are also appended to FILE as "RESULT apps_<case>_softib ok|FAIL <detail>",
with "apps_link" (eth1 reaches host 2), "apps_rxe_phase" (both hosts on rdma_rxe),
"apps_rxe_column" (how many rdma_rxe cases pass; informational, never fails) and
"apps_softib_back" (both hosts back on softib).  rdma_rxe's UD drops every UCX datagram
(it reports no L3 header type in wc.sl).  Phase 2 runs every case (ucx_am_lat_ud with an
8 s UD timeout); once its ucx_am_lat_ud has failed, the cases that use UD run with
UCX_UD_VERBS_ETH_DGID_CHECK=n, and their detail says so.  Phase 2 stops starting cases
after --rxe-budget seconds (default 1200): the rest are rdma_rxe FAIL cells "not run".
--cases runs only the named cases (of --list's, without apps_ and _softib) in both phases.
Both hosts end as vm-run set them up plus sib1: softib loaded (from --ko, default the
module vm-run loaded, else build/kernels/<release>/softib.ko; softib_db.ko next to it), sib0 on eth0, sib1 on eth1.
Host 2 (--role 2) only executes what host 1 asks for until host 1 says stop.  DIR must be
empty and visible to both guests.  --no-rxe: phase 1 only.  --list prints the result names.
Exit status 0 iff all softib cases passed.
USAGE
}
ROLE="" DIR="" RESULTS=/dev/null LIST=0 RXE=1 KO="" ONLY="" RXE_BUDGET=1200
while (($#)); do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--role) ROLE=${2:?}; shift 2 ;;
	--dir) DIR=${2:?}; shift 2 ;;
	--results) RESULTS=${2:?}; shift 2 ;;
	--ko) KO=${2:?}; shift 2 ;;
	--no-rxe) RXE=0; shift ;;
	--cases) ONLY=${2:?}; shift 2 ;;
	--rxe-budget) RXE_BUDGET=${2:?}; shift 2 ;;
	--list) LIST=1; shift ;;
	*) echo "apps.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# the softib.ko vm-run loaded (its guest config), else the tree's build for this kernel
if [[ -z $KO ]]; then
	# shellcheck source=/dev/null
	KO=$(. /run/vm-run/config 2>/dev/null && echo "${VM_SOFTIB_KO:-}")
	[[ -n $KO ]] || KO=$REPO/build/kernels/$(uname -r)/softib.ko
fi
TOOLS=$REPO/tools
TMO=${PROGRAM_TIMEOUT:-60}

[[ $RXE_BUDGET =~ ^[0-9]+$ ]] || { echo "apps.sh: --rxe-budget $RXE_BUDGET: not a number of seconds" >&2; exit 2; }
# the cases, in the order they run, each "workload case" (both phases run them all)
all_cases() {
	cat <<-EOF
	ucx ucx_info
	ucx ucx_put_bw_rc
	ucx ucx_get_bw_rc
	ucx ucx_am_lat_rc
	ucx ucx_am_lat_ud
	ucx ucx_am_bw_ud
	ucx ucp_tag_lat_rc
	ucx ucp_tag_bw_rc
	ucx ucp_stream_bw_rc
	ucx ucp_tag_lat_ud
	ucx ucp_tag_bw_ud
	ucx ucp_stream_bw_ud
	ucx ucp_verify_rc
	ucx ucp_verify_ud
	ucx ucp_verify_odp
	mpi mpi_2x2
	mpi mpi_1x4
	libfabric fi_info
	libfabric fi_msg
	libfabric fi_rdm
	libfabric fi_dgram
	EOF
}
for c in $ONLY; do
	all_cases | grep -q " $c\$" || { echo "apps.sh: --cases: no case $c" >&2; exit 2; }
done
table() { # all_cases, or those of --cases
	if [[ -z $ONLY ]]; then all_cases; return; fi
	all_cases | while read -r w c; do [[ " $ONLY " == *" $c "* ]] && echo "$w $c"; done
}
TL_PREFIX=apps_ TL_QUIET=1
# shellcheck source=../lib/testlib.sh
. "$HERE/../lib/testlib.sh"
mapfile -t names < <(echo link; table | while read -r _ c; do echo "${c}_softib"; done
	((RXE)) && printf '%s\n' rxe_phase rxe_column; echo softib_back)
cases "${names[@]}"
[[ $ROLE == 1 || $ROLE == 2 ]] || { usage >&2; exit 2; }
[[ -d $DIR ]] || { echo "apps.sh: --dir $DIR: no such directory" >&2; exit 2; }

RPC_DIR=$DIR RPC_ROLE=$ROLE
# shellcheck source=../../tools/lib/pair-rpc.sh
. "$TOOLS/lib/pair-rpc.sh"

# to_rxe / to_softib: this host's RDMA device on eth1 (and softib's sib0 on eth0); the
# commands are run as they are on both hosts (host 2 through a request)
TO_RXE="for d in sib1 sib0; do [[ -e /sys/class/infiniband/\$d ]] && rdma link delete \$d; done
	for i in 1 2 3 4 5 6 7 8 9 10; do rmmod softib 2>/dev/null && break; sleep 1; done
	[[ -d /sys/module/softib ]] && { echo 'softib still in use'; exit 1; }
	[[ -d /sys/module/softib_db ]] && rmmod softib_db
	modprobe rdma_rxe && rdma link add rxe1 type rxe netdev eth1 &&
	for i in \$(seq 100); do grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state && break; sleep 0.1; done &&
	$TOOLS/roce-gid-index --addr \$(ip -4 -o addr show eth1 | awk '{ sub(\"/.*\", \"\", \$4); print \$4 }') rxe1"
TO_SOFTIB="[[ -e /sys/class/infiniband/rxe1 ]] && rdma link delete rxe1
	for i in 1 2 3 4 5 6 7 8 9 10; do [[ -d /sys/module/rdma_rxe ]] || break; rmmod rdma_rxe 2>/dev/null && break; sleep 1; done
	modprobe -a \$(modinfo -F depends $KO | tr , ' ') || exit 1
	[[ -d /sys/module/softib ]] || { { [[ ! -f $(dirname "$KO")/softib_db.ko ]] || insmod $(dirname "$KO")/softib_db.ko; } && insmod $KO; } || exit 1
	[[ -e /sys/class/infiniband/sib0 ]] || rdma link add sib0 type softib netdev eth0 || exit 1
	[[ -e /sys/class/infiniband/sib1 ]] || rdma link add sib1 type softib netdev eth1 || exit 1
	for i in \$(seq 100); do grep -q ACTIVE /sys/class/infiniband/sib1/ports/1/state && break; sleep 0.1; done
	$TOOLS/roce-gid-index --addr \$(ip -4 -o addr show eth1 | awk '{ sub(\"/.*\", \"\", \$4); print \$4 }') sib1"

# ---------------------------------------------------------------- host 2: the executor
if [[ $ROLE == 2 ]]; then
	if ! { rdma link add sib1 type softib netdev eth1 && wait_active sib1 &&
		gid_index sib1 10.0.3.2 50 0.2 >/dev/null; }; then
		rpc_put "$DIR/ready.0" "setup failed"
		exit 3
	fi
	rpc_put "$DIR/ready.0" "softib sib1"
	rc=0
	rpc_serve || rc=3
	# whatever happened, end as the usage says: softib, sib0 and sib1
	bash -c "$TO_SOFTIB" >/dev/null 2>&1 || { echo "apps.sh: host 2 could not return to softib" >&2; rc=3; }
	exit $rc
fi

# ---------------------------------------------------------------- host 1: the cases
OUT=$(mktemp -d /tmp/apps.XXXXXX)
stop_peer() { rpc_remote stop ""; }
trap stop_peer EXIT
check() { # NAME ok|FAIL DETAIL
	echo "CHECK $1 $([[ $2 == ok ]] && echo PASS || echo FAIL) ${3:-}"
	result "$1" "$2" "${3:-}"
}

if ! { rdma link add sib1 type softib netdev eth1 && wait_active sib1; }; then
	echo "sib1 on eth1 failed" >&2
	exit 3
fi
rpc_wait_file "$DIR/ready.0" 300 || { check link FAIL "host 2 did not get ready"; exit 1; }
r=$(timeout 10 bash -c 'exec 3<>/dev/tcp/10.0.3.2/9' 2>&1)
if [[ $r == *"Connection refused"* ]] && grep -q softib "$DIR/ready.0"; then
	check link ok "eth1 reaches host 2; host 2 has $(cat "$DIR/ready.0")"
else
	check link FAIL "10.0.3.2: ${r:-no answer}; host 2: $(cat "$DIR/ready.0")"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=$REPO/tests/apps/sib-mpi UCP=$REPO/tests/apps/sib-ucp
PHASE=softib DEV=sib1 UCX_EXTRA="" UD_NOTE=""

# remote_server PORT COMMAND: COMMAND on host 2 in the background, once it listens on TCP
# PORT; sets rn.  local_client COMMAND...: the client here, output in $cout, status in crc
remote_server() {
	rpc_remote "server:tcp:$1" "$2"
	rpc_wait_file "$DIR/ready.$rn" "$TMO"
}
peer_done() { # wait for host 2's request $rn; its output to $sout, status to src
	src=99
	rpc_wait_file "$DIR/rc.$rn" $((TMO + 10)) && src=$(cat "$DIR/rc.$rn")
	cp "$DIR/out.$rn" "$sout" 2>/dev/null || : >"$sout"
}

# ucx_pair NAME ENV UCT|UCP ARGS...: ucx_perftest server on host 2, client here; sets why
# and fig (the "Final:" line's figure: latency in us or bandwidth in MB/s)
ucx_pair() {
	local name=$1 env=$2 kind=$3 f line; shift 3
	local uct=()
	[[ $kind == UCT ]] && uct=(-d "$DEV:1")
	cout=$OUT/$name.client sout=$OUT/$name.server why="" fig=""
	remote_server 13337 "$env $UCX_EXTRA UCX_NET_DEVICES=$DEV:1 timeout -s KILL $TMO ucx_perftest ${uct[*]} $* -f" ||
		why+=" server did not listen;"
	crc=0
	# shellcheck disable=SC2086 # (env: VAR=value words)
	env $env $UCX_EXTRA UCX_NET_DEVICES="$DEV:1" timeout -s KILL "$TMO" ucx_perftest 10.0.3.2 "${uct[@]}" "$@" -f >"$cout" 2>&1 || crc=$?
	peer_done
	((crc == 0)) || why+=" client exit $crc;"
	((src == 0)) || why+=" server exit $src;"
	for f in "$cout" "$sout"; do
		grep -q 'UCX  ERROR\|Fatal\|backtrace' "$f" && why+=" $(basename "$f"): $(grep -m1 'UCX  ERROR\|Fatal\|backtrace' "$f" | cut -c1-100);"
		# softib's provider once kept a second reference on each completion channel
		grep -q 'ibv_destroy_comp_channel' "$f" && why+=" $(basename "$f"): ibv_destroy_comp_channel failed;"
	done
	# -f: one line of figures: iterations, latency (us: median, average, overall),
	# bandwidth (MB/s: average, overall), message rate (average, overall); an average
	# can be "-nan" (no sample in the last report interval): the median latency and the
	# overall bandwidth are taken
	line=$(awk 'NF == 8 && $1 ~ /^[0-9]+$/' "$cout" | tail -1)
	[[ -n $line ]] || why+=" no final figures;"
	read -r -a f <<<"$line"
	if [[ $* == *_lat* ]]; then fig="${f[1]:-?} us (median)"
	else fig="${f[5]:-?} MB/s"; fi
	[[ ${fig%% *} =~ ^[0-9.]+$ ]] || why+=" no figure;"
	if ! [[ ${f[0]:-} =~ ^[0-9]+$ ]] || ((f[0] == 0)); then why+=" no iterations;"; fi
}

# fi_pair NAME ARGS...: fi_pingpong -c (data integrity checks) server on host 2, client here:
# 100 messages of 1 KiB (the figure), then every size twice; sets why, fig
fi_pair() {
	local name=$1 line n last; shift
	cout=$OUT/$name.client sout=$OUT/$name.server why="" fig=""
	fi_once -I 100 -S 1024 "$@"
	# bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
	line=$(awk '$2 == "100" && $3 == "=100" && $1 ~ /^[0-9.]+[kmg]?$/ { print; exit }' "$cout")
	[[ -n $line ]] || why+=" no result line of 100 messages sent and acknowledged;"
	read -r -a f <<<"$line"
	fig="${f[6]:-?} us/xfer, ${f[5]:-?} MB/s"
	[[ -n $why ]] && return
	# then every size fi_pingpong has (1 B up to the endpoint's largest message, 1.5 steps
	# of each power of two), each checked (-c), twice each
	cout=$OUT/$name.sizes.client sout=$OUT/$name.sizes.server
	fi_once -I 2 -S all "$@"
	n=$(awk '$2 == "2" && $3 == "=2" && $1 ~ /^[0-9.]+[kmg]?$/' "$cout" | grep -c .)
	last=$(awk '$2 == "2" && $3 == "=2" && $1 ~ /^[0-9.]+[kmg]?$/ { l = $1 } END { print l }' "$cout")
	((n >= 10)) || why+=" -S all: $n sizes sent and acknowledged (want 10 or more);"
	fig+=", $n sizes 1..$last B checked"
}
# fi_once ARGS...: fi_pingpong ARGS with data checks (-c), server on host 2, client here (its
# output to $cout, the server's to $sout); adds to why
fi_once() {
	# (quoted for host 2's shell: "verbs;ofi_rxm")
	remote_server 47592 "timeout -s KILL $TMO fi_pingpong $(printf '%q ' "$@")-c" || why+=" server did not listen;"
	crc=0
	timeout -s KILL "$TMO" fi_pingpong "$@" -c 10.0.3.2 >"$cout" 2>&1 || crc=$?
	peer_done
	((crc == 0)) || why+=" client exit $crc;"
	((src == 0)) || why+=" server exit $src;"
}

# ucp_verify NAME TLS: tests/apps/sib-ucp's server on host 2, its client here, over the
# transports TLS on the device alone; sets why, fig.  The client's --info lines (the
# endpoint's lanes) must name the device's port with the transport that carries data.
ucp_verify() {
	local name=$1 tls=$2 line
	cout=$OUT/$name.client sout=$OUT/$name.server why="" fig=""
	[[ -x $UCP ]] || { why="no $UCP (make apps; needs libucx-dev)"; return; }
	local env="UCX_TLS=$tls $UCX_EXTRA UCX_NET_DEVICES=$DEV:1"
	# the program's own limit per operation is TMO; the whole run gets five times that (90 s
	# on a quiet host; on one loaded by other guests softib's UD run took over 120 s, every
	# byte right, until the kill)
	remote_server 13339 "$env timeout -s KILL $((TMO * 5)) $UCP --server --port 13339 --timeout $TMO" ||
		why+=" server did not listen;"
	crc=0
	# shellcheck disable=SC2086 # (env: VAR=value words)
	# 2 messages of each size, 300 round trips, 8 MiB in flight (about 90 MiB in all)
	env $env timeout -s KILL $((TMO * 5)) "$UCP" --client 10.0.3.2 --port 13339 --timeout "$TMO" \
		--iters 2 --lat-iters 300 --bw-msgs 8 --info >"$cout" 2>&1 || crc=$?
	TMO=$((TMO * 5)) peer_done
	((crc == 0)) || why+=" client exit $crc;"
	((src == 0)) || why+=" server exit $src;"
	for f in "$cout" "$sout"; do
		grep -q 'sib-ucp: FAIL\|sib-ucp: mismatch' "$f" && why+=" $(basename "$f"): $(grep -m1 'sib-ucp: FAIL\|sib-ucp: mismatch' "$f" | cut -c1-160);"
		grep -q 'UCX  ERROR\|Fatal\|backtrace' "$f" && why+=" $(basename "$f"): $(grep -m1 'UCX  ERROR\|Fatal\|backtrace' "$f" | cut -c1-100);"
		grep -q 'ibv_destroy_comp_channel' "$f" && why+=" $(basename "$f"): ibv_destroy_comp_channel failed;"
	done
	if ((crc != 0)); then
		line=$(grep 'sib-ucp: .* done at' "$cout" | tail -1)
		why+=" the client got to: ${line:-not even the end of the first phase};"
	fi
	grep -q '^sib-ucp: PASS server' "$sout" || why+=" no PASS line from the server;"
	local want=${tls%%,*}; [[ $want == rc ]] && want=rc_verbs
	grep -q "lane\[[0-9]*\]: *[0-9]*:$want/$DEV:1" "$cout" || why+=" no $want lane on $DEV:1 in the endpoint's lanes;"
	line=$(grep -m1 '^sib-ucp: PASS tag' "$cout")
	[[ -n $line ]] || { why+=" no PASS line from the client;"; return; }
	[[ $line =~ round\ trip\ ([0-9.]+)\ us,\ 1\ MiB\ tag\ ([0-9.]+)\ MB/s ]] || why+=" no figures;"
	fig="verified, 8 B ${BASH_REMATCH[1]:-?} us, 1 MiB ${BASH_REMATCH[2]:-?} MB/s"
}

# odp_faults: the device's odp_page_faults counter (0 if it has none)
odp_faults() {
	local n
	n=$(rdma statistic show link "$DEV/1" 2>/dev/null | grep -oE 'odp_page_faults [0-9]+' | cut -d' ' -f2)
	echo "${n:-0}"
}

# mpi_run NAME RANKS HOSTS: sib-mpi; sets why, fig
mpi_run() {
	local name=$1 np=$2 hosts=$3 n
	# shellcheck disable=SC2054 # (commas inside mpirun's values)
	local opts=(--allow-run-as-root --oversubscribe -np "$np" --host "$hosts"
		--mca pml ucx --mca osc ucx --mca btl "^vader,tcp,openib,uct"
		--mca oob_tcp_if_include eth1 --mca plm rsh --mca plm_rsh_agent "$REPO/tests/apps/pair-rsh"
		-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_NET_DEVICES="$DEV:1")
	local v
	for v in $UCX_EXTRA; do opts+=(-x "$v"); done
	cout=$OUT/$name.out why="" fig=""
	[[ -x $MPI ]] || { why="no $MPI (make -C tests/apps; needs mpicc)"; return; }
	n=""
	if [[ $hosts == *10.0.3.2* ]]; then
		# the request number pair-rsh will use on host 2
		RPC_REQ=$((RPC_REQ + 1)) n=$RPC_REQ
		export SIB_RSH_DIR=$DIR SIB_RSH_REQ=$n SIB_RSH_TIMEOUT=$((TMO * 2))
	fi
	crc=0
	# (mpirun forwards its stdin to rank 0: not the table of cases)
	timeout -s KILL $((TMO * 2)) mpirun "${opts[@]}" "$MPI" --iters 20 </dev/null >"$cout" 2>&1 || crc=$?
	if [[ -n $n ]]; then
		# no daemon was asked for: host 2's executor still waits for request n
		[[ -e $DIR/req.$n ]] || rpc_put "$DIR/req.$n" "run true"
		rpc_wait_file "$DIR/rc.$n" 30 || why+=" host 2's daemon did not end;"
		cat "$DIR/out.$n" >>"$cout" 2>/dev/null
	fi
	if ((crc == 137)) && grep -q '^SIBMPI PASS' "$cout"; then
		why+=" every check passed, then the job hung in MPI_Finalize (killed after $((TMO * 2)) s);"
	elif ((crc != 0)); then
		why+=" mpirun exit $crc;"
	fi
	grep -q 'SIBMPI .* FAIL' "$cout" && why+=" $(grep -m1 'SIBMPI .* FAIL' "$cout");"
	grep -q 'ibv_destroy_comp_channel' "$cout" && why+=" ibv_destroy_comp_channel failed;"
	for v in p2p collectives onesided; do
		grep -q "^SIBMPI $v ok" "$cout" || why+=" no $v result;"
	done
	line=$(grep -m1 '^SIBMPI PASS' "$cout")
	[[ $line == "SIBMPI PASS ranks $np "* ]] || why+=" no PASS line of $np ranks;"
	read -r -a f <<<"$line"
	fig="8 B ${f[5]:-?} us, 1 MiB ${f[8]:-?} MB/s"
}

# run_case WORKLOAD CASE: one case on the current phase; prints the CELL line, records the
# softib result; sets ok (1 passed)
declare -A RXE_FAILED=()
run_case() {
	local w=$1 c=$2 out
	why="" fig="" cout="" sout=""
	case $c in
	ucx_info)
		cout=$OUT/$c.out
		timeout -s KILL "$TMO" ucx_info -d >"$cout" 2>&1 || why+=" ucx_info exit $?;"
		out=$(awk -v d="$DEV:1" '/# Memory domain:/ { md = $4 } /# +Transport:/ { tl = $3 }
			/# +Device:/ && $3 == d { print tl }' "$cout" | sort -u | tr '\n' ' ')
		for v in rc_verbs ud_verbs; do [[ " $out" == *" $v "* ]] || why+=" $DEV:1 without $v;"; done
		fig="$DEV:1: ${out% }" ;;
	ucx_put_bw_rc) ucx_pair "$c" "" UCT -x rc_verbs -t put_bw -D zcopy -s 65536 -n 100 -w 10 ;;
	ucx_get_bw_rc) ucx_pair "$c" "" UCT -x rc_verbs -t get -D zcopy -s 65536 -n 100 -w 10 ;;
	ucx_am_lat_rc) ucx_pair "$c" "" UCT -x rc_verbs -t am_lat -s 8 -n 300 -w 30 ;;
	ucx_am_lat_ud)
		# on rdma_rxe a UD timeout of 8 s (UCX's default: 30 s) and 20 s for the programs
		if [[ $PHASE == rxe ]]; then
			TMO=20 ucx_pair "$c" UCX_UD_VERBS_TIMEOUT=8s UCT -x ud_verbs -t am_lat -s 8 -n 300 -w 30
		else
			ucx_pair "$c" "" UCT -x ud_verbs -t am_lat -s 8 -n 300 -w 30
		fi ;;
	ucx_am_bw_ud) ucx_pair "$c" "" UCT -x ud_verbs -t am_bw -D bcopy -s 512 -n 300 -w 30 ;;
	ucp_tag_lat_rc) ucx_pair "$c" UCX_TLS=rc UCP -t tag_lat -s 8 -n 300 -w 30 ;;
	ucp_tag_bw_rc) ucx_pair "$c" UCX_TLS=rc UCP -t tag_bw -s 65536 -n 100 -w 10 ;;
	ucp_stream_bw_rc) ucx_pair "$c" UCX_TLS=rc UCP -t stream_bw -s 65536 -n 100 -w 10 ;;
	ucp_tag_lat_ud) ucx_pair "$c" UCX_TLS=ud_verbs UCP -t tag_lat -s 8 -n 300 -w 30 ;;
	ucp_tag_bw_ud) ucx_pair "$c" UCX_TLS=ud_verbs UCP -t tag_bw -s 65536 -n 100 -w 10 ;;
	ucp_stream_bw_ud) ucx_pair "$c" UCX_TLS=ud_verbs UCP -t stream_bw -s 65536 -n 100 -w 10 ;;
	ucp_verify_rc) ucp_verify "$c" rc,self ;;
	ucp_verify_ud) ucp_verify "$c" ud_verbs,self ;;
	ucp_verify_odp)
		local f0 f1 extra=$UCX_EXTRA
		f0=$(odp_faults)
		# (not a prefix assignment: that would export UCX_EXTRA, and UCX warns of it)
		UCX_EXTRA="$extra UCX_IB_REG_METHODS=odp"
		ucp_verify "$c" rc,self
		UCX_EXTRA=$extra
		f1=$(odp_faults)
		((f1 > f0)) || why+=" $DEV's odp_page_faults did not grow ($f0 -> $f1): UCX did not use ODP;"
		fig+=", odp_page_faults +$((f1 - f0))" ;;
	mpi_2x2)
		# the same limit for both devices (twice PROGRAM_TIMEOUT; softib took 35-38 s on a
		# quiet host, 112 s on a loaded one): a shorter one for rdma_rxe showed only a kill
		TMO=$((TMO > 120 ? TMO : 120)) mpi_run "$c" 4 "10.0.3.1:2,10.0.3.2:2" ;;
	mpi_1x4) mpi_run "$c" 4 "localhost:4" ;;
	fi_info)
		cout=$OUT/$c.out
		timeout -s KILL "$TMO" fi_info -p verbs >"$cout" 2>&1 || why+=" fi_info exit $?;"
		grep -q "domain: *$DEV\$" "$cout" || why+=" no MSG domain $DEV;"
		grep -q "domain: *$DEV-dgram\$" "$cout" || why+=" no DGRAM domain $DEV-dgram;"
		fig="$(grep -c 'provider:' "$cout") entries: $(grep -o 'FI_EP_[A-Z]*' "$cout" | sort -u | tr '\n' ' ')" ;;
	fi_msg) fi_pair "$c" -p verbs -e msg -d "$DEV" ;;
	fi_rdm) fi_pair "$c" -p "verbs;ofi_rxm" -e rdm -d "$DEV" ;;
	fi_dgram) fi_pair "$c" -p verbs -e dgram -d "$DEV-dgram" ;;
	esac
	why=${why# } fig=${fig% }
}
# case_report WORKLOAD CASE T0: the CELL line of run_case's outcome and the softib result
case_report() {
	local w=$1 c=$2 t=$3
	fig+=$RETRY_NOTE
	[[ -n $why ]] && why="${why%;}$RETRY_NOTE;"
	if [[ -z $why ]]; then
		ok=1
		echo "CELL $PHASE $w $c PASS $fig$UD_NOTE ($((SECONDS - t)) s)"
	else
		ok=0
		echo "CELL $PHASE $w $c FAIL ${why%;} ($((SECONDS - t)) s)"
		local f
		for f in $cout $sout; do [[ -f $f ]] && { echo "---- $(basename "$f"):"; tail -8 "$f" | sed 's/^/   /'; }; done
	fi
	if [[ $PHASE == softib ]]; then
		if ((ok)); then result "${c}_softib" ok "$fig"; else result "${c}_softib" FAIL "${why%;}"; fi
	elif ((!ok)); then
		RXE_FAILED[$c]=1
	fi
}

# QEMU 7.2's virtio-net can stall a guest's eth1 TX queue for good under load (one or two
# times in a heavy run on some hosts); tools/vm-guest-init's watchdog then resets the NIC and
# adds the RDMA link again, but the case running then ran on a dead wire. wire_stalls sets WS
# to the number of such resets on both hosts so far.
STALLS="dmesg | grep -c 'vm-guest-init: eth1 .*TX queue stalled'"
wire_stalls() {
	local b=0
	rpc_get b "$STALLS" 30
	WS=$(($(bash -c "$STALLS") + ${b:-0}))
}
# run_checked WORKLOAD CASE: run_case; a case that failed while eth1 stalled on either host
# runs again (twice at most), once both hosts' device is active and no stall came for 10 s
# (a reset is often followed by another stall within seconds), and its figure says so
run_checked() {
	local w=$1 c=$2 t=$SECONDS s0 s1 i n
	RETRY_NOTE=""
	wire_stalls; s0=$WS
	run_case "$w" "$c"
	for ((n = 1; n <= 2; n++)); do
		[[ -n $why ]] || break
		wire_stalls
		((WS > s0)) || break
		echo "apps.sh: $c: eth1 stalled during the case (QEMU's TX queue; the guest reset it): again"
		for ((i = 0; i < 6; i++)); do
			s1=$WS
			rpc_nap 10
			wire_stalls
			((WS == s1)) && break
		done
		s0=$WS
		wait_active "$DEV" 300
		rpc_run ". $HERE/../lib/testlib.sh && wait_active $DEV 300" 60
		t=$SECONDS
		run_case "$w" "$c"
		RETRY_NOTE=" (run $((n + 1)) times: eth1 stalled in QEMU during the run before)"
	done
	case_report "$w" "$c" "$t"
}
uses_ud() { [[ $1 == *_ud || $1 == ucp_*_rc || $1 == ucp_verify_odp || $1 == mpi_* ]]; }
t0=$SECONDS
while read -r w c; do run_checked "$w" "$c" </dev/null; done < <(table)
echo "apps.sh: softib phase done in $((SECONDS - t0)) s"

if ((RXE)); then
	t1=$SECONDS
	rpc_remote run "$TO_RXE"
	lrc=0; bash -c "$TO_RXE" >"$OUT/to_rxe" 2>&1 || lrc=$?
	if rpc_wait_file "$DIR/rc.$rn" 120 && [[ $(cat "$DIR/rc.$rn") == 0 ]] && ((lrc == 0)); then
		check rxe_phase ok "both hosts: softib unloaded, rxe1 on eth1"
		PHASE=rxe DEV=rxe1
		nrxe=0 pass=0
		while read -r w c; do
			nrxe=$((nrxe + 1))
			if ((SECONDS - t1 > RXE_BUDGET)); then
				# failing rdma_rxe cases each wait out their timeouts: the stage has a limit
				echo "CELL rxe $w $c FAIL not run: the rdma_rxe phase's budget of $RXE_BUDGET s was spent (0 s)"
				RXE_FAILED[$c]=1
				continue
			fi
			UCX_EXTRA="" UD_NOTE=""
			if [[ -n ${RXE_FAILED[ucx_am_lat_ud]:-} ]] && uses_ud "$c"; then
				# rdma_rxe reports no L3 header type in wc.sl: UCX's UD drops every datagram
				UCX_EXTRA="UCX_UD_VERBS_ETH_DGID_CHECK=n" UD_NOTE=" (rxe: UCX_UD_VERBS_ETH_DGID_CHECK=n)"
			fi
			run_checked "$w" "$c" </dev/null
			pass=$((pass + ok))
		done < <(table)
		UCX_EXTRA=""
		check rxe_column ok "rdma_rxe (informational): $pass of $nrxe cases pass; failing: ${!RXE_FAILED[*]}"
	else
		check rxe_phase FAIL "host 1: $(tr '\n' ' ' <"$OUT/to_rxe"); host 2: $(tr '\n' ' ' <"$DIR/out.$rn" 2>/dev/null)"
		check rxe_column ok "not run: no rdma_rxe"
	fi
	echo "apps.sh: rxe phase done in $((SECONDS - t1)) s"
fi

rpc_remote run "$TO_SOFTIB"
lrc=0; bash -c "$TO_SOFTIB" >"$OUT/to_softib" 2>&1 || lrc=$?
if rpc_wait_file "$DIR/rc.$rn" 120 && [[ $(cat "$DIR/rc.$rn") == 0 ]] && ((lrc == 0)); then
	check softib_back ok "both hosts: softib loaded, sib0 on eth0, sib1 on eth1"
else
	check softib_back FAIL "host 1: $(tr '\n' ' ' <"$OUT/to_softib"); host 2: $(tr '\n' ' ' <"$DIR/out.$rn" 2>/dev/null)"
fi
echo "apps.sh: done in $((SECONDS - t0)) s"
rm -rf "$OUT"
echo "apps: $nok passed, $nfail failed"
tl_status
