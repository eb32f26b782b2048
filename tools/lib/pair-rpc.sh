# pair-rpc.sh: orders between the two guests of tools/vm-pair, through files in a directory
# both see (the shared work dir).  Sourced by tests/vm/twohosts.sh and tools/bench-hosts.
#
# Host 1 asks, host 2 executes.  A request DIR/req.N holds "KIND COMMAND"; KIND is
#   run                 run COMMAND, then write its exit status to DIR/rc.N and its output
#                       to DIR/out.N
#   server:PROTO:PORT   run COMMAND in the background; DIR/ready.N once something listens
#                       on PROTO (tcp|udp) PORT (or COMMAND ended), then DIR/rc.N, DIR/out.N
#   stop                end rpc_serve
# Set RPC_DIR (empty, visible to both) and RPC_ROLE (1|2) before use.

# rpc_put FILE TEXT: write atomically (the other guest polls for FILE)
rpc_put() {
	printf '%s\n' "$2" >"$1.tmp.$RPC_ROLE" && mv "$1.tmp.$RPC_ROLE" "$1"
}
# rpc_nap SECONDS: wait without starting a process: read -t on a FIFO that nobody writes.
# A sleep process 5 times a second would cost a 1-vCPU guest a fork and an exec (over 9p)
# next to what it measures, on host 2 all the time rpc_serve waits.  sleep when no FIFO
# could be made.
RPC_NAP_FD=""
rpc_nap() {
	local f
	if [[ -z $RPC_NAP_FD ]]; then
		RPC_NAP_FD=none
		f=$(mktemp -u /tmp/pair-rpc-nap.XXXXXX) && mkfifo "$f" &&
			exec {RPC_NAP_FD}<>"$f"
		rm -f "$f"
	fi
	if [[ $RPC_NAP_FD == none ]]; then sleep "$1"; else read -rt "$1" -u "$RPC_NAP_FD" _; fi
	return 0
}
# rpc_wait_file FILE SECONDS: until FILE exists; status 1 on timeout
rpc_wait_file() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[[ -e $1 ]] && return 0
		rpc_nap 0.2
	done
	return 1
}
# rpc_listening PROTO PORT: a socket of PROTO listens on PORT here
rpc_listening() {
	if [[ $1 == udp ]]; then ss -Hlun "sport = :$2" 2>/dev/null | grep -q .
	else ss -Hltn "sport = :$2" 2>/dev/null | grep -q .; fi
}
# rpc_serve: host 2's loop, executing requests until "stop" (status 3 when none comes)
rpc_serve() {
	local n=1 r kind cmd
	while :; do
		rpc_wait_file "$RPC_DIR/req.$n" 1800 || { echo "pair-rpc: no request $n from host 1" >&2; return 3; }
		r=$(cat "$RPC_DIR/req.$n") kind=${r%% *} cmd=${r#* }
		[[ $kind == stop ]] && break
		(
			rc=0
			if [[ $kind == server:* ]]; then
				bash -c "$cmd" >"$RPC_DIR/out.$n" 2>&1 &
				pid=$!
				proto=${kind#server:} proto=${proto%%:*} port=${kind##*:}
				for _ in $(seq 300); do
					rpc_listening "$proto" "$port" && break
					kill -0 $pid 2>/dev/null || break
					sleep 0.1
				done
				rpc_put "$RPC_DIR/ready.$n" "listening"
				wait $pid || rc=$?
			else
				bash -c "$cmd" >"$RPC_DIR/out.$n" 2>&1 || rc=$?
			fi
			rpc_put "$RPC_DIR/rc.$n" $rc
		) &
		n=$((n + 1))
	done
	wait
}
# rpc_remote KIND COMMAND: send a request to host 2; sets rn to its number
RPC_REQ=0
rpc_remote() {
	RPC_REQ=$((RPC_REQ + 1)) rn=$RPC_REQ
	rpc_put "$RPC_DIR/req.$rn" "$1 $2"
}
# rpc_run COMMAND [SECONDS]: run COMMAND on host 2 and wait; its output is in
# $RPC_DIR/out.$rn, the status is its exit status (124 when it did not end within SECONDS,
# default 120).  Not in a command substitution: the request counter lives in this shell.
rpc_run() {
	rpc_remote run "$1"
	rpc_wait_file "$RPC_DIR/rc.$rn" "${2:-120}" || return 124
	return "$(cat "$RPC_DIR/rc.$rn")"
}
# rpc_get VAR COMMAND [SECONDS]: rpc_run, and its output (without the final newline) into VAR
rpc_get() {
	local _v=$1 _rc=0
	shift
	rpc_run "$@" || _rc=$?
	printf -v "$_v" '%s' "$(cat "$RPC_DIR/out.$rn" 2>/dev/null)"
	return $_rc
}
