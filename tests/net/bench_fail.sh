#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/net/bench_fail.sh - a benchmark that fails leaves the published figures alone.
#
# Every case runs tools/bench/report.sh the way the Makefile does, with a benchmark that
# fails, and checks: report.sh exits non-zero, says why, and docs/BENCHMARKS.md and every
# file in docs/bench/ are byte for byte what they were (sha256 before and after), and no
# testbed is left behind. The real scripts are made to fail with XTX_BENCH_FORCE_FAIL
# (tools/bench/lib.sh), which makes one step fail the way it can for real:
#   1. a program that writes its table and JSON, then exits 1
#   2. a program that exits 0 but writes no table; 3. one that writes invalid JSON
#   4. e2e.sh: the sender of the second of two runs refuses its options (the first run's
#      figures must not become a median of one)
#   5. e2e.sh: tc refuses the kernel path's htb class
#   6. forward.sh: xtx-shape does not start (the "xtx" row would be kernel forwarding)
#   7. forward.sh: the sink fails after xtx-shape started
#   8. soak.sh (SOAK_SECONDS=30): the sink does not start
# Each case is a test function: 1 fails_after_output, 2 no_table, 3 invalid_json,
# 4 e2e_second_sender, 5 e2e_tc, 6 forward_shape, 7 forward_sink, 8 soak_sink.
# Cases 1-3 need no network; 4-8 run on fresh testbeds (tb_up), about 40 s in all.
# If report.sh did write, the files it changed are put back from the copy taken first
# (and any it added removed), and the test fails. Run it under the load lock: flock /tmp/xtx-load.lock tests/net/bench_fail.sh
# Exit 0 pass, 77 skip (not root, no jq), 1 fail.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_fails_after_output test_no_table test_invalid_json test_e2e_second_sender
  test_e2e_tc test_forward_shape test_forward_sink test_soak_sink"

[ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces, XDP, tc)"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (make deps)"; exit 77; }
for b in xtx-send xtx-sink xtx-shape xsk-plain udp-send; do
  [ -x $BIN/$b ] || { echo "FAIL: missing $BIN/$b: run make"; exit 1; }
done

pass() { echo "ok: $*"; }

