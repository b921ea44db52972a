#!/usr/bin/env bash
# tests/net/compare_forward.sh - xtx-compare --mode forward end to end, one short round
# (1 s counted per path after the 1.5 s warm-up) and one interrupted run; about 15 s in
# all. One test function each:
#   run              the round (--shape-opt=--deq-nice=-5): exit 0;
#   json             (of run's output) the JSON has every documented field, with
#                    "mode": "forward" at the top, on every result and every run;
#   delivery         (of run's output) both paths (kernel-fwd-htb, xtx-shape) delivered
#                    packets to the receiver in every leaf class, the forwarder counted
#                    what it sent, the sender's offered rate is there; xtx-shape ran in
#                    router mode;
#   tables           (of run's output) the tables (stdout and --md) name both paths, with
#                    the offered rate; --shape-opt is in the JSON config and the setup line;
#   cleanup          after run: the run's namespaces are gone (so are its veths, qdiscs and
#                    XDP programs; the tool itself fails a run that leaves XDP on fw0 or
#                    rx0), and no xtx-shape or xtx-sink of the run is still running (their
#                    command lines name the run's namespaces);
#   sigint           Ctrl-C (SIGINT) while xtx-shape forwards: exit 130, the same cleanup;
#                    --shape-opt reaches xtx-shape's command line;
#   shape_opt_refused
#                    a --shape-opt that xtx-compare sets itself is a usage error.
# json, delivery and tables are skipped ("needs run") when run failed, cleanup when it did
# not run. No check asserts a speed. Exit: 0 pass, 1 fail, 77 skip (not root, no jq).
set -u
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_run test_json test_delivery test_tables test_cleanup test_sigint
  test_shape_opt_refused"
