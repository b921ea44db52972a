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
# Any failed step stops the benchmark with its message and exit 1: the testbed, a tc
# command, xtx-shape not attached to fw0 or not running, a sender or the sink failing, a
# figure missing from their JSON, or a path that did not carry the packets it is credited
# with (xtx-shape must have sent at least what the receiver counted, the kernel's root
# htb on fw1 likewise; otherwise the "xtx" row would be kernel forwarding).
#
# Usage: forward.sh [--runs K] [--duration S] [--md FILE] [--json FILE]
# Environment: FWD_CONFIGS (the configurations, default all), XTX_BENCH_FORCE_FAIL
# (tools/bench/lib.sh).
# JSON lines: {"config", "size", "mpps", "spread", "offered_mpps", "runs", "duration_s",
#              "classes": [{"handle", "rate_mbit", "mbit", "spread", "error_pct"}]}
set -u
cd "$(dirname "$0")/../.." || exit 1
. tools/common/testbed.sh
. tools/bench/lib.sh
BIN=build/release/bin
runs=3 dur=3 md='' json=''
bench_opts "runs duration md json" "$@"
[ "$(id -u)" = 0 ] || { echo "forward.sh: needs root" >&2; exit 1; }
for b in xtx-shape xtx-sink xsk-plain xtx-send; do
  [ -x $BIN/$b ] || bench_die "missing $BIN/$b: run make VARIANT=release lib tools bpf"
done
tmp=$(mktemp -d)
SHAPE='' SENDER='' SINK=''
cleanup() {
  local p
  for p in "$SHAPE" "$SENDER" "$SINK"; do
    [ -n "$p" ] && kill -INT "$p" 2>/dev/null && wait "$p" 2>/dev/null
  done
  tb_down
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tb_up fwd --three --queues 2 >/dev/null

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
  local root=root$1
  bench_tc "$FW_NS" qdisc replace dev fw1 root handle 1: htb default 30
  bench_tc "$FW_NS" class add dev fw1 parent 1: classid 1:1 htb rate ${!root}mbit overhead 24
  for i in 0 1 2; do
    set -- ${r[$i]}
    bench_tc "$FW_NS" class add dev fw1 parent 1:1 classid ${handles[$i]} htb rate ${1}mbit \
      ceil ${2}mbit prio ${prios[$i]} overhead 24
    # pfifo of 1000 packets, as xtx's leaves (limit 1000)
    bench_tc "$FW_NS" qdisc add dev fw1 parent ${handles[$i]} pfifo limit 1000
    set -- ${u32[$i]}
    bench_tc "$FW_NS" filter add dev fw1 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
      match ip dport $1 $2 flowid ${handles[$i]}
  done
}

# xtx-shape must be attached to fw0 and alive before anything is measured: if it is not,
# the namespace forwards in the kernel and the "xtx" row would measure the kernel.
shape_check() { # config
  local xdp
  kill -0 "$SHAPE" 2>/dev/null ||
    bench_die "$1: xtx-shape exited:$(printf '\n'; cat "$tmp/shape.err")"
  xdp=$(tb_run "$FW_NS" ip -j link show dev fw0 | jq -r '.[0].xdp.prog.id // .[0].xdp.attached[0].prog.id // empty') ||
    bench_die "$1: cannot read fw0's XDP state"
  [ -n "$xdp" ] || bench_die "$1: no XDP program on fw0 while xtx-shape runs:$(printf '\n'; cat "$tmp/shape.err")"
}

