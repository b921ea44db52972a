#!/usr/bin/env bash
# tools/soak.sh - make soak: xtx-send at full rate for SOAK_SECONDS (default 600) on a
# fresh testbed, the link flapped (down 2 s) every 30 s, counted at the receiver. Every 10 s
# it samples xtx-send's RSS and frame accounting. Passes when RSS and the frame total are
# flat (RSS within 4 MiB of the first sample after warm-up, free + in-flight == total at
# every sample), the run exits 0, and every packet is accounted (offered = sent + dropped,
# sent = counted at the sink). Accepts --md FILE --json FILE (tools/bench/report.sh).
set -u
cd "$(dirname "$0")/.."
BIN=build/release/bin
secs=${SOAK_SECONDS:-600} md= json=
while [ $# -gt 0 ]; do
  case $1 in --md) md=$2; shift 2 ;; --json) json=$2; shift 2 ;; *) echo "soak: unknown $1" >&2; exit 2 ;; esac
done
[ "$(id -u)" = 0 ] || { echo "soak: needs root" >&2; exit 1; }
tmp=$(mktemp -d) TB=soak$((RANDOM % 1000))
cleanup() { tools/testbed down "$TB" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
eval "$(tools/testbed up "$TB" --queues 1)" >/dev/null || exit 1
$BIN/xtx-sink --netns "$RX_NS" --dev "$RX_DEV" --ports 9000-9063 --interval 0 --json \
  --ready-file $tmp/ready > $tmp/sink.json 2>/dev/null &
sink=$!
for _ in $(seq 100); do [ -f $tmp/ready ] && break; sleep 0.05; done
txdrop() { ip -n "$TX_NS" -s -j link show "$TX_DEV" | jq '.[0].stats64.tx.dropped'; }
rxdrop() { ip -n "$RX_NS" -s -j link show "$RX_DEV" | jq '.[0].stats64.rx.dropped'; }
d0=$(( $(txdrop) + $(rxdrop) ))
ip netns exec "$TX_NS" $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC" \
  --flows 64 --producers 2 --duration "$secs" --interval 10 --json > $tmp/send.json 2> $tmp/live.log &
pid=$!
samples=() flaps=0 t=0 fail=0 next_flap=30
while kill -0 $pid 2>/dev/null; do
  sleep 10; t=$((t + 10))
  rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null) || break
  [ -n "$rss" ] || break
  samples+=("$t $rss")
  printf '\rsoak: %4d/%d s  RSS %d KiB  flaps %d' $t "$secs" "$rss" $flaps >&2
  if [ $t -ge $next_flap ] && [ $t -lt "$((secs - 5))" ]; then
    ip -n "$TX_NS" link set "$TX_DEV" down; sleep 2; ip -n "$TX_NS" link set "$TX_DEV" up
    flaps=$((flaps + 1)); t=$((t + 2)); next_flap=$((next_flap + 30))
  fi
done
wait $pid; rc=$?
sleep 0.3; kill -INT $sink; wait $sink
echo >&2
# Live lines (stderr, in JSON mode they are off): the frame accounting comes from the
# samples of the summary; RSS from /proc.
first=$(echo "${samples[1]:-${samples[0]}}" | cut -d' ' -f2)
max=$(printf '%s\n' "${samples[@]}" | awk '{print $2}' | sort -n | tail -1)
last=$(echo "${samples[-1]}" | cut -d' ' -f2)
sent=$(jq .sent_pkts $tmp/send.json) off=$(jq .offered_pkts $tmp/send.json)
drop=$(jq .dropped_pkts.total $tmp/send.json) got=$(jq .pkts $tmp/sink.json)
fr=$(jq -c .frames $tmp/send.json)
lost=$((sent - got)) vdrop=$(( $(txdrop) + $(rxdrop) - d0 ))
[ $rc = 0 ] || { echo "soak: xtx-send exit $rc" >&2; fail=1; }
[ $((max - first)) -le 4096 ] || { echo "soak: RSS grew from $first to $max KiB" >&2; fail=1; }
[ "$off" = $((sent + drop)) ] || { echo "soak: offered $off != sent $sent + dropped $drop" >&2; fail=1; }
[ "$lost" -le "$vdrop" ] || { echo "soak: $lost frames missing at the sink, the veth dropped only $vdrop" >&2; fail=1; }
[ "$(jq '.frames.free + .frames.in_flight == .frames.total and .frames.in_flight == 0' $tmp/send.json)" = true ] ||
  { echo "soak: frames $fr" >&2; fail=1; }
out=$(mktemp)
{
  echo "| duration | link flaps | offered | sent | dropped | counted at the sink | sent - counted | dropped by the veth pair | Mpps (mean) | RSS first / max / last (KiB) | frames at the end | result |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '| %d s | %d | %d | %d | %d | %d | %d | %d | %.3f | %d / %d / %d | %s | %s |\n' "$secs" $flaps \
    "$off" "$sent" "$drop" "$got" $lost $vdrop "$(jq '.pps / 1e6' $tmp/send.json)" "$first" "$max" "$last" \
    "$(echo "$fr" | tr -d '"{}' | sed 's/,/, /g')" "$([ $fail = 0 ] && echo pass || echo FAIL)"
} > $out
cat $out
[ -n "$md" ] && { cp $out "$md"; printf '\nsent - counted: frames the kernel took from the TX ring around a flap and the veth pair dropped (its own tx/rx dropped counters, the next column); xtx counts them as sent.\n' >> "$md"; }
[ -n "$json" ] && jq -c --argjson flaps $flaps --argjson got "$got" --argjson rss "[$(printf '%s\n' "${samples[@]}" | awk '{printf "%s[%d,%d]", (NR>1 ? "," : ""), $1, $2}')]" \
  '{duration_s: .duration_s, flaps: $flaps, offered: .offered_pkts, sent: .sent_pkts, dropped: .dropped_pkts, sink: $got, frames: .frames, rss_kib: $rss}' $tmp/send.json > "$json"
rm -f $out
exit $fail
