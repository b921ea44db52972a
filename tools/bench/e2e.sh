#!/usr/bin/env bash
# tools/bench/e2e.sh - end-to-end packets per second on the veth testbed, counted at the
# receiver by xtx-sink (XDP), 64-byte frames, every configuration run K times interleaved:
#
#   plain-1q        tools/xsk-plain: one AF_XDP socket, one thread, no scheduling
#   plain-2q        tools/xsk-plain: two sockets on two queues, a thread each
#   xtx-1q-pN       xtx-send, 1 queue, one class with no limit, N producers (2, 4, 8)
#   xtx-2q-p4       xtx-send, 2 queues, one class, 4 producers
#   xtx-fq-1q-p4    xtx-send, 1 queue, two classes with fq leaves, 1024 flows, 4 producers
#   kernel-htb-tN   tools/udp-send, N threads on UDP sockets through a one-class tc htb
#   xtx-idle        xtx-send offering 100 pps: the engine's CPU use when nearly idle
#
# Usage: e2e.sh [--runs K] [--duration S] [--md FILE] [--json FILE]
# JSON lines: {"config","mpps","spread","cpu_ns_per_pkt","runs","duration_s"}.
set -u
cd "$(dirname "$0")/../.."
BIN=build/release/bin
runs=3 dur=3 md= json=
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --duration) dur=$2; shift 2 ;;
    --md) md=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "e2e.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "e2e.sh: needs root" >&2; exit 1; }
tmp=$(mktemp -d)
TB=e2e$((RANDOM % 1000))
cleanup() { ip netns exec "xtx-$TB-tx" tc qdisc del dev tx0 root 2>/dev/null
            tools/testbed down "$TB" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
eval "$(tools/testbed up "$TB" --queues 2)" >/dev/null || exit 1
cat > $tmp/fq.conf <<'EOF'
class 1:   rate 40gbit
class 1:10 parent 1: rate 20gbit ceil 40gbit prio 0 fq flows 1024
class 1:20 parent 1: rate 20gbit ceil 40gbit prio 0 fq flows 1024
EOF

# One measurement: prints "pps cpu_ns_per_pkt".
measure() { # config
  local c=$1 sender=() tc=0
  case $c in
    plain-1q) sender=($BIN/xsk-plain --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC"
                      --queues 1 --flows 64 --duration "$dur" --json) ;;
    plain-2q) sender=($BIN/xsk-plain --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC"
                      --queues 2 --flows 64 --duration "$dur" --json) ;;
    xtx-*) local q=1 p=4 flows=64 cls=() rate=()
           [[ $c =~ -([0-9])q ]] && q=${BASH_REMATCH[1]}
           [[ $c =~ -p([0-9]+) ]] && p=${BASH_REMATCH[1]}
           [[ $c == xtx-fq-* ]] && { flows=1024; cls=(--classes $tmp/fq.conf); }
           [[ $c == xtx-idle ]] && { p=1; rate=(--rate 100pps); }
           sender=($BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC"
                   --queues $q --producers $p --flows $flows "${cls[@]}" "${rate[@]}"
                   --duration "$dur" --drop --interval 0 --json) ;;
    kernel-htb-t*) tc=1
           sender=($BIN/udp-send --dst-ip "$RX_IP" --flows 64 --threads "${c#kernel-htb-t}"
                   --sndbuf 8388608 --duration "$dur" --quiet --json) ;;
  esac
  if [ $tc = 1 ]; then
    ip netns exec "$TX_NS" tc qdisc replace dev "$TX_DEV" root handle 1: htb default 1
    ip netns exec "$TX_NS" tc class add dev "$TX_DEV" parent 1: classid 1:1 htb rate 40gbit 2>/dev/null
  fi
  rm -f $tmp/ready
  $BIN/xtx-sink --netns "$RX_NS" --dev "$RX_DEV" --ports 9000-10023 --interval 0 --json \
    --ready-file $tmp/ready > $tmp/sink.json 2>$tmp/sink.err &
  local sink=$!
  for _ in $(seq 100); do [ -f $tmp/ready ] && break; sleep 0.05; done
  ip netns exec "$TX_NS" "${sender[@]}" > $tmp/send.json 2>$tmp/send.err ||
    { echo "e2e.sh: $c failed:" >&2; cat $tmp/send.err >&2; }
  sleep 0.3
  kill -INT $sink; wait $sink
  [ $tc = 1 ] && ip netns exec "$TX_NS" tc qdisc del dev "$TX_DEV" root
  local d cpu
  d=$(jq '.duration_s' $tmp/send.json)
  cpu=$(jq '.cpu_ns_per_pkt' $tmp/send.json)
  jq -r --argjson d "$d" --argjson cpu "$cpu" '"\(.pkts / $d) \($cpu)"' $tmp/sink.json
}

