# shellcheck shell=bash
# shellcheck disable=SC2034 # (variables the sourcing scripts read)
# testlib.sh: the helpers every guest script of tests/vm/ shares (sourced, after the script
# has parsed its options).  docs/testing.md, "The guest scripts' library", says how to use it.
#
# Results and the list of cases
#   cases NAME...        the cases the script will report, in order (unprefixed); call it
#                        once, after the options that choose the cases are known.  With
#                        LIST=1 (the script's --list) it prints them, prefixed, one a line,
#                        and exits 0: nothing else of the script runs.  Otherwise a result()
#                        of a name not among them is an error (tl_status 3).
#   listing NAME         for scripts whose case runner is the list: with LIST=1 prints the
#                        prefixed NAME and returns 0 (the runner then returns without
#                        running the case), else returns 1.  With --list the script then goes
#                        through its cases without running any: the code that runs them is
#                        the code that lists them
#   result NAME ok|FAIL [DETAIL]
#                        "RESULT <TL_PREFIX>NAME ok|FAIL DETAIL" on stdout (unless
#                        TL_QUIET=1; with TL_STAMP=1 followed by " [<seconds>s]") and
#                        appended to $RESULTS; counts nok / nfail, TL_DONE gets "NAME
#                        STATUS", TL_FAILED NAME (for the scripts' summary lines)
#   tl_status            the script's exit status: 0 all ok, 1 a case failed, 3 a case was
#                        reported that cases did not list
#   TL_CASE_LIST         the names given to cases, in order
# Waiting
#   wait_listen PORT [PID [NETNS [TRIES]]]   a TCP listener on PORT (in NETNS, "-" or ""
#                        for the initial one); status 1 when PID died first or after TRIES
#                        tenths of a second (default 200)
#   gid_index DEV [ADDR [TRIES [STEP]]]     prints DEV's RoCE v2 GID index (of ADDR, else the
#                        IPv4 one), waiting for the GID cache: TRIES (default 100) x STEP
#                        (default 0.1) s; status 1 when there is none
#   wait_gid DEV [ADDR [TRIES [STEP]]]      the same without printing
#   wait_active DEV [TRIES]                  port 1 of DEV ACTIVE (TRIES tenths of a second)
# Network namespaces
#   nsx NETNS|- CMD...   CMD in NETNS ("-": the initial one)
#   netns_pair NSA NSB VETHA VETHB ADDRA ADDRB [MTU]
#                        two namespaces joined by a veth pair, VETHA (ADDRA/24) in NSA and
#                        VETHB (ADDRB/24) in NSB, lo and both ends up; status 1 on failure
# Counters
#   counter DEV NAME [MISSING]   port 1's hw counter NAME of DEV (sysfs); MISSING when DEV
#                        has no such counter (without MISSING: cat's error and status)
#   counters DEV ARRAY   every counter of DEV's port 1 as `rdma statistic` shows it, into
#                        the associative ARRAY[name]
#   counters_delta BEFORE AFTER NAME   AFTER[NAME] - BEFORE[NAME] of two such snapshots
# perftest
#   perftest_clock_lost FILE [ITERS]   status 0 when perftest's output FILE shows a run whose
#                        figure its CPU clock spoiled: the fit of the clock failed
#                        ("Correlation coefficient r^2"), or the result row reports every
#                        iteration (ITERS, if given) but 0 (Gb/s, or the least latency).
#                        perftest samples that clock against the time of day; a TCG guest
#                        that stalls between two samples gets 0 for a run that moved every
#                        message. Scripts run such a run again (once or twice), nothing else.

TL_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TL_PREFIX=${TL_PREFIX:-} TL_QUIET=${TL_QUIET:-0} TL_STAMP=${TL_STAMP:-0}
RESULTS=${RESULTS:-/dev/null}
nok=0 nfail=0 TL_DONE=() TL_FAILED=() TL_UNLISTED=()
declare -A TL_CASES=()
TL_CASE_LIST=()
TL_LISTED=0

cases() {
	local c
	if ((${LIST:-0})); then
		for c in "$@"; do printf '%s%s\n' "$TL_PREFIX" "$c"; done
		exit 0
	fi
	for c in "$@"; do TL_CASES[$c]=1; done
	TL_CASE_LIST=("$@") TL_LISTED=1
}

