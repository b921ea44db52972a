#!/usr/bin/env bash
# doctor.sh - xtx-doctor (tools/xtx-doctor): every check's verdict on recorded machines,
# and on the testbed's veth. One test function each:
#   fixtures   tests/data/doctor/DRIVER.facts (i40e, ice, mlx5, ixgbe, virtio_net, written
#              from the drivers' documentation; README.md there) with the options of
#              DRIVER.expect: every check's status as expected, in order, and the exit
#              code (1 with a fail, 0 without); the text output names each fix
#   txmd       the tx-metadata check with xtx-send's --tx-csum and --tx-timestamps
#              (doctor_txmd(), which xtx-send runs in zero-copy mode): i40e (zero-copy,
#              no xsk-features) fails --tx-csum on, passes sw, warns --tx-timestamps;
#              mlx5 (tx-checksum, tx-timestamp) passes both; virtio_net (no netdev
#              family) warns; veth (no zero-copy: the kernel does it) passes
#   jumbo      --size 9000 --frame-size 4096 (three buffers a frame) against each
#              driver's xdp-zc-max-segs: i40e (1) warns, and fails with --zero-copy;
#              ice (5) passes; --size 4000 (one buffer) passes on i40e
#   veth       on the testbed's tx0 (ip netns exec: the namespace's own /sys): it runs,
#              knows the driver (veth), the XDP features (the netdev family), the MTU and
#              the link, says zero-copy is not offered and that a virtual device has no
#              IRQs; --dump-facts then --facts of that record gives the same verdicts
#   start      xtx-send runs the same checks at start: its stderr line is xtx-doctor's
#              --summary line for the same options, its --json summary has it with the
#              counts, --no-doctor leaves both out; --size 4000 on a 1500 MTU fails
#              xtx-doctor's mtu check, and xtx-send refuses it
#   usage      no interface, a bad --facts line (FILE:LINE), an unknown interface (the
#              interface check fails, exit 1), --json with --summary: refused
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_fixtures test_txmd test_jumbo test_veth test_start test_usage"
DOC=$BIN/xtx-doctor
[ -x $DOC ] || { echo "missing $DOC: run make"; exit 1; }
net_init --queues 2