# The published files and their checksums; a copy to put back if a case changes them.
sums() { sha256sum docs/BENCHMARKS.md docs/bench/* | sort -k2; }
sums > "$TMPD/sums.before"
mkdir -p "$TMPD/keep/bench"
cp -p docs/BENCHMARKS.md "$TMPD/keep/" && cp -p docs/bench/* "$TMPD/keep/bench/" ||
  { echo "FAIL: cannot copy docs/ aside"; exit 1; }
restore() { # put back only what changed, and remove what report.sh added for our NAMEs
  local sum f
  sums > "$TMPD/sums.now"
  while read -r sum f; do
    grep -qxF "$sum  $f" "$TMPD/sums.now" || cp -p "$TMPD/keep/${f#docs/}" "$f"
  done < "$TMPD/sums.before"
  for f in docs/bench/e2e.* docs/bench/forward.* docs/bench/soak.*; do
    grep -q "  $f\$" "$TMPD/sums.before" || rm -f "$f"
  done
}
cleanup() {
  if ! sums | cmp -s - "$TMPD/sums.before"; then
    echo "FAIL: docs/ changed: putting the files back"
    restore
  fi
  rm -rf "$TMPD"
}
trap cleanup EXIT
tools/testbed list > "$TMPD/testbeds.before" 2>/dev/null || : > "$TMPD/testbeds.before"

# case N TITLE EXPECT NAME CMD...: report.sh NAME ... CMD must fail, print EXPECT (a grep
# -E pattern) on stderr, and leave docs/ and the testbeds as they were.
case_() {
  local n=$1 title=$2 expect=$3 name=$4 rc=0
  shift 4
  echo "--- $n. $title"
  tools/bench/report.sh "$name" "bench_fail.sh case $n" "$@" > "$TMPD/out.$n" 2> "$TMPD/err.$n" || rc=$?
  sed 's/^/    | /' "$TMPD/err.$n" | tail -8
  if [ $rc = 0 ]; then
    fail "$n: report.sh exited 0 for a failed benchmark"
  else
    pass "$n: report.sh exited $rc"
  fi
  if grep -Eq -- "$expect" "$TMPD/err.$n"; then
    pass "$n: the failure's message is there (/$expect/)"
  else
    fail "$n: no message matching /$expect/ on stderr"
  fi
  if grep -q "left as they were" "$TMPD/err.$n"; then
    pass "$n: report.sh says docs/ is left as it was"
  else
    fail "$n: report.sh does not say that docs/ was left alone"
  fi
  sums > "$TMPD/sums.after"
  if cmp -s "$TMPD/sums.before" "$TMPD/sums.after"; then
    pass "$n: docs/BENCHMARKS.md and docs/bench/* byte-identical ($(wc -l < "$TMPD/sums.after") files)"
  else
    fail "$n: docs/ changed:$(printf '\n'; diff "$TMPD/sums.before" "$TMPD/sums.after")"
    restore
  fi
  tools/testbed list > "$TMPD/testbeds.after" 2>/dev/null || : > "$TMPD/testbeds.after"
  local left
  left=$(comm -13 <(sort "$TMPD/testbeds.before") <(sort "$TMPD/testbeds.after"))
  if [ -z "$left" ]; then
    pass "$n: no testbed left behind"
  else
    fail "$n: testbed(s) left behind: $left"
  fi
}

# The fake benchmarks get --md FILE --json FILE as $1..$4, as report.sh passes them.
# shellcheck disable=SC2016
test_fails_after_output() {
  case_ 1 "writes its table and JSON, then fails" "failed \(exit 1\)" e2e \
    bash -c 'echo "| fake |" > "$2"; echo "{\"fake\": 1}" > "$4"; exit 1' fake
}
# shellcheck disable=SC2016
test_no_table() {
  case_ 2 "exits 0 without a table" "wrote no table" e2e \
    bash -c 'echo "{\"fake\": 1}" > "$4"' fake
}
# shellcheck disable=SC2016
test_invalid_json() {
  case_ 3 "writes invalid JSON" "invalid JSON" e2e \
    bash -c 'echo "| fake |" > "$2"; echo "{fake" > "$4"' fake
}
test_e2e_second_sender() {
  XTX_BENCH_FORCE_FAIL=sender@2 E2E_CONFIGS=plain-1q \
    case_ 4 "e2e.sh: the second run's sender fails" "plain-1q: xsk-plain failed" e2e \
    tools/bench/e2e.sh --runs 2 --duration 1
}
test_e2e_tc() {
  XTX_BENCH_FORCE_FAIL=tc E2E_CONFIGS=kernel-htb-t2 \
    case_ 5 "e2e.sh: tc refuses a command" "tc qdisc replace .* refused" e2e \
    tools/bench/e2e.sh --runs 1 --duration 1
}
test_forward_shape() {
  XTX_BENCH_FORCE_FAIL=shape FWD_CONFIGS=xtx-64 \
    case_ 6 "forward.sh: xtx-shape does not start" "xtx-64: xtx-shape did not start" forward \
    tools/bench/forward.sh --runs 1 --duration 1
}
test_forward_sink() {
  XTX_BENCH_FORCE_FAIL=sink FWD_CONFIGS=xtx-64 \
    case_ 7 "forward.sh: the sink fails" "xtx-64: xtx-sink failed" forward \
    tools/bench/forward.sh --runs 1 --duration 1
}
test_soak_sink() {
  SOAK_SECONDS=30 XTX_BENCH_FORCE_FAIL=sink \
    case_ 8 "soak.sh: the sink does not start" "xtx-sink did not start" soak tools/soak.sh
}

net_run_tests