listing() { # NAME
	((${LIST:-0})) || return 1
	printf '%s%s\n' "$TL_PREFIX" "$1"
}

result() { # NAME ok|FAIL [DETAIL]
	local line="RESULT $TL_PREFIX$1 $2 ${3:-}"
	if ((TL_QUIET)); then :
	elif ((TL_STAMP)); then echo "$line [${SECONDS}s]"
	else echo "$line"; fi
	echo "$line" >>"$RESULTS"
	if [[ $2 == ok ]]; then nok=$((nok + 1)); else nfail=$((nfail + 1)); TL_FAILED+=("$1"); fi
	TL_DONE+=("$1 $2")
	if ((TL_LISTED)) && [[ -z ${TL_CASES[$1]:-} ]]; then
		TL_UNLISTED+=("$1")
		echo "testlib: $TL_PREFIX$1 is not among the cases this script lists (--list): add it there" >&2
	fi
}

tl_status() {
	if ((${#TL_UNLISTED[@]})); then
		echo "testlib: reported but not listed: ${TL_UNLISTED[*]}"
		return 3
	fi
	((nfail == 0))
}

nsx() { # NETNS|- CMD...
	local ns=$1; shift
	if [[ -z $ns || $ns == - ]]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

wait_listen() { # PORT [PID [NETNS [TRIES]]]
	local port=$1 pid=${2:-} ns=${3:-} i
	for ((i = 0; i < ${4:-200}; i++)); do
		nsx "$ns" ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && return 0
		[[ -z $pid ]] || kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

gid_index() { # DEV [ADDR [TRIES [STEP]]]
	local i
	for ((i = 0; i < ${3:-100}; i++)); do
		"$TL_REPO/tools/roce-gid-index" ${2:+--addr "$2"} "$1" 2>/dev/null && return 0
		sleep "${4:-0.1}"
	done
	return 1
}
wait_gid() { gid_index "$@" >/dev/null; }

wait_active() { # DEV [TRIES]
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

netns_pair() { # NSA NSB VETHA VETHB ADDRA ADDRB [MTU]
	local a=$1 b=$2 va=$3 vb=$4 mtu=()
	[[ -n ${7:-} ]] && mtu=(mtu "$7")
	ip netns add "$a" && ip netns add "$b" &&
		ip link add "$va" netns "$a" type veth peer name "$vb" netns "$b" &&
		ip -n "$a" addr add "$5/24" dev "$va" && ip -n "$b" addr add "$6/24" dev "$vb" &&
		ip -n "$a" link set "$va" "${mtu[@]}" up && ip -n "$b" link set "$vb" "${mtu[@]}" up &&
		ip -n "$a" link set lo up && ip -n "$b" link set lo up
}

counter() { # DEV NAME [MISSING]
	local f=/sys/class/infiniband/$1/ports/1/hw_counters/$2
	if (($# >= 3)) && [[ ! -r $f ]]; then echo "$3"; else cat "$f"; fi
}
counters() { # DEV ARRAY
	local -n _tl_c=$2
	local _tl_w i
	_tl_c=()
	read -ra _tl_w < <(rdma statistic show link "$1/1" 2>/dev/null)
	# shellcheck disable=SC2004 # (an associative array's key needs the ${})
	for ((i = 2; i + 1 < ${#_tl_w[@]}; i += 2)); do _tl_c[${_tl_w[i]}]=${_tl_w[i + 1]}; done
}
counters_delta() { # BEFORE AFTER NAME
	local -n _tl_b=$1 _tl_a=$2
	echo $((${_tl_a[$3]:-0} - ${_tl_b[$3]:-0}))
}
perftest_clock_lost() { # FILE [ITERS]
	grep -qs 'Correlation coefficient r^2' "$1" && return 0
	awk -v it="${2:-}" '/#bytes/ && !row { row = 1; next }
		row == 1 { row = 2; ok = ($2 ~ /^[0-9]+$/ && (it == "" || $2 == it) && $3 ~ /^[0-9.]+$/ && ($3 + 0 == 0 || $4 + 0 == 0)) }
		END { exit !ok }' "$1" 2>/dev/null
}