# One measurement: appends "pps offered_pps mbit_1:10 mbit_1:20 mbit_1:30" to res[config].
measure() { # config
  local c=$1 kind=${1%%-*} size txq=1 rc
  size=${1#*-}; size=${size%%-*}
  [[ $c == *-2tx ]] && txq=2
  case $kind-$size in xtx-64|xtx-1514|kernel-64|kernel-1514) ;;
    *) bench_die "unknown configuration '$c' (FWD_CONFIGS)" ;; esac
  classes_file $size > $tmp/classes.conf
  if [ $kind = xtx ]; then
    local shape=($BIN/xtx-shape --in fw0 --out fw1 --queues 2 --tx-queues $txq
                 --classes $tmp/classes.conf --rules $tmp/rules --interval 0 --json --drop
                 --ready-file $tmp/ready)
    bench_forced shape && shape+=(--xtx-bench-forced-failure)
    rm -f $tmp/ready
    tb_private "$FW_NS"
    bench_exec "$FW_NS" "${shape[@]}" > $tmp/shape.json 2> $tmp/shape.err &
    SHAPE=$!
    bench_ready $tmp/ready "$SHAPE" "$c: xtx-shape" $tmp/shape.err
    shape_check "$c"
  else
    tc_setup $size
  fi
  local sdur sender
  sdur=$(awk -v d="$dur" 'BEGIN { print d + 3 }')
  if [ $size = 64 ]; then
    sender=($BIN/xsk-plain --dev "$TX_DEV" --queues 2 --dst-ip "$RX_IP"
      --dst-mac "$TX_NEXTHOP_MAC" --flows $FLOWS --dst-port $PORT0 --size $size
      --duration "$sdur" --quiet --json)
  else
    sender=($BIN/xtx-send --dev "$TX_DEV" --queues 2 --producers 2
      --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC" --flows $FLOWS --dst-port $PORT0
      --size $size --rate $((2 * root1514))mbit --duration "$sdur" --interval 0 --drop
      --json)
  fi
  bench_forced sender && sender+=(--xtx-bench-forced-failure)
  tb_private "$TX_NS"
  bench_exec "$TX_NS" timeout 60 "${sender[@]}" > $tmp/send.json 2> $tmp/send.err &
  SENDER=$!
  sleep 1.5			# queues full, rates settled
  kill -0 $SENDER 2>/dev/null || { wait $SENDER; rc=$?; SENDER=
    bench_die "$c: ${sender[0]##*/} stopped early (exit $rc):$(printf '\n'; cat $tmp/send.err)"; }
  local sink=(--netns "$RX_NS" --dev "$RX_DEV" --ports $PORT0-$((PORT0 + FLOWS - 1))
              --interval 0 --json --duration "$dur")
  bench_forced sink && sink+=(--xtx-bench-forced-failure)
  tb_private "$RX_NS"
  $BIN/xtx-sink "${sink[@]}" > $tmp/sink.json 2> $tmp/sink.err ||
    { rc=$?; bench_die "$c: xtx-sink failed (exit $rc):$(printf '\n'; cat $tmp/sink.err)"; }
  [ $kind = xtx ] && shape_check "$c"
  wait $SENDER || { rc=$?; SENDER=
    bench_die "$c: ${sender[0]##*/} failed (exit $rc):$(printf '\n'; cat $tmp/send.err)"; }
  SENDER=
  local d k carried
  bench_num d $tmp/sink.json .arrival_s
  bench_num k $tmp/sink.json .pkts
  bench_pkts_ok "$k" "$c: counted at the receiver"
  if [ $kind = xtx ]; then
    kill -INT $SHAPE
    wait $SHAPE || { rc=$?; SHAPE=
      bench_die "$c: xtx-shape failed (exit $rc):$(printf '\n'; cat $tmp/shape.err)"; }
    SHAPE=
    bench_num carried $tmp/shape.json .tx.sent_pkts
  else
    tb_run "$FW_NS" tc -s -j qdisc show dev fw1 > $tmp/qdisc.json ||
      bench_die "$c: cannot read fw1's qdisc counters"
    bench_num carried $tmp/qdisc.json '[.[] | select(.root == true)][0].packets'
    bench_tc "$FW_NS" qdisc del dev fw1 root
  fi
  # The path measured must have carried every packet the receiver counted.
  [ "$carried" -ge "$k" ] || bench_die "$c: the receiver counted $k packets but the" \
    "$kind path sent only $carried: something else forwarded them"
  local out p
  bench_num p $tmp/send.json .pps
  out="$(awk -v k="$k" -v d="$d" 'BEGIN { printf "%.1f", k / d }') $p"
  for rg in "${ranges[@]}"; do
    set -- $rg
    out+=" $(jq --argjson lo $1 --argjson hi $2 --argjson d "$d" \
      '[.per_port[] | select(.port >= $lo and .port <= $hi)] |
       (((map(.bytes) | add) // 0) + 24 * ((map(.pkts) | add) // 0)) * 8 / $d / 1e6' $tmp/sink.json)" ||
      bench_die "$c: no per-port counts in the sink's JSON"
  done
  res[$c]=$out
}

read -r -a configs <<< "${FWD_CONFIGS:-xtx-64 xtx-64-2tx kernel-64 xtx-1514 kernel-1514}"
[ ${#configs[@]} -gt 0 ] || bench_die "FWD_CONFIGS is empty"
declare -A pps off m0 m1 m2 res
for ((r = 1; r <= runs; r++)); do
  for c in "${configs[@]}"; do
    printf '\rforward: run %d/%d %-12s' $r "$runs" "$c" >&2
    measure "$c"
    read -r p o a b x <<< "${res[$c]}"
    pps[$c]+="$p " off[$c]+="$o " m0[$c]+="$a " m1[$c]+="$b " m2[$c]+="$x "
  done
done
printf '\r%50s\r' '' >&2

mpps() { awk -v v="$1" 'BEGIN { print v / 1e6 }'; }
: > $tmp/json
{
  echo "64-byte frames, offered above what either path carries:"
  echo
  echo "| configuration | Mpps at the receiver | vs kernel | sender offered, Mpps |"
  echo "|---|---|---|---|"
  for c in "${configs[@]}"; do
    [[ $c == *-64* ]] || continue
    bench_stat m s ${pps[$c]}
    bench_stat om _ ${off[$c]}
    k=kernel-64
    ratio=-
    if [ $c != $k ] && [ -n "${pps[$k]:-}" ]; then
      bench_stat km _ ${pps[$k]}
      ratio=$(awk -v a="$m" -v b="$km" 'BEGIN { printf "%.2fx", a / b }')
    fi
    printf '| %s | %.3f ± %.3f | %s | %.3f |\n' $c "$(mpps "$m")" \
      "$(awk -v v="$s" 'BEGIN { print v / 2e6 }')" "$ratio" "$(mpps "$om")"
    printf '{"config": "%s", "size": 64, "mpps": %.6f, "spread": %.6f, "offered_mpps": %.6f, "runs": %d, "duration_s": %s, "runs_pps": [%s]}\n' \
      $c "$(mpps "$m")" "$(mpps "$s")" "$(mpps "$om")" "$runs" "$dur" \
      "$(echo ${pps[$c]} | tr ' ' ,)" >> $tmp/json
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
      bench_stat m s ${col[$c]}
      unset -n col
      set -- ${rates1514[$i]}
      err=$(awk -v m="$m" -v r="$1" 'BEGIN { printf "%.2f", (m - r) / r * 100 }')
      printf '| %s | %s | %s | %.2f ± %.2f | %+.2f%% |\n' $c ${handles[$i]} $1 "$m" \
        "$(awk -v v="$s" 'BEGIN { print v / 2 }')" "$err"
      cls+="${cls:+, }{\"handle\": \"${handles[$i]}\", \"rate_mbit\": $1, \"mbit\": $m, \"spread\": $s, \"error_pct\": $err}"
    done
    bench_stat m s ${pps[$c]}
    bench_stat om _ ${off[$c]}
    printf '{"config": "%s", "size": 1514, "mpps": %.6f, "spread": %.6f, "offered_mpps": %.6f, "runs": %d, "duration_s": %s, "runs_pps": [%s], "classes": [%s]}\n' \
      $c "$(mpps "$m")" "$(mpps "$s")" "$(mpps "$om")" "$runs" "$dur" \
      "$(echo ${pps[$c]} | tr ' ' ,)" "$cls" >> $tmp/json
  done
} > $tmp/table
cat $tmp/table
[ -z "$md" ] || cp $tmp/table "$md" || bench_die "cannot write $md"
[ -z "$json" ] || cp $tmp/json "$json" || bench_die "cannot write $json"
exit 0
