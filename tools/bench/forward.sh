#!/usr/bin/env bash
# tools/bench/forward.sh - forwarding through a shaper on the three-namespace testbed
# (tx0 -> fw0 [shaper] fw1 -> rx0), counted at the receiver by xtx-sink (XDP on rx0), every
# configuration run K times interleaved:
#
#   xtx-64       xtx-shape (router mode) in the forwarding namespace, 64-byte frames: two
#                receive queues (a worker each), one egress queue (one scheduler: exact HTB)
#   xtx-64-2tx   the same with two egress queues (a scheduler each: rates per queue, which
#                does not matter here, where no class reaches its rate)
#   kernel-64    the kernel's IPv4 forwarding with tc htb (the same class tree, u32 filters
#                on the same ports) on the egress veth fw1, 64-byte frames
#   xtx-1514     xtx-shape (one egress queue), 1514-byte frames (full MTU), ceil = rate
#   kernel-1514  kernel forwarding + tc htb, 1514-byte frames
#
# 64 bytes: the sender is xsk-plain (plain AF_XDP, the fastest sender here) with two
# queues and 40 flows, unpaced: it offers what it can; packets per second at the receiver
# (class tree: three leaves whose rates nobody reaches, the same per-packet work as
# shaping). On this 2-CPU VM the sender shares the CPUs with the forwarding path (the
# ingress veth's softirq runs on the sending CPU), so what it offers depends on the path:
# its rate is reported beside the receiver's.
# 1514 bytes: xtx-send paced at twice the root's rate (700 Mbit/s, 40 flows, two queues),
# above every class's rate; each class at the receiver, on the wire (frame + 24 bytes of
# preamble, gap and FCS; xtx and tc are both told to count that overhead), against its
# configured rate. (Unpaced, the senders' softirq work takes nearly all of both CPUs and
# leaves xtx's dequeuer too little to keep the rates, while tc's dequeue runs in softirq.)
#
# Usage: forward.sh [--runs K] [--duration S] [--md FILE] [--json FILE]
# JSON lines: {"config", "size", "mpps", "spread", "offered_mpps", "runs", "duration_s",
#              "classes": [{"handle", "rate_mbit", "mbit", "spread", "error_pct"}]}
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=build/release/bin
runs=3 dur=3 md='' json=
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --duration) dur=$2; shift 2 ;;
    --md) md=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "forward.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "forward.sh: needs root" >&2; exit 1; }
for b in xtx-shape xtx-sink xsk-plain xtx-send; do
  [ -x $BIN/$b ] || { echo "forward.sh: missing $BIN/$b: run make" >&2; exit 1; }
