#!/usr/bin/env bash
# engine.sh - the engine end to end on a fresh testbed (tools/testbed: a veth pair in two
# namespaces of its own): exact counts at the receiver, frame accounting, bad descriptors,
# idle CPU, pinning, busy-poll socket options, RLIMIT_MEMLOCK, NUMA node (test_engine.c
# does the in-process checks), for 1 queue / 1 producer and 2 queues / 4 producers, and
# once restricted to CPU 0 (taskset), where a dequeuer asked for on CPU 1 must be refused.
set -u
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces, AF_XDP)"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (make deps)"; exit 77; }
for v in release asan tsan; do
  [ -x build/$v/tests/net/test_engine ] || { echo "missing build/$v/tests/net/test_engine: run make test-build"; exit 1; }
done
. tools/common/testbed.sh

trap tb_down EXIT
tb_up e --queues 2
# No IPv6 on the pair: the receiver's counter then sees only our frames.
tb_run "$TX_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || tb_die "cannot disable IPv6 in $TX_NS"
tb_run "$RX_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || tb_die "cannot disable IPv6 in $RX_NS"
sleep 0.2

rx() { # frames rx0 received; exits on a failed read
  local n
  n=$(ip -n "$RX_NS" -s -j link show "$RX_DEV" | jq -e '.[0].stats64.rx.packets') ||
    tb_die "cannot read the receive counter of $RX_DEV in $RX_NS"
  echo "$n"
}
fail=0
# Release at full size; the sanitizer builds (ASan+UBSan, TSan) on smaller counts; the
# last one on CPU 0 only.
for cfg in "release 100000 1 1" "release 200000 4 2" "asan 20000 4 2" "tsan 20000 4 2" \
           "release-cpu0 20000 1 1"; do
  set -- $cfg
  v=$1; shift
  run=(build/${v%-cpu0}/tests/net/test_engine)
  [ $v = tsan ] && run=(setarch "$(uname -m)" -R "${run[@]}")
  [ $v = release-cpu0 ] && run=(taskset -c 0 "${run[@]}")
  before=$(rx) || exit 1
  out=$(tb_run "$TX_NS" timeout 120 "${run[@]}" "$TX_DEV" "$1" "$2" "$3") || { echo "[$v] $out"; echo "[$v] FAIL: test_engine exited non-zero"; fail=1; continue; }
  echo "$out" | sed "s/^/[$v] /"
  sleep 0.2
  after=$(rx) || exit 1
  got=$(( after - before ))
  if [ "$got" != "$1" ]; then
    echo "[$v] FAIL: receiver counted $got frames, expected $1 (count=$1 producers=$2 queues=$3)"
    fail=1
  fi
  # Restricted to CPU 0: the refused pin must have been CPU 1's (else the case was not run).
  if [ $v = release-cpu0 ] && ! grep -q "^pin: cpus 1 refused: dequeuer CPU 1 " <<<"$out"; then
    echo "[$v] FAIL: under taskset -c 0, a dequeuer on CPU 1 was not refused with a message naming it"
    fail=1
  fi
done
exit $fail
