#!/usr/bin/env bash
# receive.sh - the engine's receive side (test_receive.c): shared UMEM and one-copy
# forwarding with exact counts, classes from the XDP metadata, frame accounting, and a
# fill ring that never starves while a scheduler holds every frame. One test function per
# build: release (20000 frames), asan and tsan (ASan+UBSan, TSan; 5000). The binary makes
# its own private network namespace and veth pairs; nothing is left behind.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_release test_asan test_tsan"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces, XDP, AF_XDP)"; exit 77; }
for v in release asan tsan; do
  [ -x build/$v/tests/net/test_receive ] ||
    { echo "missing build/$v/tests/net/test_receive: run make test-build"; exit 1; }
done

receive_run() { # VARIANT COUNT
  local run=("build/$1/tests/net/test_receive") rc
  [ $1 = tsan ] && run=(setarch "$(uname -m)" -R "${run[@]}")
  timeout 120 "${run[@]}" "$2"
  rc=$?
  # Run as root, the binary has no reason to skip: 77 is a failure like any other.
  [ $rc = 77 ] && echo "[$1] skipped (exit 77) although run as root: a failure"
  [ $rc = 0 ] || fail "[$1] test_receive failed (exit $rc)"
}
test_release() { receive_run release 20000; }
test_asan() { receive_run asan 5000; }
test_tsan() { receive_run tsan 5000; }

net_run_tests
