#!/usr/bin/env bash
# bad_input.sh - run every row of docs/bad-input.md: the exit status and the message on
# stderr must be what the table says.
. "$(dirname "$0")/../lib/net.sh"
net_init --queues 1
n=0
while IFS='|' read -r _ tool args want msg _; do
  tool=$(echo "$tool" | xargs) want=$(echo "$want" | xargs)
  args=$(echo "$args" | sed 's/^ *`//; s/` *$//')
  msg=$(echo "$msg" | sed 's/^ //; s/ $//')
  args=${args//\$DEV/$TX_DEV}; args=${args//\$DST/$RX_IP}; args=${args//\$MAC/$TX_NEXTHOP_MAC}
  args=${args//\$BAD/tests/data/bad}; args=${args//\$RXDEV/$RX_DEV}
  ns=$TX_NS; [ "$tool" = xtx-sink ] && ns=$RX_NS
  # shellcheck disable=SC2086
  tb_private "$ns"
  timeout 60 ip netns exec "$ns" $BIN/$tool $args >/dev/null 2>$TMPD/err
  rc=$?
  n=$((n + 1))
  if [ "$rc" != "$want" ] || ! grep -qF -- "$msg" $TMPD/err; then
    fail "$tool $args: exit $rc (want $want); stderr: $(grep -v '^xtx: ' $TMPD/err | head -1)"
  fi
done < <(sed -n '/<!-- rows:/,/<!-- end rows -->/p' docs/bad-input.md |
         grep -E '^\| (xtx-[a-z]+|udp-send|pkt-send|xsk-plain) \|')
echo "$n rows checked"
[ $n -ge 58 ] || fail "only $n rows read from docs/bad-input.md"
net_done
