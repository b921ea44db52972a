# tools/bench/lib.sh - source it, from the top of the tree, after tools/common/testbed.sh:
# shellcheck shell=bash
# what the benchmark, soak and demo scripts share. The rule: a step that fails stops the
# script with its message and exit 1 (the EXIT trap then cleans up); nothing is measured
# or reported around a failure, so tools/bench/report.sh never sees a partial result.
# Functions that give a value assign it to a variable named by the caller, because an
# exit inside $(...) would only end the subshell.
#
#   bench_die MSG...          "SCRIPT: MSG" on stderr, exit 1
#   bench_forced STEP         true if XTX_BENCH_FORCE_FAIL is STEP, or STEP@N and this is
#                             the N-th time STEP is reached: the script then makes that
#                             step fail the way it can fail for real (a refused option, a
#                             refused tc command), so that tests/net/bench_fail.sh can
#                             check what a failure leaves behind. Steps: sender, sink,
#                             shape, tc. Call it once per step taken, in the main shell.
#   bench_tc NS ARGS...       tc ARGS inside NS (tb_run); a refused command stops the
#                             script with tc's message
#   bench_exec NS CMD...      for a background job (bench_exec NS CMD... & PID=$!): checks
#                             NS as tb_run does, then execs CMD there, so that $! is CMD's
#                             own PID (for kill -INT, wait and /proc), not a subshell's
#   bench_ready F PID WHAT E  wait up to 10 s for the ready file F while PID lives; else
#                             stop, with WHAT's messages (its stderr file E)
#   bench_num VAR FILE EXPR   VAR = the number jq EXPR gives for FILE; a missing file,
#                             field or a non-number stops the script
#   bench_stat MED SPR V...   MED = the median of V..., SPR = max - min; no value stops
#   bench_pkts_ok N WHAT      stop unless N is a whole number above 0 (WHAT names it)
#   bench_opts "NAMES" ARGS...
#                             the option loop of the benchmark scripts: NAMES, a subset of
#                             "runs duration md json render", are the options the script
#                             takes (--runs K, --duration S, --md FILE, --json FILE,
#                             --render JSON); each sets the variable of its name (--duration:
#                             dur), which the script gives its default first. -h/--help
#                             prints the script's header (line 2 up to its `set -` line)
#                             and exits 0; any other option, or one without its value, is
#                             refused with a message and exit 2

bench_die() { echo "${0##*/}: $*" >&2; exit 1; }

declare -A BENCH_STEPS
bench_forced() { # STEP
	local f=${XTX_BENCH_FORCE_FAIL:-}
	BENCH_STEPS[$1]=$(( ${BENCH_STEPS[$1]:-0} + 1 ))
	[ "$f" = "$1" ] || [ "$f" = "$1@${BENCH_STEPS[$1]}" ]
}

bench_tc() { # NS ARGS...
	local ns=$1 out
	shift
	# A forced failure appends a word tc refuses, so the refusal is tc's own.
	bench_forced tc && set -- "$@" xtx-bench-forced-failure
	out=$(tb_run "$ns" tc "$@" 2>&1) ||
		bench_die "tc $* (in $ns) refused: ${out:-no message}"
	[ -z "$out" ] || printf '%s\n' "$out" >&2
}

bench_exec() { # NS CMD...
	tb_private "$1"
	exec ip netns exec "$@"
}

bench_ready() { # READY-FILE PID WHAT ERR-FILE
	for _ in $(seq 200); do
		[ -f "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	[ -f "$1" ] && return 0
	bench_die "$3 did not start:$(printf '\n'; cat "$4" 2>/dev/null)"
}

bench_num() { # VAR FILE EXPR
	local _bn_v
	[ -s "$2" ] || bench_die "$2: missing or empty (wanted $3)"
	_bn_v=$(jq -r "$3" "$2" 2>&1) || bench_die "$2: jq '$3' failed: $_bn_v"
	[[ $_bn_v =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]] ||
		bench_die "$2: '$3' is '$_bn_v', not a number"
	printf -v "$1" '%s' "$_bn_v"
}

bench_stat() { # MED SPR VALUES...
	local _bs_out _bs_v1 _bs_v2 _bs_m=$1 _bs_s=$2
	shift 2
	[ $# -gt 0 ] || bench_die "no values to take a median of ($_bs_m)"
	_bs_out=$(printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.6f %.6f", m, v[NR] - v[1] }')
	read -r _bs_v1 _bs_v2 <<<"$_bs_out"
	printf -v "$_bs_m" '%s' "$_bs_v1"
	printf -v "$_bs_s" '%s' "$_bs_v2"
}

bench_pkts_ok() { # N WHAT
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ] || bench_die "$2: $1 packets; a run that moved none is a failure"
}

bench_opts() { # "NAMES" ARGS...
	local _bo_names=" $1 " _bo_o
	shift
	while [ $# -gt 0 ]; do
		_bo_o=${1#--}
		case $1 in
		-h|--help) sed -n '2,/^set -/p' "$0" | sed '$d'; exit 0 ;;
		--runs|--duration|--md|--json|--render) [[ $_bo_names == *" $_bo_o "* ]] ;;
		*) false ;;
		esac || { echo "${0##*/}: unknown option $1 (see --help)" >&2; exit 2; }
		[ $# -ge 2 ] || { echo "${0##*/}: $1 needs a value (see --help)" >&2; exit 2; }
		[ "$_bo_o" = duration ] && _bo_o=dur
		printf -v "$_bo_o" '%s' "$2"
		shift 2
	done
}
