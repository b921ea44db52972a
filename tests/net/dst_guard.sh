#!/usr/bin/env bash
# dst_guard.sh - every load generator refuses a destination outside the benchmarking
# ranges (198.18.0.0/15, 2001:2::/48; tools/common/dstguard.c) before it opens anything,
# on a fresh testbed where such a destination WOULD be reachable: the tx namespace routes
# 192.0.2.0/24 and 2001:db8::/64 (documentation space, RFC 5737 / RFC 3849) to rx0, so
# only the guard stands between a tool and the wire. Each case: exit 2 and a message that
# names the address, the ranges and both options (or, for a bad --allow-dst, the option and
# the value); and at the end the sink on rx0 counted no packet for any case (each case has
# its own UDP port, so a leak names its case). Cases, for xtx-send, udp-send, pkt-send,
# xsk-plain and xtx-compare:
#   out4     --dst-ip 192.0.2.7
#   allow25  --allow-dst 192.0.2.0/25 --dst-ip 192.0.2.200 (outside the allowed /25)
#   bogus    --allow-dst bogus: a usage error
# and out6 (--dst-ip 2001:db8::7) for xtx-send and xtx-compare, v6allow (--allow-dst
# 2001:db8::/64, --dst-ip 2001:db8:0:1::7) and mapped (::ffff:192.0.2.7) for xtx-send,
# sink (--sink 192.0.2.7:PORT, the control channel) for xtx-compare.
# One test function per tool: xtx_compare, xtx_send, udp_send, pkt_send, xsk_plain.
# xtx-compare runs with its own sink on rx0 and --json: a run that got past the guard
# would write the JSON with what its sink counted. Each other tool's function runs this
# test's sink around its cases and checks at the end that it counted nothing.
# Nothing here sends to an outside address on purpose; every run is bounded (--count 50,
# timeout) should the guard fail. The allow path is tests/unit/test_dstguard.c's.
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_xtx_compare test_xtx_send test_udp_send test_pkt_send test_xsk_plain"
CMP=$BIN/xtx-compare
for b in udp-send pkt-send xsk-plain xtx-compare; do
  [ -x $BIN/$b ] || { echo "missing $BIN/$b: run make"; exit 1; }
done
net_init

OUT4=192.0.2.7          # TEST-NET-1: never sent to
V6_TX=2001:2::1 V6_RX=2001:2::2
# A failed step stops the test: net_run_tests reports net/dst_guard/setup and exits.
stop() { fail "$*"; net_run_tests; }
setup() { "$@" || stop "setup: '$*' failed"; }
setup ip -n "$TX_NS" route add 192.0.2.0/24 via "$RX_IP" dev "$TX_DEV"
setup ip -n "$TX_NS" addr add $V6_TX/64 dev "$TX_DEV" nodad
setup ip -n "$RX_NS" addr add $V6_RX/64 dev "$RX_DEV" nodad
setup ip -n "$TX_NS" -6 route add 2001:db8::/64 via $V6_RX dev "$TX_DEV"
r4=$(ip -n "$TX_NS" route get $OUT4) r6=$(ip -n "$TX_NS" -6 route get 2001:db8::7)
echo "route: $r4" | head -1; echo "route: $r6" | head -1
[[ $r4 == *"via $RX_IP dev $TX_DEV"* ]] || stop "192.0.2.7 is not routed via $TX_DEV"
[[ $r6 == *"via $V6_RX dev $TX_DEV"* ]] || stop "2001:db8::7 is not routed via $TX_DEV"
# Should the guard fail, what it lets through ends at rx0: the sink drops the cases' ports
# (XDP) and the rx namespace forwards nothing.
fwd=$(in_rx cat /proc/sys/net/ipv4/ip_forward /proc/sys/net/ipv6/conf/all/forwarding | tr -d '\n')
[ "$fwd" = 00 ] || stop "the rx namespace forwards (ip_forward, ipv6 forwarding: $fwd)"

