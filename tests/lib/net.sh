# tests/lib/net.sh - shared helpers for the network tests (source it).
#   net_init           root check (exit 77), jq check, a fresh testbed (tb_up: a name no
#                      other run has, checked to be a namespace other than the host's)
#                      and a cleanup trap; sets TB and the testbed's variables (TX_NS ...);
#                      any failed step ends the test (exit 1)
#   sink_start ARGS    xtx-sink on rx0 in the background, waits until attached
#   sink_stop          SIGINT the sink, wait, leave its JSON in $SINK_JSON
#   jget FILE EXPR     jq -r EXPR FILE; a missing field (null) fails the test, never a value
#   in_tx / in_rx CMD  CMD inside the tx / rx namespace, after checking it is not the host's
#   fail MSG           print and remember a failure (net_done then exits 1)
#   net_done           the last line of a test: exit 1 if any check failed, else 0
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
