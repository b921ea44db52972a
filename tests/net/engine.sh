#!/usr/bin/env bash
# engine.sh - the engine end to end on a fresh veth pair in fresh namespaces: exact
# counts at the receiver, frame accounting, bad descriptors, idle CPU, pinning (test_engine.c
# does the in-process checks), for 1 queue / 1 producer and 2 queues / 4 producers, and
# once restricted to CPU 0 (taskset), where a dequeuer asked for on CPU 1 must be refused.
set -u
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces, AF_XDP)"; exit 77; }
bin=build/release/tests/net/test_engine
for v in release asan tsan; do
  [ -x build/$v/tests/net/test_engine ] || { echo "missing build/$v/tests/net/test_engine: run make test-build"; exit 1; }
done

ns=xtxe$$$RANDOM
cleanup() { ip netns del ${ns}a 2>/dev/null; ip netns del ${ns}b 2>/dev/null; }
trap cleanup EXIT
ip netns add ${ns}a && ip netns add ${ns}b || exit 1
ip link add t0 netns ${ns}a numtxqueues 2 numrxqueues 2 type veth \
   peer r0 netns ${ns}b numtxqueues 2 numrxqueues 2 || exit 1
ip -n ${ns}a addr add 198.18.251.1/24 dev t0
ip -n ${ns}b addr add 198.18.251.2/24 dev r0
ip -n ${ns}a link set t0 up
ip -n ${ns}b link set r0 up
# No IPv6 on the pair: the receiver's counter then sees only our frames.
ip netns exec ${ns}a sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec ${ns}b sysctl -qw net.ipv6.conf.all.disable_ipv6=1
sleep 0.2

rx() { ip -n ${ns}b -s -j link show r0 | sed 's/.*"rx":{"bytes":[0-9]*,"packets":\([0-9]*\).*/\1/'; }
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
  before=$(rx)
  out=$(ip netns exec ${ns}a timeout 120 "${run[@]}" t0 "$1" "$2" "$3") || { echo "[$v] $out"; fail=1; continue; }
  echo "$out"
  sleep 0.2
  got=$(( $(rx) - before ))
  if [ "$got" != "$1" ]; then
    echo "receiver counted $got frames, expected $1 (count=$1 producers=$2 queues=$3)"
    fail=1
  fi
  # Restricted to CPU 0: the refused pin must have been CPU 1's (else the case was not run).
  if [ $v = release-cpu0 ] && ! grep -q "^pin: cpus 1 refused: dequeuer CPU 1 " <<<"$out"; then
    echo "[$v] FAIL: under taskset -c 0, a dequeuer on CPU 1 was not refused with a message naming it"
    fail=1
  fi
done
exit $fail
