#!/usr/bin/env bash
# receive.sh - the engine's receive side (test_receive.c) in every build variant: shared
# UMEM and one-copy forwarding with exact counts, classes from the XDP metadata, frame
# accounting, and a fill ring that never starves while a scheduler holds every frame. The
# test makes its own private network namespace and veth pairs; nothing is left behind.
set -u
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces, XDP, AF_XDP)"; exit 77; }
for v in release asan tsan; do
  [ -x build/$v/tests/net/test_receive ] ||
    { echo "missing build/$v/tests/net/test_receive: run make test-build"; exit 1; }
done
fail=0
# Release at full size; the sanitizer builds (ASan+UBSan, TSan) on smaller counts.
for cfg in "release 20000" "asan 5000" "tsan 5000"; do
  set -- $cfg
  run=("build/$1/tests/net/test_receive")
  [ $1 = tsan ] && run=(setarch "$(uname -m)" -R "${run[@]}")
  echo "[$1]"
  timeout 120 "${run[@]}" "$2"
  rc=$?
  # Run as root, the binary has no reason to skip: 77 is a failure like any other.
  [ $rc = 77 ] && echo "[$1] skipped (exit 77) although run as root: a failure"
  [ $rc = 0 ] || { echo "[$1] failed (exit $rc)"; fail=1; }
done
exit $fail
