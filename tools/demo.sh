#!/usr/bin/env bash
# tools/demo.sh - the README's first command (make demo): xtx beside the kernel's HTB
# qdisc on a throwaway veth testbed, same tree, same offered load, same thread count.
#
# Phase 1 (shaping): docs/examples/demo.conf, a 100 Mbit/s two-tenant tree. Phase 2
# (capacity): one class with no practical limit on both paths. For each: xtx-send, then
# the kernel path (udp-send on UDP sockets through tc htb with u32 filters putting the
# same ports in the same classes), counted at the receiver by xtx-sink (XDP).
# Any failed step (testbed, tc, sink, sender) stops the demo with its message and exit 1.
# Environment: DEMO_SECONDS (default 4), DEMO_THREADS (default 2), DEMO_FLOWS (default 16).
set -u
cd "$(dirname "$0")/.." || exit 1
. tools/common/testbed.sh
. tools/bench/lib.sh
BIN=build/release/bin
secs=${DEMO_SECONDS:-4} threads=${DEMO_THREADS:-2} flows=${DEMO_FLOWS:-16}
[ "$(id -u)" = 0 ] || { echo "make demo needs root (network namespaces, XDP, AF_XDP)"; exit 1; }
for b in xtx-send xtx-sink udp-send; do
  [ -x $BIN/$b ] || bench_die "missing $BIN/$b: run make"
done
tmp=$(mktemp -d)
SINK=''
cleanup() {
  [ -n "$SINK" ] && kill -INT "$SINK" 2>/dev/null && wait "$SINK" 2>/dev/null
  tb_down
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tb_up dmo --queues 1 >/dev/null

sink() { # out-file: run the sink for the duration of the sender that follows
  rm -f $tmp/ready
  tb_private "$RX_NS"
  $BIN/xtx-sink --netns "$RX_NS" --dev "$RX_DEV" --ports 9000-$((9000 + flows - 1)) \
    --interval 0 --json --ready-file $tmp/ready > "$1" 2>$tmp/sink.err &
  SINK=$!
  bench_ready $tmp/ready "$SINK" xtx-sink $tmp/sink.err
}
sink_end() {
  local rc=0
  sleep 0.3
  kill -INT $SINK
  wait $SINK || rc=$?
  SINK=
  [ $rc = 0 ] || bench_die "xtx-sink failed (exit $rc):$(printf '\n'; cat $tmp/sink.err)"
}

# tc for the kernel path: the class file's tree as HTB classes (xtx root 1: is tc's 1:1)
# and u32 filters on the destination port, flow i -> leaf i mod 2, as xtx-send assigns.
kernel_htb() { # link gold bulk (Mbit/s); gold 0: one class 1:10 at the link rate
  local out
  bench_tc "$TX_NS" qdisc replace dev "$TX_DEV" root handle 1: htb default 10
  bench_tc "$TX_NS" class add dev "$TX_DEV" parent 1: classid 1:1 htb rate ${1}mbit ceil ${1}mbit overhead 24
  if [ "$2" = 0 ]; then
    bench_tc "$TX_NS" class add dev "$TX_DEV" parent 1:1 classid 1:10 htb rate ${1}mbit overhead 24
    return
  fi
  bench_tc "$TX_NS" class add dev "$TX_DEV" parent 1:1 classid 1:10 htb rate ${2}mbit ceil ${1}mbit prio 0 overhead 24
  bench_tc "$TX_NS" class add dev "$TX_DEV" parent 1:1 classid 1:20 htb rate ${3}mbit ceil ${1}mbit prio 1 overhead 24
  # sfq is optional: a kernel built without it says so ("unknown"), and the bulk leaf
  # stays HTB's default pfifo; any other refusal stops the demo.
  if ! out=$(tb_run "$TX_NS" tc qdisc add dev "$TX_DEV" parent 1:20 handle 20: sfq 2>&1); then
    case $out in
      *nknown*) echo "  (kernel: tc says '$out': no sfq in this kernel, its bulk leaf is a pfifo)" ;;
      *) bench_die "tc qdisc add ... sfq refused: $out" ;;
    esac
  fi
  for ((f = 0; f < flows; f++)); do
    bench_tc "$TX_NS" filter add dev "$TX_DEV" parent 1: protocol ip prio 1 u32 \
      match ip dport $((9000 + f)) 0xffff flowid 1:$(( f % 2 ? 20 : 10 ))
  done
}

