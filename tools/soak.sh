#!/usr/bin/env bash
# tools/soak.sh - make soak: xtx-send at full rate for SOAK_SECONDS (default 600) on a
# fresh testbed, the link flapped (tx0 down for 2 s) every 30 s, counted at the receiver.
# Every 10 s it samples xtx-send's RSS and tx0's kernel counters. It passes when:
#   - xtx-send exits 0; RSS stays within 4 MiB of the first sample after warm-up;
#   - every frame is free at the end (free + in flight == total, in flight == 0);
#   - xtx's own counters add up: offered == sent + dropped (by reason);
#   - tx0 carried only xtx's frames: its tx packets + tx dropped grew by exactly the
#     frames xtx sent (IPv6 is off on tx0, so the kernel sends nothing of its own there);
#   - every frame xtx sent and the sink did not count is in tx0's tx_dropped, exactly:
#     sent - counted == the growth of tx0's tx_dropped. That is the one place the kernel
#     drops a frame it took from the TX ring (docs/reliability.md, link flaps): the link
#     going down under a frame in flight, or the receiving veth's ring being full.
#     Nothing looser: a frame lost anywhere else fails the soak.
# Any failed step (testbed, sink, sender, a missing figure) stops it with exit 1.
# Accepts --md FILE --json FILE (tools/bench/report.sh); XTX_BENCH_FORCE_FAIL
# (tools/bench/lib.sh).
set -u
cd "$(dirname "$0")/.." || exit 1
. tools/common/testbed.sh
. tools/bench/lib.sh
BIN=build/release/bin
secs=${SOAK_SECONDS:-600} md='' json=''
while [ $# -gt 0 ]; do
  case $1 in
    --md) md=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "soak: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 30 ] && [ "$secs" -le 7200 ] ||
  { echo "soak: SOAK_SECONDS must be 30..7200" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "soak: needs root" >&2; exit 1; }
for b in xtx-send xtx-sink; do
  [ -x $BIN/$b ] || bench_die "missing $BIN/$b: run make VARIANT=release lib tools bpf"
