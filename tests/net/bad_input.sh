#!/usr/bin/env bash
# bad_input.sh - run every row of docs/bad-input.md: the exit status and the message on
# stderr must be what the table says. One test function per tool's rows:
#   xtx_send, xtx_sink, xtx_shape, xtx_compare, baselines (udp-send, pkt-send, xsk-plain):
#                each row of the tool(s), and at least one row of each;
#   table        the table itself: at least 67 rows read, every row's tool one of those.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_table test_xtx_send test_xtx_sink test_xtx_shape test_xtx_ctl test_xtx_compare
  test_baselines"
net_init --queues 1
# The table's rows: | tool | `args` | exit | message |
mapfile -t ROWS < <(sed -n '/<!-- rows:/,/<!-- end rows -->/p' docs/bad-input.md |
  grep -E '^\| (xtx-[a-z]+|udp-send|pkt-send|xsk-plain) \|')

rows() { # TOOL...: run every row of these tools
  local row tool args want msg ns rc n=0
  for row in "${ROWS[@]}"; do
    IFS='|' read -r _ tool args want msg _ <<<"$row"
    tool=$(echo "$tool" | xargs) want=$(echo "$want" | xargs)
    case " $* " in *" $tool "*) ;; *) continue ;; esac
    args=$(echo "$args" | sed 's/^ *`//; s/` *$//')
    msg=$(echo "$msg" | sed 's/^ //; s/ $//')
    args=${args//\$DEV/$TX_DEV}; args=${args//\$DST/$RX_IP}; args=${args//\$MAC/$TX_NEXTHOP_MAC}
    args=${args//\$BAD/tests/data/bad}; args=${args//\$RXDEV/$RX_DEV}
    ns=$TX_NS; [ "$tool" = xtx-sink ] && ns=$RX_NS
    tb_private "$ns"
    # shellcheck disable=SC2086
    timeout 60 ip netns exec "$ns" $BIN/$tool $args >/dev/null 2>$TMPD/err
    rc=$?
    n=$((n + 1))
    if [ "$rc" != "$want" ] || ! grep -qF -- "$msg" $TMPD/err; then
      fail "$tool $args: exit $rc (want $want); stderr: $(grep -v '^xtx: ' $TMPD/err | head -1)"
    fi
  done
  echo "$n rows of $* checked"
  [ $n -gt 0 ] || fail "no rows for $* in docs/bad-input.md"
}

test_table() {
  local row tool
  echo "${#ROWS[@]} rows read"
  [ ${#ROWS[@]} -ge 67 ] || fail "only ${#ROWS[@]} rows read from docs/bad-input.md"
  for row in "${ROWS[@]}"; do
    IFS='|' read -r _ tool _ <<<"$row"
    tool=$(echo "$tool" | xargs)
    case $tool in
      xtx-send|xtx-sink|xtx-shape|xtx-ctl|xtx-compare|udp-send|pkt-send|xsk-plain) ;;
      *) fail "row of a tool no test function runs: $row" ;;
    esac
  done
}
test_xtx_send() { rows xtx-send; }
test_xtx_sink() { rows xtx-sink; }
test_xtx_shape() { rows xtx-shape; }
test_xtx_ctl() { rows xtx-ctl; }
test_xtx_compare() { rows xtx-compare; }
test_baselines() { rows udp-send pkt-send xsk-plain; }

net_run_tests
