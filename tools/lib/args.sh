# shellcheck shell=bash
# args.sh: the command-line manners of the shell tools under tools/ (sourced after the tool
# has set prog=NAME).  A usage error (an unknown option, an option without its value, a bad
# value) is one line on stderr, "NAME: PROBLEM (see --help)", and exit status 2, before the
# tool has changed or started anything.  vm-run and vm-pair set USAGE_STATUS=125: their exit
# status is otherwise COMMAND's, and 125 is what they have always kept for their own errors.
# tests/tools-args feeds every tool bad arguments.

# usage_error PROBLEM...: the one line, then exit
# shellcheck disable=SC2154 # prog: the tool's name, set by the tool
usage_error() {
	echo "$prog: $* (see --help)" >&2
	exit "${USAGE_STATUS:-2}"
}

# need_value "$@", at an option that takes a value ($1 the option): the value is there and
# not empty.  need_arg: it is there (it may be empty).
need_value() { (($# >= 2)) && [[ -n $2 ]] || usage_error "$1 needs a value"; }
need_arg() { (($# >= 2)) || usage_error "$1 needs a value"; }

# check_uint WHAT VALUE [MIN [MAX]]: VALUE is a whole decimal number, MIN (default 0)..MAX
check_uint() {
	local what=$1 v=$2 min=${3:-0} max=${4:-} range=""
	[[ $v =~ ^[0-9]{1,18}$ ]] && ((10#$v >= min)) && { [[ -z $max ]] || ((10#$v <= max)); } &&
		return 0
	if [[ -n $max ]]; then range=" $min..$max"; elif ((min > 0)); then range=" of at least $min"; fi
	usage_error "$what wants a whole number$range, not '$v'"
}

# check_seconds WHAT VALUE: VALUE is a positive decimal number (12, 0.5)
check_seconds() {
	[[ $2 =~ ^[0-9]{1,9}(\.[0-9]{1,9})?$ && $2 =~ [1-9] ]] ||
		usage_error "$1 wants a positive number of seconds, not '$2'"
}

# guest_only WHAT: WHAT, a guest-side mode that sets up network devices, namespaces and
# modules, runs only inside a tools/vm-run guest, whose kernel command line carries the
# vmrun.init= that vm-run passes; anywhere else it is refused, exit status 2.
guest_only() {
	local cmdline=""
	read -r cmdline 2>/dev/null </proc/cmdline || true
	[[ " $cmdline " == *" vmrun.init="* ]] && return 0
	# shellcheck disable=SC2154
	echo "$prog: $1 runs only inside a tools/vm-run guest (it changes the network and the" \
		"modules of the machine it runs on), and this is not one" >&2
	exit 2
}