done
tmp=$(mktemp -d)
SINK='' PID=''
cleanup() {
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  [ -n "$SINK" ] && kill -INT "$SINK" 2>/dev/null && wait "$SINK" 2>/dev/null
  tb_down
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tb_up sk --queues 1 >/dev/null
tb_run "$TX_NS" sysctl -qw "net.ipv6.conf.$TX_DEV.disable_ipv6=1" ||
  bench_die "cannot switch IPv6 off on $TX_DEV"

# tx0's counters as "tx_packets tx_dropped".
txstat() { # VAR
  local _j
  _j=$(tb_run "$TX_NS" ip -s -j link show dev "$TX_DEV") || bench_die "cannot read $TX_DEV's counters"
  printf '%s\n' "$_j" > "$tmp/link.json"
  local _p _d
  bench_num _p "$tmp/link.json" '.[0].stats64.tx.packets'
  bench_num _d "$tmp/link.json" '.[0].stats64.tx.dropped'
  printf -v "$1" '%s %s' "$_p" "$_d"
}

sink_args=(--netns "$RX_NS" --dev "$RX_DEV" --ports 9000-9063 --interval 0 --json
           --ready-file "$tmp/ready")
bench_forced sink && sink_args+=(--xtx-bench-forced-failure)
tb_private "$RX_NS"
$BIN/xtx-sink "${sink_args[@]}" > "$tmp/sink.json" 2> "$tmp/sink.err" &
SINK=$!
bench_ready "$tmp/ready" "$SINK" xtx-sink "$tmp/sink.err"
txstat s0
send_args=(--dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC" --flows 64
           --producers 2 --duration "$secs" --interval 10 --json)
bench_forced sender && send_args+=(--xtx-bench-forced-failure)
tb_private "$TX_NS"
bench_exec "$TX_NS" $BIN/xtx-send "${send_args[@]}" > "$tmp/send.json" 2> "$tmp/live.log" &
PID=$!			# xtx-send itself: its RSS is read from /proc
samples=() flaps=0 t=0 fail=0 next_flap=30
while kill -0 $PID 2>/dev/null && [ $t -le $((secs + 60)) ]; do
  sleep 10; t=$((t + 10))
  rss=$(awk '/^VmRSS/ { print $2 }' /proc/$PID/status 2>/dev/null) || break
  [ -n "$rss" ] || break
  txstat st
  samples+=("$t $rss $((${st#* } - ${s0#* }))")
  printf '\rsoak: %4d/%d s  RSS %d KiB  flaps %d' $t "$secs" "$rss" $flaps >&2
  if [ $t -ge $next_flap ] && [ $t -lt "$((secs - 5))" ]; then
    tb_run "$TX_NS" ip link set "$TX_DEV" down || bench_die "cannot set $TX_DEV down"
    sleep 2
    tb_run "$TX_NS" ip link set "$TX_DEV" up || bench_die "cannot set $TX_DEV up"
    flaps=$((flaps + 1)); t=$((t + 2)); next_flap=$((next_flap + 30))
  fi
done
kill -0 $PID 2>/dev/null && bench_die "xtx-send still running $t s into a $secs s run"
rc=0; wait $PID || rc=$?
PID=
echo >&2
[ $rc = 0 ] || bench_die "xtx-send exit $rc:$(printf '\n'; tail -20 "$tmp/live.log")"
sleep 0.3			# frames still in the veth's NAPI
kill -INT $SINK
wait $SINK || { rc=$?; bench_die "xtx-sink failed (exit $rc):$(printf '\n'; cat "$tmp/sink.err")"; }
SINK=
txstat s1
[ ${#samples[@]} -ge 2 ] || bench_die "fewer than two RSS samples (${#samples[@]})"

first=$(echo "${samples[1]}" | cut -d' ' -f2)
max=$(printf '%s\n' "${samples[@]}" | awk '{ print $2 }' | sort -n | tail -1)
last=$(echo "${samples[-1]}" | cut -d' ' -f2)
bench_num sent "$tmp/send.json" .sent_pkts
bench_num off "$tmp/send.json" .offered_pkts
bench_num drop "$tmp/send.json" .dropped_pkts.total
bench_num got "$tmp/sink.json" .pkts
bench_num gaps "$tmp/sink.json" .gap_seqs
bench_pkts_ok "$got" "counted at the sink"
fr=$(jq -c .frames "$tmp/send.json") || bench_die "no frames in xtx-send's JSON"
read -r p0 d0 <<< "$s0"
read -r p1 d1 <<< "$s1"
lost=$((sent - got)) kdrop=$((d1 - d0)) handled=$((p1 - p0 + d1 - d0))
[ $((max - first)) -le 4096 ] || { echo "soak: RSS grew from $first to $max KiB" >&2; fail=1; }
[ "$off" = $((sent + drop)) ] || { echo "soak: offered $off != sent $sent + dropped $drop" >&2; fail=1; }
[ "$handled" = "$sent" ] ||
  { echo "soak: $TX_DEV handled $handled frames (tx packets + tx dropped), xtx sent $sent" >&2; fail=1; }
[ "$lost" = "$kdrop" ] ||
  { echo "soak: $lost frames sent but not counted at the sink, $TX_DEV's tx_dropped grew by $kdrop" >&2; fail=1; }
[ "$(jq '.frames.free + .frames.in_flight == .frames.total and .frames.in_flight == 0' "$tmp/send.json")" = true ] ||
  { echo "soak: frames $fr" >&2; fail=1; }
{
  echo "| duration | link flaps | offered | sent | dropped by xtx | counted at the sink | sent - counted | tx0 tx_dropped | Mpps (mean) | RSS first / max / last (KiB) | frames at the end | result |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '| %d s | %d | %d | %d | %d | %d | %d | %d | %.3f | %d / %d / %d | %s | %s |\n' "$secs" $flaps \
    "$off" "$sent" "$drop" "$got" $lost $kdrop "$(jq '.pps / 1e6' "$tmp/send.json")" "$first" "$max" "$last" \
    "$(echo "$fr" | tr -d '"{}' | sed 's/,/, /g')" "$([ $fail = 0 ] && echo pass || echo FAIL)"
  echo
  echo "sent - counted: frames xtx handed to the kernel that never reached the sink; the pass rule wants them equal to the growth of tx0's tx_dropped, the kernel's count of frames it took from the TX ring and dropped (link going down under them, or the peer's ring full). tx0 carried nothing but xtx's frames (tx packets + tx dropped grew by $handled, xtx sent $sent)."
} > "$tmp/table"
cat "$tmp/table"
[ -z "$md" ] || cp "$tmp/table" "$md" || bench_die "cannot write $md"
if [ -n "$json" ]; then
  jq -c --argjson flaps $flaps --argjson got "$got" --argjson gaps "$gaps" \
    --argjson kdrop "$kdrop" --argjson handled "$handled" --argjson pass "$([ $fail = 0 ] && echo true || echo false)" \
    --argjson samples "[$(printf '%s\n' "${samples[@]}" | awk '{ printf "%s[%d,%d,%d]", (NR > 1 ? "," : ""), $1, $2, $3 }')]" \
    '{duration_s: .duration_s, flaps: $flaps, offered: .offered_pkts, sent: .sent_pkts,
      dropped: .dropped_pkts, sink: $got, sink_gap_seqs: $gaps, tx0_tx_dropped: $kdrop,
      tx0_handled: $handled, frames: .frames, pass: $pass,
      rss_kib: [$samples[] | [.[0], .[1]]], tx0_tx_dropped_at: [$samples[] | [.[0], .[2]]]}' \
    "$tmp/send.json" > "$tmp/json" || bench_die "cannot build the JSON"
  cp "$tmp/json" "$json" || bench_die "cannot write $json"
fi
exit $fail
