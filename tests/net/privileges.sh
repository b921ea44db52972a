#!/usr/bin/env bash
# privileges.sh - least privilege for xtx-send, one test function each:
#   two_caps        with exactly CAP_NET_RAW and CAP_IPC_LOCK (every other capability
#                   dropped from the bounding set with capsh) it sends, and the sink counts
#                   every packet;
#   no_ipc_lock     without CAP_IPC_LOCK it fails and says what to do;
#   no_net_raw      without CAP_NET_RAW it fails and names CAP_NET_RAW;
#   running_caps    once running it holds no capability at all (CapEff/CapPrm in
#                   /proc/PID/status);
#   null_unprivileged  the null device needs nothing: as user nobody with every
#                   capability dropped (setpriv), xtx-send --dev null sends and counts every
#                   frame, and stress_null passes in the release, ASan and TSan builds.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_two_caps test_no_ipc_lock test_no_net_raw test_running_caps
           test_null_unprivileged"
# capsh is libcap2-bin, one of tools/deps.sh's packages: without it the test fails.
[ "$(id -u)" = 0 ] || { echo "skip: needs root (namespaces, AF_XDP)"; exit 77; }
command -v capsh >/dev/null || {
  echo "FAIL: capsh not installed, though tools/deps.sh lists libcap2-bin: run make deps"; exit 1; }
net_init --queues 1
all=$(capsh --print | sed -n 's/^Bounding set =//p' | tr ',' ' ')
only() { # caps to keep -> capsh --drop list of all others
  local d=
  for c in $all; do case " $* " in *" $c "*) ;; *) d+="$c," ;; esac; done
  echo "${d%,}"
}
send_caps() { # caps... -- xtx-send args
  local keep=()
  while [ "$1" != -- ]; do keep+=("$1"); shift; done; shift
  in_tx capsh --drop="$(only "${keep[@]}")" -- -c \
    "exec $BIN/xtx-send --dev $TX_DEV --dst-ip $RX_IP --dst-mac $TX_NEXTHOP_MAC $*"
}

test_two_caps() {
  sink_start --ports 9000-9000 || return
  send_caps cap_net_raw cap_ipc_lock -- --count 20000 --json > $TMPD/ok.json 2>$TMPD/ok.err ||
    { cat $TMPD/ok.err; fail "xtx-send with CAP_NET_RAW + CAP_IPC_LOCK failed"; }
  sink_stop
  echo "with cap_net_raw,cap_ipc_lock: sent $(jget $TMPD/ok.json .sent_pkts), sink $(jget $SINK_JSON .pkts)"
  [ "$(jget $SINK_JSON .pkts)" = 20000 ] || fail "sink counted $(jget $SINK_JSON .pkts) of 20000"
}
test_no_ipc_lock() {
  send_caps cap_net_raw -- --count 10 2>$TMPD/e1 >/dev/null && fail "ran without CAP_IPC_LOCK"
  grep -q "CAP_IPC_LOCK" $TMPD/e1 || fail "no CAP_IPC_LOCK hint: $(tail -1 $TMPD/e1)"
  echo "without cap_ipc_lock: $(tail -1 $TMPD/e1)"
}
test_no_net_raw() {
  send_caps cap_ipc_lock -- --count 10 2>$TMPD/e2 >/dev/null && fail "ran without CAP_NET_RAW"
  grep -q "CAP_NET_RAW" $TMPD/e2 || fail "no CAP_NET_RAW in: $(tail -1 $TMPD/e2)"
  echo "without cap_net_raw: $(tail -1 $TMPD/e2)"
}
# Capabilities of a running sender (as root, with all of them to start with).
# tb_private, then ip netns exec itself in the background (it execs xtx-send, so $! is the
# sender's pid; in_tx in the background would give a subshell's).
test_running_caps() {
  local pid eff prm
  tb_private "$TX_NS"
  ip netns exec "$TX_NS" $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC" \
    --rate 1000pps --duration 5 --json >/dev/null 2>&1 &
  pid=$!
  sleep 1.5
  eff=$(awk '/^CapEff/ {print $2}' /proc/$pid/status) prm=$(awk '/^CapPrm/ {print $2}' /proc/$pid/status)
  kill -INT $pid; wait $pid
  echo "running sender: CapEff $eff CapPrm $prm"
  [ "$eff" = 0000000000000000 ] && [ "$prm" = 0000000000000000 ] || fail "capabilities kept after setup"
}


# Nobody, no capability, in the test's own namespace (the null device sends nothing).
nobody() {
  in_tx setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
    --bounding-set=-all "$@"
}
test_null_unprivileged() {
  local u v
  u=$(nobody id -u) || { fail "setpriv to nobody failed"; return; }
  [ "$u" != 0 ] || { fail "setpriv left uid 0"; return; }
  nobody $BIN/xtx-send --dev null --dst-ip 198.18.0.2 --queues 2 --producers 2 --flows 8 \
    --count 200000 --json > $TMPD/null.json 2>$TMPD/null.err ||
    { cat $TMPD/null.err; fail "xtx-send --dev null as uid $u failed"; return; }
  echo "uid $u, no capabilities: xtx-send --dev null sent $(jget $TMPD/null.json .sent_pkts)," \
       "unaccounted $(jget $TMPD/null.json .unaccounted_pkts)"
  [ "$(jget $TMPD/null.json .sent_pkts)" = 200000 ] || fail "sent $(jget $TMPD/null.json .sent_pkts) of 200000"
  [ "$(jget $TMPD/null.json .unaccounted_pkts)" = 0 ] || fail "frames unaccounted"
  for v in release asan tsan; do
    [ -x build/$v/tests/stress/stress_null ] || { fail "build/$v/tests/stress/stress_null not built"; continue; }
    nobody build/$v/tests/stress/stress_null > $TMPD/sn-$v.out 2>&1 ||
      { tail -5 $TMPD/sn-$v.out; fail "stress_null [$v] as uid $u failed"; continue; }
    echo "stress_null [$v] as uid $u: $(tail -1 $TMPD/sn-$v.out)"
  done
}

net_run_tests