test_fixtures() {
  local f d args got rc want n=0
  for f in tests/data/doctor/*.expect; do
    d=${f%.expect}
    args=$(head -1 "$f" | sed 's/^args: //')
    rc=0
    # shellcheck disable=SC2086
    $DOC --facts "$d.facts" $args --json > $TMPD/doc.json || rc=$?
    got=$(jq -r '.checks[] | "\(.name) \(.status)"' $TMPD/doc.json)
    diff <(echo "$got") <(tail -n +2 "$f") > $TMPD/doc.diff ||
      { cat $TMPD/doc.diff; fail "$(basename "$d"): verdicts differ (< got, > expected)"; }
    want=0; grep -q " fail$" "$f" && want=1
    [ $rc = $want ] || fail "$(basename "$d"): exit $rc, expected $want"
    # shellcheck disable=SC2086
    $DOC --facts "$d.facts" $args > $TMPD/doc.txt || true
    [ "$(grep -c '^ *fix: ' $TMPD/doc.txt)" = "$(jq '[.checks[] | select(.status != "pass" and .fix != "")] | length' $TMPD/doc.json)" ] ||
      fail "$(basename "$d"): the text does not print every fix"
    echo "$(basename "$d") ($args): $(jq -c .summary $TMPD/doc.json), exit $rc"
    n=$((n + 1))
  done
  [ $n = 5 ] || fail "$n fixtures, expected 5"
}

# check_cases CHECK: each line of stdin "FIXTURE ARGS... STATUS": xtx-doctor on
# tests/data/doctor/FIXTURE.facts with ARGS gives CHECK that status.
check_cases() {
  local f args want got
  while read -r f args; do
    want=${args##* } args=${args% *}
    # shellcheck disable=SC2086
    got=$($DOC --facts tests/data/doctor/$f.facts $args --json | jq -r --arg c "$1" '.checks[] | select(.name == $c) | .status')
    echo "$f $args: $1 $got"
    [ "$got" = "$want" ] || fail "$f $args: $1 $got, expected $want"
  done
}

test_txmd() {
  local got
  check_cases tx-metadata <<'CASES'
i40e --tx-csum on fail
i40e --tx-csum sw pass
i40e --tx-timestamps warn
mlx5 --tx-csum on --tx-timestamps pass
virtio_net --tx-csum on warn
ixgbe --tx-csum off pass
CASES
  tb_private "$TX_NS"
  got=$(ip netns exec "$TX_NS" $DOC "$TX_DEV" --tx-csum on --tx-timestamps --json | jq -r '.checks[] | select(.name == "tx-metadata") | .status')
  echo "veth --tx-csum on --tx-timestamps: tx-metadata $got"
  [ "$got" = pass ] || fail "veth: tx-metadata $got with --tx-csum on (copy mode: the kernel does it)"
}

test_jumbo() {
  check_cases zero-copy <<'CASES'
i40e --size 9000 --frame-size 4096 warn
i40e --size 9000 --frame-size 4096 --zero-copy fail
ice --size 9000 --frame-size 4096 pass
i40e --size 4000 --frame-size 4096 pass
CASES
}

test_veth() {
  local j
  tb_private "$TX_NS"
  ip netns exec "$TX_NS" $DOC "$TX_DEV" --queues 2 --cpus 1 --json > $TMPD/veth.json ||
    fail "xtx-doctor on $TX_DEV: exit $?"
  ip netns exec "$TX_NS" $DOC "$TX_DEV" --queues 2 --cpus 1 | sed 's/^/  /'
  j=$TMPD/veth.json
  for x in "interface pass" "driver pass" "link pass" "xdp-features pass" "zero-copy warn" \
           "irq-affinity pass" "numa pass" "mtu pass" "queues pass"; do
    set -- $x
    [ "$(jq -r --arg n "$1" '.checks[] | select(.name == $n) | .status' $j)" = "$2" ] ||
      fail "veth: $1 is $(jq -c --arg n "$1" '.checks[] | select(.name == $n)' $j), expected $2"
  done
  jq -e '.checks[] | select(.name == "driver") | .detail == "veth"' $j > /dev/null || fail "veth: driver not named"
  jq -e '.checks[] | select(.name == "xdp-features") | .detail | test("basic")' $j > /dev/null ||
    fail "veth: the netdev family's XDP features not read"
  ip netns exec "$TX_NS" $DOC "$TX_DEV" --dump-facts > $TMPD/veth.facts || fail "--dump-facts failed"
  $DOC --facts $TMPD/veth.facts --queues 2 --cpus 1 --json > $TMPD/veth2.json || true
  diff <(jq -c .checks $j) <(jq -c .checks $TMPD/veth2.json) > /dev/null ||
    fail "--facts of the --dump-facts record does not give the same verdicts"
  echo "veth: $(jq -c .summary $j); the record of $(wc -l < $TMPD/veth.facts) facts gives the same"
}

test_usage() {
  local rc
  rc=0; $DOC > /dev/null 2> $TMPD/e || rc=$?
  [ $rc = 2 ] && grep -q "give an interface" $TMPD/e || fail "no interface: exit $rc, $(cat $TMPD/e)"
  printf 'if.name=x\nnot a fact\n' > $TMPD/bad.facts
  rc=0; $DOC --facts $TMPD/bad.facts > /dev/null 2> $TMPD/e || rc=$?
  [ $rc = 2 ] && grep -q "bad.facts:2: expected KEY=VALUE" $TMPD/e || fail "bad facts: exit $rc, $(cat $TMPD/e)"
  rc=0; ip netns exec "$TX_NS" $DOC xtx-no-such0 > $TMPD/o 2>&1 || rc=$?
  [ $rc = 1 ] && grep -q "^fail  interface      xtx-no-such0: no such interface here" $TMPD/o ||
    fail "unknown interface: exit $rc, $(cat $TMPD/o)"
  rc=0; $DOC "$TX_DEV" --json --summary > /dev/null 2> $TMPD/e || rc=$?
  [ $rc = 2 ] || fail "--json --summary: exit $rc"
  echo "usage: refused as expected"
}

test_start() {
  local want j=$TMPD/start.json
  tb_private "$TX_NS"
  want=$(ip netns exec "$TX_NS" $DOC "$TX_DEV" --queues 1 --size 64 --summary) || true
  send --count 10 --interval 0 > /dev/null 2> $TMPD/start.err || fail "xtx-send failed"
  grep -qxF "xtx-send: $want (xtx-doctor $TX_DEV for the fixes; --no-doctor skips this)" $TMPD/start.err ||
    { cat $TMPD/start.err; fail "start: no line '$want'"; }
  send --count 10 --json > $j 2> /dev/null || fail "xtx-send --json failed"
  [ "xtx-doctor $(jget $j .doctor.line)" = "$want" ] || fail "start: --json has $(jq -c .doctor $j)"
  [ "$(jget $j .doctor.pass) pass, $(jget $j .doctor.warn) warn, $(jget $j .doctor.fail) fail" = \
    "$(echo "$want" | sed 's/^[^:]*: \([0-9]* pass, [0-9]* warn, [0-9]* fail\).*/\1/')" ] ||
    fail "start: counts $(jq -c .doctor $j) against '$want'"
  send --count 10 --no-doctor --interval 0 > /dev/null 2> $TMPD/nodoc.err || fail "--no-doctor run failed"
  grep -q xtx-doctor $TMPD/nodoc.err && fail "--no-doctor: $(grep xtx-doctor $TMPD/nodoc.err)"
  send --count 10 --no-doctor --json 2> /dev/null | jq -e '.doctor == null' > /dev/null ||
    fail "--no-doctor: the summary has a doctor"
  ip netns exec "$TX_NS" $DOC "$TX_DEV" --size 4000 --summary > $TMPD/big.txt && fail "--size 4000 on MTU 1500: exit 0"
  grep -q "fail mtu" $TMPD/big.txt || fail "--size 4000 on MTU 1500: no mtu failure in '$(cat $TMPD/big.txt)'"
  send --count 10 --size 4000 --interval 0 > /dev/null 2> $TMPD/big.err && fail "xtx-send --size 4000 ran at MTU 1500"
  grep -q "MTU 1500 takes frames of up to 1514" $TMPD/big.err || fail "xtx-send --size 4000: $(cat $TMPD/big.err)"
  echo "start: $want"
}

net_run_tests