done
tmp=$(mktemp -d)
TB=fwd$((RANDOM % 1000))
SHAPE=
cleanup() {
  [ -n "$SHAPE" ] && kill -INT "$SHAPE" 2>/dev/null && wait "$SHAPE" 2>/dev/null
  ip netns exec "xtx-$TB-fw" tc qdisc del dev fw1 root 2>/dev/null
  tools/testbed down "$TB" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
eval "$(tools/testbed up "$TB" --three --queues 2)" >/dev/null || exit 1

# Three classes on aligned port ranges (u32 matches value/mask): 16, 16 and 8 flows.
PORT0=9216 FLOWS=40
ranges=("9216 9231" "9232 9247" "9248 9255")
u32=("9216 0xfff0" "9232 0xfff0" "9248 0xfff8")
handles=(1:10 1:20 1:30)
prios=(0 1 1)
# Rates in Mbit/s: "rate ceil" per leaf, and the root's (read through namerefs below).
# shellcheck disable=SC2034
rates64=("3000 10000" "3000 10000" "3000 10000") root64=10000
rates1514=("200 200" "100 100" "50 50") root1514=350
cat > $tmp/rules <<EOF
match proto udp dport ${ranges[0]/ /-} class 1:10
match proto udp dport ${ranges[1]/ /-} class 1:20
match proto udp dport ${ranges[2]/ /-} class 1:30
EOF

classes_file() { # size -> xtx class file on stdout
  local -n r=rates$1
  local root=root$1
  echo "class 1: rate ${!root}mbit"
  for i in 0 1 2; do
    set -- ${r[$i]}
    echo "class ${handles[$i]} parent 1: rate ${1}mbit ceil ${2}mbit prio ${prios[$i]} limit 1000"
  done
  echo "overhead 24"
}

tc_setup() { # size
  local -n r=rates$1
  local root=root$1 F="ip netns exec $FW_NS tc"
  $F qdisc replace dev fw1 root handle 1: htb default 30 2>/dev/null
  $F class add dev fw1 parent 1: classid 1:1 htb rate ${!root}mbit overhead 24 2>/dev/null
  for i in 0 1 2; do
    set -- ${r[$i]}
    $F class add dev fw1 parent 1:1 classid ${handles[$i]} htb rate ${1}mbit ceil ${2}mbit \
      prio ${prios[$i]} overhead 24 2>/dev/null
    # pfifo of 1000 packets, as xtx's leaves (limit 1000)
    $F qdisc add dev fw1 parent ${handles[$i]} pfifo limit 1000 2>/dev/null
    set -- ${u32[$i]}
    $F filter add dev fw1 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
      match ip dport $1 $2 flowid ${handles[$i]}
  done
}

# One measurement: prints "pps offered_pps mbit_1:10 mbit_1:20 mbit_1:30".
measure() { # config
  local c=$1 kind=${1%%-*} size txq=1
  size=${1#*-}; size=${size%%-*}
  [[ $c == *-2tx ]] && txq=2
  classes_file $size > $tmp/classes.conf
  if [ $kind = xtx ]; then
    rm -f $tmp/ready
    $BIN/xtx-shape --netns "$FW_NS" --in fw0 --out fw1 --queues 2 --tx-queues $txq \
      --classes $tmp/classes.conf \
      --rules $tmp/rules --interval 0 --json --drop --ready-file $tmp/ready > $tmp/shape.json \
      2> $tmp/shape.err &
    SHAPE=$!
    for _ in $(seq 200); do [ -f $tmp/ready ] && break; sleep 0.05; done
    [ -f $tmp/ready ] || { echo "forward.sh: xtx-shape did not start:" >&2; cat $tmp/shape.err >&2; }
  else
    tc_setup $size
  fi
  local sdur
  sdur=$(awk -v d="$dur" 'BEGIN { print d + 3 }')
  if [ $size = 64 ]; then
    ip netns exec "$TX_NS" timeout 60 $BIN/xsk-plain --dev "$TX_DEV" --queues 2 --dst-ip "$RX_IP" \
      --dst-mac "$TX_NEXTHOP_MAC" --flows $FLOWS --dst-port $PORT0 --size $size \
      --duration "$sdur" --quiet --json > $tmp/send.json 2> $tmp/send.err &
  else
    ip netns exec "$TX_NS" timeout 60 $BIN/xtx-send --dev "$TX_DEV" --queues 2 --producers 2 \
      --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC" --flows $FLOWS --dst-port $PORT0 \
      --size $size --rate $((2 * root1514))mbit --duration "$sdur" --interval 0 --drop \
      --json > $tmp/send.json 2> $tmp/send.err &
  fi
  local sender=$!
  sleep 1.5			# queues full, rates settled
  $BIN/xtx-sink --netns "$RX_NS" --dev "$RX_DEV" --ports $PORT0-$((PORT0 + FLOWS - 1)) \
    --interval 0 --json --duration "$dur" > $tmp/sink.json 2> $tmp/sink.err ||
    { echo "forward.sh: xtx-sink failed:" >&2; cat $tmp/sink.err >&2; }
  wait $sender || { echo "forward.sh: $c: sender failed:" >&2; cat $tmp/send.err >&2; }
  if [ $kind = xtx ]; then
    kill -INT $SHAPE; wait $SHAPE; SHAPE=
  else
    ip netns exec "$FW_NS" tc qdisc del dev fw1 root
  fi
  local d out
  d=$(jq .duration_s $tmp/sink.json)
  out="$(jq --argjson d "$d" '.pkts / $d' $tmp/sink.json) $(jq .pps $tmp/send.json)"
  for rg in "${ranges[@]}"; do
    set -- $rg
    out+=" $(jq --argjson lo $1 --argjson hi $2 --argjson d "$d" \
      '[.per_port[] | select(.port >= $lo and .port <= $hi)] |
       (((map(.bytes) | add) // 0) + 24 * ((map(.pkts) | add) // 0)) * 8 / $d / 1e6' $tmp/sink.json)"
  done
  echo "$out"
}

read -r -a configs <<< "${FWD_CONFIGS:-xtx-64 xtx-64-2tx kernel-64 xtx-1514 kernel-1514}"
declare -A pps off m0 m1 m2
for ((r = 1; r <= runs; r++)); do
  for c in "${configs[@]}"; do
    printf '\rforward: run %d/%d %-12s' $r $runs $c >&2
    read -r p o a b x < <(measure $c)
    pps[$c]+="$p " off[$c]+="$o " m0[$c]+="$a " m1[$c]+="$b " m2[$c]+="$x "
  done
done
printf '\r%50s\r' '' >&2

stat() { # values... -> "median spread"
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
    printf "%.6f %.6f", m, v[NR]-v[1]}'
}
out=$(mktemp)
: > $tmp/json
{
  echo "64-byte frames, offered above what either path carries:"
  echo
  echo "| configuration | Mpps at the receiver | vs kernel | sender offered, Mpps |"
  echo "|---|---|---|---|"
  for c in "${configs[@]}"; do
    [[ $c == *-64* ]] || continue
    read -r m s < <(stat ${pps[$c]})
    read -r om _ < <(stat ${off[$c]})
    k=kernel-64
    ratio=-
    if [ $c != $k ] && [ -n "${pps[$k]:-}" ]; then
      read -r km _ < <(stat ${pps[$k]})
      ratio=$(awk -v a="$m" -v b="$km" 'BEGIN { printf "%.2fx", a / b }')
    fi
    printf '| %s | %.3f ± %.3f | %s | %.3f |\n' $c "$(awk -v v="$m" 'BEGIN{print v/1e6}')" \
      "$(awk -v v="$s" 'BEGIN{print v/2e6}')" "$ratio" "$(awk -v v="$om" 'BEGIN{print v/1e6}')"
    printf '{"config": "%s", "size": 64, "mpps": %.6f, "spread": %.6f, "offered_mpps": %.6f, "runs": %d, "duration_s": %s}\n' \
      $c "$(awk -v v="$m" 'BEGIN{print v/1e6}')" "$(awk -v v="$s" 'BEGIN{print v/1e6}')" \
      "$(awk -v v="$om" 'BEGIN{print v/1e6}')" $runs $dur >> $tmp/json
  done
  echo
  echo "1514-byte frames offered at twice the root's rate, every class above its rate (ceil = rate); Mbit/s on the wire:"
  echo
  echo "| configuration | class | rate | at the receiver | error |"
  echo "|---|---|---|---|---|"
  for c in "${configs[@]}"; do
    [[ $c == *-1514 ]] || continue
    cls=""
    for i in 0 1 2; do
      declare -n col=m$i
      read -r m s < <(stat ${col[$c]})
      unset -n col
      set -- ${rates1514[$i]}
      err=$(awk -v m="$m" -v r="$1" 'BEGIN { printf "%.2f", (m - r) / r * 100 }')
      printf '| %s | %s | %s | %.2f ± %.2f | %+.2f%% |\n' $c ${handles[$i]} $1 "$m" \
        "$(awk -v v="$s" 'BEGIN{print v/2}')" "$err"
      cls+="${cls:+, }{\"handle\": \"${handles[$i]}\", \"rate_mbit\": $1, \"mbit\": $m, \"spread\": $s, \"error_pct\": $err}"
    done
    read -r m s < <(stat ${pps[$c]})
    read -r om _ < <(stat ${off[$c]})
    printf '{"config": "%s", "size": 1514, "mpps": %.6f, "spread": %.6f, "offered_mpps": %.6f, "runs": %d, "duration_s": %s, "classes": [%s]}\n' \
      $c "$(awk -v v="$m" 'BEGIN{print v/1e6}')" "$(awk -v v="$s" 'BEGIN{print v/1e6}')" \
      "$(awk -v v="$om" 'BEGIN{print v/1e6}')" $runs $dur "$cls" >> $tmp/json
  done
} > "$out"
cat "$out"
[ -n "$md" ] && cp "$out" "$md"
[ -n "$json" ] && cp $tmp/json "$json"
rm -f "$out"
