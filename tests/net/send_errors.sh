#!/usr/bin/env bash
# send_errors.sh - xtx-send's address resolution and its errors, on a fresh testbed, one
# test function each:
#   resolution    no --dst-mac: the neighbour is resolved from the table; after
#                 `ip neigh del` it is probed (ARP) and resolved again; every packet
#                 reaches the sink;
#   no_interface  a missing interface: exit 1;
#   class_syntax, class_tree
#                 a class file with a syntax error and one with an impossible tree:
#                 exit 2, file:line in the message;
#   bad_values    bad option values: exit 2;
#   zero_copy     --zero-copy on veth: exit 1, says zero-copy was refused;
#   no_caps       missing privileges (capsh without CAP_NET_RAW/CAP_NET_ADMIN): exit 1,
#                 names the capability.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_resolution test_no_interface test_class_syntax test_class_tree test_bad_values
  test_zero_copy test_no_caps"
net_init --queues 1

x() { in_tx $BIN/xtx-send "$@"; }
expect() { # exit-code regex cmd... : run, check the exit code and that stderr matches
  local want=$1 re=$2; shift 2
  "$@" > $TMPD/out 2> $TMPD/err; local rc=$?
  if [ $rc != "$want" ] || ! grep -qE -- "$re" $TMPD/err; then
    fail "'$*': exit $rc (want $want), stderr: $(head -2 $TMPD/err)"
  else
    echo "ok: exit $rc: $(grep -E -- "$re" $TMPD/err | head -1)"
  fi
}

test_resolution() {
  local got state
  sink_start --ports 9000-9000 || return
  x --dev "$TX_DEV" --dst-ip "$RX_IP" --count 1000 --json > $TMPD/a.json 2>/dev/null || fail "send (table)"
  # Replace the static entry with nothing: xtx-send must probe (ARP) and wait for the answer.
  ip -n "$TX_NS" neigh del "$RX_IP" dev "$TX_DEV"
  x --dev "$TX_DEV" --dst-ip "$RX_IP" --count 1000 --json > $TMPD/b.json 2>/dev/null || fail "send (probe)"
  sink_stop
  got=$(jget $SINK_JSON .pkts)
  state=$(ip -n "$TX_NS" neigh show "$RX_IP" dev "$TX_DEV")
  echo "resolution: sink counted $got of 2000; neighbour now: $state"
  [ "$got" = 2000 ] || fail "sink counted $got of 2000 (MAC resolution)"
  echo "$state" | grep -q "$TX_NEXTHOP_MAC" || fail "the probe did not resolve $RX_IP"
}
test_no_interface() { expect 1 "no interface 'nope0'" x --dev nope0 --dst-ip "$RX_IP"; }
test_class_syntax() {
  printf 'class 1: rate 10mbit\nclass 1:10 parent 1: rate 5mbt\n' > $TMPD/syntax.conf
  expect 2 "syntax.conf:2:[0-9]+: found '5mbt'" x --dev "$TX_DEV" --dst-ip "$RX_IP" --classes $TMPD/syntax.conf
}
test_class_tree() {
  printf 'class 1: rate 10mbit\nclass 1:10 parent 1: rate 20mbit\n' > $TMPD/tree.conf
  expect 2 "tree.conf:2: class 1:10: rate .* exceeds parent" x --dev "$TX_DEV" --dst-ip "$RX_IP" --classes $TMPD/tree.conf
}
test_bad_values() {
  expect 2 "bad value '0' for --flows" x --dev "$TX_DEV" --dst-ip "$RX_IP" --flows 0
  expect 2 "bad value '1.2.3' for --dst-ip" x --dev "$TX_DEV" --dst-ip 1.2.3
  expect 2 "--duration or --count, not both" x --dev "$TX_DEV" --dst-ip "$RX_IP" --count 5 --duration 1
}
test_zero_copy() {
  expect 1 "zero-copy refused" x --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC" --zero-copy --count 1
}
test_no_caps() {
  command -v capsh >/dev/null || { fail "capsh not installed (make deps)"; return; }
  expect 1 "CAP_NET_RAW" in_tx capsh --drop=cap_net_raw,cap_net_admin,cap_sys_admin,cap_bpf -- \
    -c "$BIN/xtx-send --dev $TX_DEV --dst-ip $RX_IP --dst-mac $TX_NEXTHOP_MAC --count 1"
}

net_run_tests