# Per-class wire Mbit/s from the sink (frames + 24 bytes), pps, and the sender's CPU/pkt.
report() { # label sink.json sender.json duration
  jq -r --arg l "$1" --argjson d "$4" --slurpfile s "$3" '
    def cls(c): [.per_port[] | select((.port - 9000) % 2 == c)] |
      (([.[].bytes] | add // 0) + 24 * ([.[].pkts] | add // 0)) * 8 / $d / 1e6;
    [$l, (.pkts / $d / 1e6), cls(0), cls(1), $s[0].cpu_ns_per_pkt] |
    "\(.[0] | . + " " * (26 - length))\(.[1] * 1000 | floor / 1000 | tostring | . + " " * (12 - length))\(.[2] * 10 | floor / 10 | tostring | . + " " * (14 - length))\(.[3] * 10 | floor / 10 | tostring | . + " " * (14 - length))\(.[4] | floor)"' "$2"
}

run_phase() { # conf|- link gold bulk
  local classes=()
  [ "$1" != - ] && classes=(--classes "$1")
  echo
  printf '%-26s%-12s%-14s%-14s%s\n' "path ($threads threads)" "Mpps" "1:10 Mbit/s" "1:20 Mbit/s" "CPU ns/pkt"
  sink $tmp/x.sink
  tb_run "$TX_NS" $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" \
    --dst-mac "$TX_NEXTHOP_MAC" "${classes[@]}" --flows $flows --producers $threads \
    --duration $secs --drop --interval 0 --json > $tmp/x.json 2>$tmp/x.err ||
    bench_die "xtx-send failed:$(printf '\n'; cat $tmp/x.err)"
  sink_end
  local d mode
  bench_num d $tmp/x.json .duration_s
  mode=$(jq -r .mode $tmp/x.json) || bench_die "no mode in xtx-send's JSON"
  report "xtx ($mode mode)" $tmp/x.sink $tmp/x.json "$d" || bench_die "cannot read xtx's results"
  kernel_htb "$2" "$3" "$4"
  sink $tmp/k.sink
  tb_run "$TX_NS" $BIN/udp-send --dst-ip "$RX_IP" --flows $flows --threads $threads \
    --sndbuf 8388608 --duration $secs --stamp --quiet --json > $tmp/k.json 2>$tmp/k.err ||
    bench_die "udp-send failed:$(printf '\n'; cat $tmp/k.err)"
  sink_end
  bench_num d $tmp/k.json .duration_s
  report "kernel UDP + tc htb" $tmp/k.sink $tmp/k.json "$d" || bench_die "cannot read the kernel path's results"
  bench_tc "$TX_NS" qdisc del dev "$TX_DEV" root
}

echo "xtx demo: testbed $TX_NS:$TX_DEV -> $RX_NS:$RX_DEV (veth, 64-byte frames), $secs s per run,"
echo "$flows flows (even ports in 1:10, odd in 1:20), everything counted at the receiver by XDP."
echo
echo "1. Shaping: docs/examples/demo.conf, 100 Mbit/s link, 1:10 rate 60 prio 0, 1:20 rate 40 + fq."
echo "   Both classes are offered more than the link; HTB gives each its rate and the spare"
echo "   to 1:10 (priority 0), so expect about 60 / 40 Mbit/s on the wire."
run_phase docs/examples/demo.conf 100 60 40
echo
echo "2. Capacity: one class with no practical limit on both paths (xtx: its default tree;"
echo "   kernel: one HTB class at 40 Gbit/s): packets per second from $threads threads."
echo "   (One class: the 1:10 / 1:20 columns then just split the flows by port parity.)"
run_phase - 40000 0 0
echo
echo "Rates are measured at the receiver (frames + 24 bytes of preamble, gap and FCS)."
echo "Phase 1: xtx's dequeuer keeps both classes backlogged in its own scheduler, so HTB's"
echo "rates and priority decide the split. The kernel's UDP senders (8 MiB socket buffers) do"
echo "not keep 1:10 backlogged on this 2-core VM, so HTB lends the spare to whichever class has"
echo "packets (tc -s class show: 1:20 borrows): the same tree, a different split."
echo "CPU ns/pkt is the sender's CPU time per packet (on veth it includes the receiver's"
echo "softirq work, charged to the sending CPU). See docs/BENCHMARKS.md for repeated runs."