configs=(${E2E_CONFIGS:-plain-1q plain-2q xtx-1q-p2 xtx-1q-p4 xtx-1q-p8 xtx-2q-p4 xtx-fq-1q-p4
         kernel-htb-t2 kernel-htb-t4 kernel-htb-t8 xtx-idle})
declare -A pps cpu
for ((r = 1; r <= runs; r++)); do
  for c in "${configs[@]}"; do
    printf '\re2e: run %d/%d %-16s' $r $runs $c >&2
    read -r p u < <(measure $c)
    pps[$c]+="$p "
    cpu[$c]+="$u "
  done
done
printf '\r%60s\r' '' >&2

stat() { # values... -> "median spread"
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
    printf "%.6f %.6f", m, v[NR]-v[1]}'
}
declare -A med spr cmed
for c in "${configs[@]}"; do
  read -r m s < <(stat ${pps[$c]})
  read -r cm _ < <(stat ${cpu[$c]})
  med[$c]=$m spr[$c]=$s cmed[$c]=$cm
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
kern_of() { case $1 in xtx-1q-p2) echo kernel-htb-t2 ;; xtx-1q-p4|xtx-2q-p4|xtx-fq-1q-p4) echo kernel-htb-t4 ;;
            xtx-1q-p8) echo kernel-htb-t8 ;; esac; }
plain_of() { case $1 in *-2q-*) echo plain-2q ;; plain-*|kernel-*|xtx-idle) ;; *) echo plain-1q ;; esac; }

out=$(mktemp)
{
  echo "| configuration | Mpps at the sink | vs plain AF_XDP | vs kernel UDP+HTB (same threads) | sender CPU ns/pkt | CPU vs plain |"
  echo "|---|---|---|---|---|---|"
  for c in "${configs[@]}"; do
    p=$(plain_of $c) k=$(kern_of $c)
    if [ $c = xtx-idle ]; then
      printf '| %s | %.4f | - | - | %.0f (%.2f%% of a core) | - |\n' $c "${med[$c]}" "${cmed[$c]}" \
        "$(awk -v p="${med[$c]}" -v c="${cmed[$c]}" 'BEGIN { printf "%.3f", p * c / 1e7 }')"
      continue
    fi
    printf '| %s | %.3f ± %.3f | %s | %s | %.0f | %s |\n' $c "$(awk -v v="${med[$c]}" 'BEGIN{print v/1e6}')" \
      "$(awk -v v="${spr[$c]}" 'BEGIN{print v/2e6}')" \
      "$([ -n "$p" ] && ratio "${med[$c]}" "${med[$p]}" || echo -)" \
      "$([ -n "$k" ] && ratio "${med[$c]}" "${med[$k]}" || echo -)" "${cmed[$c]}" \
      "$([ -n "$p" ] && ratio "${cmed[$c]}" "${cmed[$p]}" || echo -)"
  done
} > "$out"
cat "$out"
[ -n "$md" ] && cp "$out" "$md"
if [ -n "$json" ]; then
  : > "$json"
  for c in "${configs[@]}"; do
    printf '{"config": "%s", "mpps": %.6f, "spread": %.6f, "cpu_ns_per_pkt": %.1f, "runs": %d, "duration_s": %s}\n' \
      $c "$(awk -v v="${med[$c]}" 'BEGIN{print v/1e6}')" "$(awk -v v="${spr[$c]}" 'BEGIN{print v/1e6}')" \
      "${cmed[$c]}" $runs $dur >> "$json"
  done
fi
rm -f "$out"