CMP=$BIN/xtx-compare
[ "$(id -u)" = 0 ] || { echo "skip: needs root (namespaces, XDP, AF_XDP)"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (make deps)"; exit 77; }
for b in xtx-compare xtx-shape xtx-sink xsk-plain; do
  [ -x $BIN/$b ] || { echo "missing $BIN/$b: run make"; exit 1; }
done
CMP_TB= CMP_PID=
cleanup_all() {
  [ -n "$CMP_PID" ] && kill -INT "$CMP_PID" 2>/dev/null && wait "$CMP_PID" 2>/dev/null
  # a testbed of a tool run that did not remove it (a failure of what is tested here)
  [ -n "$CMP_TB" ] && tools/testbed down "$CMP_TB" >/dev/null 2>&1
  net_cleanup
}
trap cleanup_all EXIT
ok() { echo "ok    $*"; }
PATHS='["kernel-fwd-htb","xtx-shape"]'

test_run() {
  local rc
  timeout 120 $CMP --mode forward --runs 1 --duration 1 --json $TMPD/f.json --md $TMPD/f.md \
    --shape-opt=--deq-nice=-5 > $TMPD/f.out 2> $TMPD/f.err
  rc=$?
  CMP_TB=$(sed -n 's/.*testbed \(cmp[A-Za-z0-9_]*\):.*/\1/p' $TMPD/f.err | head -1)
  if [ $rc != 0 ]; then
    fail "forward run: exit $rc"; tail -20 $TMPD/f.err
  else
    ok "forward run: exit 0 ($(grep -c '^xtx-compare: \[' $TMPD/f.err) measurements)"
  fi
}
test_json() {
  local missing
  net_needs test_run || return
  missing=$(jq -r --argjson paths "$PATHS" '
    def need($o; $keys; $where): $keys[] as $k | select(($o | has($k)) | not) | "\($where).\($k)";
    need(.; ["tool","mode","environment","config","results","runs"]; "top"),
    need(.environment; ["kernel","cpu_model","cpus","started_utc","command","testbed",
      "testbed_name","tx_dev","tx_netns","sink","sink_dev","sink_netns","dst_ip","dst_mac",
      "queues","fw_netns","fw_in_dev","fw_out_dev","qdisc_netns","qdisc_dev","shape_mode",
      "saved_qdisc"]; "environment"),
    need(.config; ["classes_file","classes_text","rules_text","sender","rate","shape_opts","warmup_s",
      "flows","base_port","duration_s","runs","sizes","paths","overhead","leaves",
      "tc_commands"]; "config"),
    (.config.leaves[] | need(.; ["handle","tc_classid","rate_bps","ceil_bps","prio",
      "expected_bps","capped_by_ceil"]; "leaf")),
    (.results[] | need(.; ["path","mode","size","runs","runs_ok","pps","bytes_per_s",
      "offered_pps","forwarder_pkts","forwarder_drops","pps_vs_kernel_fwd_htb","jain_min",
      "delay_us","first_error","classes"]; "result \(.path)"),
      need(.pps; ["median","min","max","n"]; "result \(.path).pps"),
      need(.offered_pps; ["median","min","max","n"]; "result \(.path).offered_pps"),
      (.classes[] | need(.; ["handle","pps","bytes_per_s","wire_bps","expected_bps",
        "rate_error","rate_error_note"]; "class"))),
    (.runs[] | need(.; ["path","mode","size","run","ok","error","qdisc_restored",
      "duration_s","sink_pkts","sink_bytes","pps","offered_pps","forwarder_pkts",
      "forwarder_drops","forwarder","class_pkts","class_bytes","flow_pkts","sender",
      "sink"]; "run \(.path)")),
    ($paths[] as $p | select([.results[].path] | index($p) | not) | "no result for \($p)"),
    (select(.mode != "forward" or any(.results[], .runs[]; .mode != "forward"))
      | "mode is not \"forward\" everywhere")
    ' $TMPD/f.json 2>&1)
  [ -z "$missing" ] && ok "JSON: every documented field, mode \"forward\" on top, results and runs" ||
    fail "JSON: missing: $(echo $missing | head -c 600)"
}
test_delivery() {
  local bad
  net_needs test_run || return
  bad=$(jq -r '.runs[] | select(.ok != true or .sink_pkts <= 0 or .qdisc_restored != true
          or (.class_pkts | length) == 0 or any(.class_pkts[]; . <= 0)
          or (.offered_pps > 0 | not) or (.forwarder_pkts > 0 | not)
          or (.sender | type) != "object" or (.sink | type) != "object"
          or (.forwarder | type) == "null" or (.duration_s > 0 | not))
        | "\(.path): ok=\(.ok) sink_pkts=\(.sink_pkts) classes=\(.class_pkts) offered=\(.offered_pps) fwd=\(.forwarder_pkts) error=\(.error)"' \
        $TMPD/f.json)
  [ -z "$bad" ] && ok "both paths: packets at the receiver in every class, forwarder and sender counts" ||
    fail "runs without packets or summaries: $bad"
  jq -e '.runs[] | select(.path == "xtx-shape") | .forwarder.mode == "router"' $TMPD/f.json \
    >/dev/null && ok "xtx-shape ran in router mode (its summary kept)" ||
    fail "no xtx-shape summary in router mode"
}
test_tables() {
  local p
  net_needs test_run || return
  for p in kernel-fwd-htb xtx-shape; do
    grep -q "^$p " $TMPD/f.out || fail "table has no row for $p"
    grep -q "| $p |" $TMPD/f.md || fail "markdown table has no row for $p"
  done
  [ "$(jq -c .config.shape_opts $TMPD/f.json)" = '["--deq-nice=-5"]' ] &&
    grep -q "Options given to xtx-shape: --deq-nice=-5" $TMPD/f.out &&
    ok "--shape-opt: in the JSON config and the setup line" ||
    fail "--shape-opt: config $(jq -c .config.shape_opts $TMPD/f.json)"
  grep -q "Per class" $TMPD/f.out && grep -q "offered Mpps" $TMPD/f.md &&
    ok "tables on stdout and in --md name both paths, with the offered rate" ||
    fail "tables incomplete"
}
test_cleanup() {
  net_needs --ran test_run || return
  if [ -z "$CMP_TB" ]; then
    fail "the run printed no testbed name"
  elif ip netns list | grep -q "xtx-$CMP_TB-"; then
    fail "the tool's testbed $CMP_TB is still there"
  else
    ok "the tool removed its testbed $CMP_TB (namespaces, veths, qdiscs, XDP programs)"
  fi
  if [ -n "$CMP_TB" ] && pgrep -f "xtx-$CMP_TB-" >/dev/null; then
    fail "processes of the run are still there: $(pgrep -af "xtx-$CMP_TB-" | head -3)"
  else
    ok "no xtx-shape or xtx-sink of the run left running"
  fi
  CMP_TB=
}

# Ctrl-C while xtx-shape forwards (the second measurement): exit 130, and xtx-shape, the
# sender, the sink and the testbed are gone.
test_sigint() {
  local seen rc
  $CMP --mode forward --runs 1 --duration 4 --shape-opt=--deq-nice=-5 > $TMPD/i.out 2> $TMPD/i.err &
  CMP_PID=$!
  for _ in $(seq 300); do grep -q '\[ 1/2\]' $TMPD/i.err && break; sleep 0.1; done
  CMP_TB=$(sed -n 's/.*testbed \(cmp[A-Za-z0-9_]*\):.*/\1/p' $TMPD/i.err | head -1)
  seen=
  for _ in $(seq 100); do
    pgrep -f "xtx-shape --netns xtx-$CMP_TB-fw" >/dev/null && { seen=1; break; }
    sleep 0.1
  done
  [ -n "$seen" ] || fail "SIGINT run: xtx-shape of $CMP_TB never seen running"
  pgrep -af "xtx-shape --netns xtx-$CMP_TB-fw" | grep -q -- "--drop --deq-nice=-5 --ready-file" &&
    ok "--shape-opt reached xtx-shape's command line" ||
    fail "--shape-opt not on xtx-shape's command line: $(pgrep -af "xtx-shape --netns xtx-$CMP_TB-fw")"
  sleep 2
  kill -INT $CMP_PID; wait $CMP_PID; rc=$?; CMP_PID=
  [ $rc = 130 ] && ok "SIGINT during the xtx-shape run: exit 130" ||
    { fail "SIGINT: exit $rc"; tail -5 $TMPD/i.err; }
  if [ -z "$CMP_TB" ]; then
    fail "SIGINT run printed no testbed name"
  elif ip netns list | grep -q "xtx-$CMP_TB-" || pgrep -f "xtx-$CMP_TB-" >/dev/null; then
    fail "SIGINT: testbed $CMP_TB or its processes left behind"
  else
    ok "SIGINT: testbed $CMP_TB, xtx-shape and the sink removed"
  fi
  CMP_TB=
}
test_shape_opt_refused() {
  local rc
  $CMP --mode forward --shape-opt=--classes=x.conf > /dev/null 2> $TMPD/u.err; rc=$?
  [ $rc = 2 ] && grep -q "xtx-compare sets --classes itself" $TMPD/u.err &&
    ok "--shape-opt refuses an option xtx-compare sets itself" ||
    fail "--shape-opt=--classes=x.conf: exit $rc $(head -1 $TMPD/u.err)"
}

net_run_tests
