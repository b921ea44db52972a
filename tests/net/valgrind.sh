#!/usr/bin/env bash
# valgrind.sh - a short xtx-send run (2 producers, 4 flows, 2000 packets) under valgrind's
# memcheck: no error, no leak of any kind (definite, indirect, possible), and every
# packet sent (test function memcheck). Skips only when not root; valgrind is one of
# tools/deps.sh's packages, so without it the test fails.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_memcheck"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (namespaces, AF_XDP)"; exit 77; }
command -v valgrind >/dev/null || {
  echo "FAIL: valgrind not installed, though tools/deps.sh lists it: run make deps"; exit 1; }
net_init --queues 1

test_memcheck() {
  local rc
  in_tx timeout 300 valgrind --leak-check=full \
    --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --error-exitcode=3 $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC" \
    --count 2000 --flows 4 --producers 2 --json > $TMPD/out.json 2> $TMPD/vg.err
  rc=$?
  grep -E "ERROR SUMMARY|in use at exit|All heap blocks" $TMPD/vg.err
  [ $rc = 0 ] || { grep -B2 -A12 "definitely\|Invalid\|uninitialised" $TMPD/vg.err | head -40; fail "valgrind exit $rc"; }
  [ "$(jget $TMPD/out.json .sent_pkts)" = 2000 ] || fail "sent $(jget $TMPD/out.json .sent_pkts) of 2000"
}

net_run_tests
