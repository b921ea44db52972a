#!/usr/bin/env bash
# engine.sh - the engine end to end on a fresh testbed (tools/testbed: a veth pair in two
# namespaces of its own, 2 queues): exact counts at the receiver, frame accounting, bad
# descriptors, idle CPU, pinning, busy-poll socket options, RLIMIT_MEMLOCK, NUMA node
# (test_engine.c does the in-process checks). One test function per build and shape:
#   release_1q   release, 100000 frames, 1 producer, 1 queue
#   release_2q   release, 200000 frames, 4 producers, 2 queues
#   asan, tsan   the sanitizer builds (ASan+UBSan, TSan), 20000 frames, 4 producers, 2 queues
#   cpu0         release restricted to CPU 0 (taskset), 20000 frames, 1 producer, 1 queue:
#                a dequeuer asked for on CPU 1 must be refused with a message naming it
# In each the receiving interface must count exactly the frames sent.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_release_1q test_release_2q test_asan test_tsan test_cpu0"
for v in release asan tsan; do
  [ -x build/$v/tests/net/test_engine ] || { echo "missing build/$v/tests/net/test_engine: run make test-build"; exit 1; }
done
net_init --queues 2
# No IPv6 on the pair: the receiver's counter then sees only our frames.
tb_run "$TX_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || tb_die "cannot disable IPv6 in $TX_NS"
tb_run "$RX_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || tb_die "cannot disable IPv6 in $RX_NS"
sleep 0.2

rx() { # frames rx0 received; fails on a failed read
  local n
  n=$(ip -n "$RX_NS" -s -j link show "$RX_DEV" | jq -e '.[0].stats64.rx.packets') ||
    { fail "cannot read the receive counter of $RX_DEV in $RX_NS"; return 1; }
  echo "$n"
}

# engine_run VARIANT COUNT PRODUCERS QUEUES: test_engine of that build in the tx namespace;
# rx0 must count exactly COUNT frames more. VARIANT release-cpu0: release under taskset -c 0.
# Leaves the binary's output in $OUT.
engine_run() {
  local v=$1 before after got run
  shift
  run=(build/${v%-cpu0}/tests/net/test_engine)
  [ $v = tsan ] && run=(setarch "$(uname -m)" -R "${run[@]}")
  [ $v = release-cpu0 ] && run=(taskset -c 0 "${run[@]}")
  OUT=
  before=$(rx) || return 1
  OUT=$(tb_run "$TX_NS" timeout 120 "${run[@]}" "$TX_DEV" "$1" "$2" "$3") ||
    { echo "$OUT" | sed "s/^/[$v] /"; fail "[$v] test_engine exited non-zero"; return 1; }
  echo "$OUT" | sed "s/^/[$v] /"
  sleep 0.2
  after=$(rx) || return 1
  got=$(( after - before ))
  [ "$got" = "$1" ] ||
    fail "[$v] receiver counted $got frames, expected $1 (count=$1 producers=$2 queues=$3)"
}

# Release at full size; the sanitizer builds on smaller counts.
test_release_1q() { engine_run release 100000 1 1; }
test_release_2q() { engine_run release 200000 4 2; }
test_asan() { engine_run asan 20000 4 2; }
test_tsan() { engine_run tsan 20000 4 2; }
test_cpu0() {
  engine_run release-cpu0 20000 1 1 || return
  # The refused pin must have been CPU 1's (else the case was not run).
  grep -q "^pin: cpus 1 refused: dequeuer CPU 1 " <<<"$OUT" ||
    fail "[release-cpu0] under taskset -c 0, a dequeuer on CPU 1 was not refused with a message naming it"
}

net_run_tests
