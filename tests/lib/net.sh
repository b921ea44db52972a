# tests/lib/net.sh - shared helpers for the network tests (source it).
#   net_init           root check (exit 77), jq check, a fresh testbed (tb_up: a name no
#                      other run has, checked to be a namespace other than the host's)
#                      and a cleanup trap; sets TB and the testbed's variables (TX_NS ...);
#                      any failed step ends the test (exit 1)
#   sink_start ARGS    xtx-sink on rx0 in the background, waits until attached
#   sink_stop          SIGINT the sink, wait, leave its JSON in $SINK_JSON
#   jget FILE EXPR     jq -r EXPR FILE; a missing field (null) fails the test, never a value
#   in_tx / in_rx CMD  CMD inside the tx / rx namespace, after checking it is not the host's
#   fail MSG           print and remember a failure (of the running test function)
#   net_run_tests      the last line of a test: runs each function of $ALL_TESTS, one
#                      result each (below), and exits 1 if any failed, else 0
#   net_skip REASON    the running test function is skipped (a missing optional peer only)
#   net_needs [--ran] FUNC...
#                      in a test function: 0 if each FUNC passed (or with --ran, ran),
#                      else skips "needs FUNC"
#   net_done           the last line of a test without test functions: exit 1 if any
#                      check failed, else 0
#
# Test functions (as xdp-tools' test_runner.sh): a script defines test_NAME functions,
# lists them in ALL_TESTS="test_a test_b ..." (a top-level assignment, one or more lines:
# the runner reads it from the file) and ends with net_run_tests. Each function runs in
# the script's shell, in order, on what the script set up before (net_init's testbed);
# it is one result, net/SCRIPT/NAME: FAIL if fail was called while it ran (in it or in a
# subshell of it), skip if it called net_skip, else ok. A failure before the first
# function (or a test_ function that ALL_TESTS leaves out) is net/SCRIPT/setup and no
# function runs; a function that exits the script
# (tb_die, a crash, the runner's timeout) is reported by the runner as not finished.
# Results go to $XTX_TEST_RESULTS when set (tests/run-tests.sh reads it), one line per
# event, tab-separated: "start NAME", "ok|FAIL|skip NAME SECONDS", and after a FAIL or
# skip "#" lines with its messages or reason. XTX_TEST_FILTER (a regex) selects the
# functions whose name matches, or all of them when it matches net/SCRIPT.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN=build/release/bin
FAILED=0
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT	# net_init's trap replaces this one and removes it too

. tools/common/testbed.sh

# A failure is also written to a file, so that one found in a subshell ($(jget ...))
# still fails the test.
fail() { echo "FAIL: $*"; FAILED=1; echo "$*" >>"$TMPD/failures"; }
net_done() { # the test's exit: 1 if anything failed, here or in a subshell
  [ -s "$TMPD/failures" ] && FAILED=1
  exit "$FAILED"
}
jget() { # FILE EXPR: the value; null or an unreadable file fails the test, prints MISSING
  local v
  v=$(jq -r "$2" "$1" 2>/dev/null) || v=null
  if [ -z "$v" ] || [ "$v" = null ]; then
    fail "field $2 missing in $1" >&2
    echo MISSING
    return 1
  fi
  printf '%s\n' "$v"
}
in_tx() { tb_run "$TX_NS" "$@"; }
in_rx() { tb_run "$RX_NS" "$@"; }

net_cleanup() {
  [ -n "${SINK_PID:-}" ] && kill -INT "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
  tb_down
  rm -rf "$TMPD"
}

net_init() { # [testbed up options]
  [ "$(id -u)" = 0 ] || { echo "skip: needs root (namespaces, XDP, AF_XDP)"; exit 77; }
  command -v jq >/dev/null || { echo "jq not installed: run make deps"; exit 1; }
  for b in xtx-send xtx-sink; do
    [ -x $BIN/$b ] || { echo "missing $BIN/$b: run make"; exit 1; }
  done
  trap net_cleanup EXIT
  tb_up n "$@"
}

sink_start() { # extra xtx-sink args
  SINK_JSON=$TMPD/sink.json
  rm -f "$TMPD/sink.ready"
  $BIN/xtx-sink --netns "$RX_NS" --dev "$RX_DEV" --interval 0 --json \
      --ready-file "$TMPD/sink.ready" "$@" > "$SINK_JSON" 2>"$TMPD/sink.err" &
  SINK_PID=$!
  for _ in $(seq 100); do [ -f "$TMPD/sink.ready" ] && return 0; sleep 0.05; done
  cat "$TMPD/sink.err"; fail "xtx-sink did not attach"; return 1
}

sink_stop() {
  sleep 0.3		# frames still in the veth's NAPI
  kill -INT "$SINK_PID"; wait "$SINK_PID"; SINK_PID=
}