PORT=9100               # case k sends to PORT + k (flows 1)
declare -A CASE_OF      # port -> case name
N=0
# expect NAME REGEX... -- CMD: exit 2, stderr matches every REGEX
expect() {
  local name=$1 res=() rc; shift
  while [ "$1" != -- ]; do res+=("$1"); shift; done; shift
  in_tx timeout 30 "$@" > $TMPD/out 2> $TMPD/err; rc=$?
  local bad=
  [ $rc = 2 ] || bad="exit $rc, want 2"
  for re in "${res[@]}"; do
    grep -qE -- "$re" $TMPD/err || bad="${bad:+$bad; }stderr lacks /$re/"
  done
  if [ -n "$bad" ]; then
    fail "$name: $bad; stderr: $(head -c 400 $TMPD/err)"
  else
    echo "ok    $name: exit 2: $(head -1 $TMPD/err | cut -c1-150)"
  fi
}
next_port() { P=$((PORT + N)); CASE_OF[$P]=$1; N=$((N + 1)); }
REFUSED() { # ADDR: the refusal regexes
  local a=${1//./\\.}
  printf '%s\n' "refusing to (send|connect the control channel) to $a: outside the benchmarking ranges 198\.18\.0\.0/15 and 2001:2::/48" \
    "allow your lab's prefix with --allow-dst [0-9a-f:.]+/(24|64) \(repeatable\)" \
    "or any destination with --allow-any-dst"
}
mapfile -t R4 < <(REFUSED $OUT4)
mapfile -t R200 < <(REFUSED 192.0.2.200)
mapfile -t R6 < <(REFUSED 2001:db8::7)
BOGUS="--allow-dst 'bogus': 'bogus' is not an IPv4 or IPv6 address"

# --- xtx-compare, with its own sink ------------------------------------------------------
cmp_case() { # NAME REGEXES... -- ARGS...: xtx-compare --dev mode, sink on rx0, --json
  local name=$1 res=(); shift
  while [ "$1" != -- ]; do res+=("$1"); shift; done; shift
  next_port "xtx-compare $name"
  rm -f $TMPD/cmp.json
  expect "xtx-compare $name" "${res[@]}" -- $CMP --dev "$TX_DEV" --dst-mac "$TX_NEXTHOP_MAC" \
    --paths kernel-htb,packet-bypass,xtx,afxdp --producers 1 --flows 1 --base-port $P \
    --runs 1 --duration 0.2 --json $TMPD/cmp.json "$@"
  [ -e $TMPD/cmp.json ] &&
    fail "xtx-compare $name measured: its sink counted $(jq -c '[.runs[].sink_pkts]' $TMPD/cmp.json) packets"
}
SINKDEV=(--sink-dev "$RX_DEV" --sink-netns "$RX_NS")
test_xtx_compare() {
  local n0=$N
  cmp_case out4 "${R4[@]}" -- --dst-ip $OUT4 "${SINKDEV[@]}"
  cmp_case allow25 "${R200[@]}" "and the --allow-dst prefixes given" -- \
    --allow-dst 192.0.2.0/25 --dst-ip 192.0.2.200 "${SINKDEV[@]}"
  cmp_case bogus "$BOGUS" -- --allow-dst bogus --dst-ip $OUT4 "${SINKDEV[@]}"
  cmp_case out6 "${R6[@]}" -- --dst-ip 2001:db8::7 "${SINKDEV[@]}"
  cmp_case sink "${R4[@]}" "also takes loopback" -- --dst-ip "$RX_IP" --sink $OUT4:7807
  [ $N -gt $n0 ] || fail "no cases ran"
}

# --- the other tools, counted by this test's sink -----------------------------------------
MAC=(--dst-mac "$TX_NEXTHOP_MAC")
# nothing_arrived N0: the sink (stopped) counted no packet for the cases from N0 on, and
# no other UDP or IPv4 packet; at least one case ran.
nothing_arrived() {
  local n0=$1 pk other p
  pk=$(jget $SINK_JSON .pkts)
  other=$(jget $SINK_JSON '.other.udp_other_port.pkts + .other.ipv4_other.pkts')
  echo "sink: $pk UDP packets to the cases' ports $((PORT + n0))-$((PORT + N - 1)), $other other UDP/IPv4 packets"
  [ "$pk" = 0 ] || {
    for p in $(jq -r '.per_port[] | "\(.port):\(.pkts)"' $SINK_JSON); do
      fail "${CASE_OF[${p%:*}]:-port ${p%:*}}: ${p#*:} packets reached rx0"
    done
  }
  [ "$other" = 0 ] || fail "the sink saw $other other UDP or IPv4 packets"
  [ $N -gt "$n0" ] && [ ${#CASE_OF[@]} = $N ] || fail "no cases ran"
  echo "dst_guard: $((N - n0)) cases"
}
# tool_cases TOOL: out4, allow25 and bogus for TOOL
tool_cases() {
  local tool=$1 a
  case $tool in
    xtx-send) a=(--dev "$TX_DEV" --count 50 --interval 0) ;;   # resolves the next hop itself
    udp-send) a=(--count 50 --timeout 10 --quiet) ;;            # the kernel routes
    *)        a=(--dev "$TX_DEV" "${MAC[@]}" --count 50 --timeout 10 --quiet) ;;
  esac
  next_port "$tool out4"
  expect "$tool out4" "${R4[@]}" -- $BIN/$tool "${a[@]}" --dst-port $P --dst-ip $OUT4
  next_port "$tool allow25"
  expect "$tool allow25" "${R200[@]}" "and the --allow-dst prefixes given" -- \
    $BIN/$tool "${a[@]}" --dst-port $P --allow-dst 192.0.2.0/25 --dst-ip 192.0.2.200
  next_port "$tool bogus"
  expect "$tool bogus" "$BOGUS" -- $BIN/$tool "${a[@]}" --dst-port $P --allow-dst bogus \
    --dst-ip $OUT4
}
# sink_cases TOOL: tool_cases TOOL with the sink on rx0 around them, then nothing_arrived
sink_cases() {
  local n0=$N
  sink_start --ports $PORT-$((PORT + 99)) || return
  tool_cases "$1"
  [ "$1" = xtx-send ] && xtx_send_v6
  sink_stop
  nothing_arrived $n0
}
xtx_send_v6() { # xtx-send's IPv6 cases: out6, v6allow, mapped
  local a=(--dev "$TX_DEV" --count 50 --interval 0) R61 RM
  next_port "xtx-send out6"
  expect "xtx-send out6" "${R6[@]}" -- $BIN/xtx-send "${a[@]}" --dst-port $P --dst-ip 2001:db8::7
  next_port "xtx-send v6allow"
  mapfile -t R61 < <(REFUSED 2001:db8:0:1::7)
  expect "xtx-send v6allow" "${R61[@]}" -- $BIN/xtx-send "${a[@]}" --dst-port $P \
    --allow-dst 2001:db8::/64 --dst-ip 2001:db8:0:1::7
  next_port "xtx-send mapped"
  mapfile -t RM < <(REFUSED ::ffff:$OUT4)
  expect "xtx-send mapped" "${RM[@]}" "--allow-dst 192\.0\.2\.0/24" -- $BIN/xtx-send "${a[@]}" \
    --dst-port $P --dst-ip ::ffff:$OUT4
}
test_xtx_send() { sink_cases xtx-send; }
test_udp_send() { sink_cases udp-send; }
test_pkt_send() { sink_cases pkt-send; }
test_xsk_plain() { sink_cases xsk-plain; }

net_run_tests
