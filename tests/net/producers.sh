#!/usr/bin/env bash
# producers.sh - producers that park or die without closing (test_producers.c does the
# in-process checks), on a fresh testbed (tools/testbed: a veth pair in two namespaces of
# its own), under release, ASan+UBSan and TSan; the receiving interface must count
# exactly the frames the producers sent.
set -u
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces, AF_XDP)"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (make deps)"; exit 77; }
for v in release asan tsan; do
  [ -x build/$v/tests/net/test_producers ] || { echo "missing build/$v/tests/net/test_producers: run make test-build"; exit 1; }
done
. tools/common/testbed.sh

trap tb_down EXIT
tb_up p
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
# MIN_RATIO: the best rate of two producers beside a parked one against the best of the
# same two alone, over 5 alternating rounds in one run (test_producers.c): "the others
# keep their rate" within the check's noise. Measured on the 2 shared cores, 5 runs per
# build: release 0.90-1.06, ASan 0.96-1.12, TSan 0.97-1.23 (single rounds: 0.71-1.30).
# The bounds allow twice the largest shortfall seen (0.10), and TSan its wider spread
# (0.23).
for cfg in "release 200000 0.8" "asan 100000 0.8" "tsan 50000 0.75"; do
  set -- $cfg
  v=$1; shift
  run=(build/$v/tests/net/test_producers)
  [ $v = tsan ] && run=(setarch "$(uname -m)" -R "${run[@]}")
  before=$(rx) || exit 1
  out=$(tb_run "$TX_NS" timeout 180 "${run[@]}" "$TX_DEV" "$1" "$2" 2>&1) || { echo "$out" | sed "s/^/[$v] /"; echo "[$v] FAIL: test_producers exited non-zero"; fail=1; continue; }
  echo "$out" | sed "s/^/[$v] /"
  sleep 0.2
  after=$(rx) || exit 1
  got=$(( after - before ))
  want=$(echo "$out" | grep "^{" | jq -e .sent) || { echo "[$v] FAIL: no sent count in the output"; fail=1; continue; }
  [ "$got" = "$want" ] || { echo "[$v] FAIL: receiver counted $got frames, producers sent $want"; fail=1; }
done
exit $fail