send() { # xtx-send args (runs in the tx namespace)
  in_tx timeout 120 $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" \
     --dst-mac "$TX_NEXTHOP_MAC" "$@"
}

xdp_sockets() { # NS: AF_XDP sockets open in the namespace (/proc/net/protocols is per netns;
                # ss --xdp needs xdp_diag, which this kernel lacks)
  ip netns exec "$1" awk '$1 == "XDP" { print $3 }' /proc/net/protocols
}

# --- test functions: one result each ---------------------------------------------------
NET_TEST=net/$(basename "$0" .sh)
NET_T0=$(date +%s.%N)
declare -A NET_RESULT=()	# function -> ok | FAIL | skip, for net_needs

net_skip() { # REASON: the running test function is skipped; the caller returns
  echo "skip: $*"
  printf '%s\n' "$*" >"$TMPD/skip"
}
net_needs() { # [--ran] FUNC...: 0 if each FUNC passed (--ran: ran at all), else the
               # caller is skipped (it returns): its checks are about FUNC's run
  local f ran=
  [ "${1:-}" = --ran ] && { ran=1; shift; }
  for f in "$@"; do
    [ "${NET_RESULT[$f]:-}" = ok ] && continue
    [ -n "$ran" ] && [ -n "${NET_RESULT[$f]:-}" ] && continue
    net_skip "needs ${f#test_} (${NET_RESULT[$f]:-not run})"
    return 1
  done
}
_net_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
_net_event() { # fields...: one tab-separated line of the results file
  [ -n "${XTX_TEST_RESULTS:-}" ] || return 0
  local IFS=$'\t'
  printf '%s\n' "$*" >>"$XTX_TEST_RESULTS"
}
_net_result() { # STATUS NAME SECONDS [FILE: messages]
  printf '%-5s %-44s %ss\n' "$1" "$2" "$3"
  [ -n "${4:-}" ] && sed 's/^/      | /' "$4"
  [ -n "${XTX_TEST_RESULTS:-}" ] || return 0
  _net_event "$1" "$2" "$3"
  [ -n "${4:-}" ] && sed 's/^/#\t/' "$4" >>"$XTX_TEST_RESULTS"
  return 0
}

net_run_tests() { # runs the functions of $ALL_TESTS that XTX_TEST_FILTER selects; exits
  local f name off t0 dt sel=() pass=0 nfail=0 nskip=0 filter=${XTX_TEST_FILTER:-}
  local msgs=$TMPD/net-msgs
  touch "$TMPD/failures"
  for f in $(declare -F | awk '$3 ~ /^test_/ { print $3 }'); do	# none left out
    [[ " $(echo ${ALL_TESTS:-}) " == *" $f "* ]] || fail "$f is defined but not listed in ALL_TESTS"
  done
  if [ -s "$TMPD/failures" ]; then
    _net_result FAIL "$NET_TEST/setup" "$(_net_since "$NET_T0")" "$TMPD/failures"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
  fi
  for f in ${ALL_TESTS:-}; do
    name=$NET_TEST/${f#test_}
    if [ -n "$filter" ] && ! [[ $NET_TEST =~ $filter ]] && ! [[ $name =~ $filter ]]; then
      continue
    fi
    sel+=("$f")
  done
  if [ ${#sel[@]} = 0 ]; then
    echo "no test function selected (ALL_TESTS: ${ALL_TESTS:-none}; XTX_TEST_FILTER: $filter)" >"$msgs"
    _net_result FAIL "$NET_TEST" 0.0 "$msgs"
    exit 1
  fi
  for f in "${sel[@]}"; do
    name=$NET_TEST/${f#test_}
    echo "=== $name"
    _net_event start "$name"
    off=$(stat -c %s "$TMPD/failures")
    rm -f "$TMPD/skip"
    t0=$(date +%s.%N)
    if declare -F "$f" >/dev/null; then
      "$f"
    else
      fail "$f is listed in ALL_TESTS but not defined"
    fi
    dt=$(_net_since "$t0")
    tail -c +$((off + 1)) "$TMPD/failures" >"$msgs"
    if [ -s "$msgs" ]; then
      NET_RESULT[$f]=FAIL nfail=$((nfail + 1))
      _net_result FAIL "$name" "$dt" "$msgs"
    elif [ -f "$TMPD/skip" ]; then
      NET_RESULT[$f]=skip nskip=$((nskip + 1))
      _net_result skip "$name" "$dt" "$TMPD/skip"
    else
      NET_RESULT[$f]=ok pass=$((pass + 1))
      _net_result ok "$name" "$dt"
    fi
  done
  echo "$NET_TEST: $pass passed, $nfail failed, $nskip skipped"
  [ $nfail = 0 ] || exit 1
  exit 0
}
