#!/usr/bin/env bash
# tools/bench/line_cost.sh - where the instructions of one packet go, by component: xtx-send
# on the null device under valgrind's cachegrind (instruction counts, no cache simulation),
# each instruction charged to the source file and function it came from, so code inlined
# from a header counts for that header's component:
#
#   packet build     include/xtx/pkt.h, payload.h and xtx-send's producer loop
#   producer API     userspace/engine/producer.c, defs.h inside xtx_producer__* (get
#                    frames, check and hand over descriptors)
#   stage            include/xtx/mpsc*.h, userspace/stage/ (enqueue and dequeue)
#   sched enqueue    userspace/sched/ inside xtx_sched__enqueue_burst and leaf activation
#   sched dequeue    userspace/sched/ inside dequeue, fq dequeue, leaf deactivation
#   TX ring          userspace/engine/txring.h and libxdp's ring functions (xsk.h): writes,
#                    completion peeks and releases
#   device           userspace/engine/nulldev.c: the NIC's side (the null device)
#   pool             recycling completed frames into the pool (pool.*, recycle())
#   dequeuer loop    the rest of userspace/engine/dequeuer.c (steps, counters)
#   class counters   the class counters the dequeuer publishes every 10 ms of wall time:
#                    under valgrind's slowdown far more often per packet than on a core
#   other            libc (memcpy of templates included), the clock, setup and teardown
#
# Valgrind runs one thread at a time, so the dequeuer finds the stage fuller and the
# scheduler's leaves emptier than on two cores; the counts are instructions, not time.
#
# Usage: line_cost.sh PKTS TREE-NAME [CLASS-FILE] [-- XTX-SEND-ARGS...]
# Prints one JSON line per component: {"cost_tree", "component", "instr_per_pkt"}.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tools/bench/lib.sh
[ $# -ge 2 ] || bench_die "usage: line_cost.sh PKTS TREE-NAME [CLASS-FILE] [-- ARGS...]"
pkts=$1 tree=$2
shift 2
cls=()
if [ $# -gt 0 ] && [ "$1" != -- ]; then cls=(--classes "$1"); shift; fi
[ "${1:-}" = -- ] && shift
command -v valgrind >/dev/null || bench_die "valgrind missing: make deps"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unshare -n timeout 600 valgrind --tool=cachegrind --cache-sim=no \
  --cachegrind-out-file="$tmp/cg.out" build/release/bin/xtx-send --dev null \
  --dst-ip 198.18.0.2 --size 60 --producers 1 --count "$pkts" "${cls[@]}" "$@" \
  --interval 0 --json > "$tmp/send.json" 2> "$tmp/err" ||
  bench_die "$tree: xtx-send under cachegrind failed:$(printf '\n'; tail -5 "$tmp/err")"
bench_num sent "$tmp/send.json" .sent_pkts
[ "$sent" = "$pkts" ] || bench_die "$tree: $sent of $pkts packets sent"
cg_annotate --threshold=0 --auto=no --show-percs=no "$tmp/cg.out" |
awk -v pkts="$pkts" -v tree="$tree" '
  /file:function/ { on = 1; next }
  on && /^-+$/ { if (seen) exit; next }
  on && NF == 2 && $1 ~ /^[0-9,]+$/ {
    seen = 1
    n = $1; gsub(",", "", n)
    split($2, a, ":"); f = a[1]; fn = a[2]
    c = "other"
    if (fn ~ /^(publish_classes|xtx_sched__class_stats)$/) c = "class counters"
    else if (f ~ /include\/xtx\/(pkt|payload)\.h$/ || f ~ /tools\/xtx-send\//) c = "packet build"
    else if (f ~ /include\/xtx\/mpsc|userspace\/stage\//) c = "stage"
    else if (f ~ /userspace\/sched\//)
      c = (fn ~ /enqueue|activate/ && fn !~ /deactivate/) ? "sched enqueue" : "sched dequeue"
    else if (f ~ /engine\/txring\.h$/ || f ~ /\/xdp\/xsk\.h$/) c = "TX ring"
    else if (f ~ /engine\/nulldev\.c$/) c = "device"
    else if (f ~ /engine\/pool\.[ch]$/ || fn == "recycle" || fn == "flush_recycle") c = "pool"
    else if (f ~ /engine\/producer\.c$/ || (f ~ /engine\/defs\.h$/ && fn ~ /^xtx_producer__/)) c = "producer API"
    else if (f ~ /engine\/dequeuer\.c$/) c = "dequeuer loop"
    sum[c] += n; total += n
  }
  END {
    if (!total) exit 1
    split("packet build,producer API,stage,sched enqueue,sched dequeue,TX ring,device,pool,dequeuer loop,class counters,other", order, ",")
    for (i = 1; i <= 11; i++)
      printf "{\"cost_tree\": \"%s\", \"component\": \"%s\", \"instr_per_pkt\": %.1f}\n", tree, order[i], sum[order[i]] / pkts
    printf "{\"cost_tree\": \"%s\", \"component\": \"total\", \"instr_per_pkt\": %.1f}\n", tree, total / pkts
  }' || bench_die "$tree: cg_annotate gave no counts"
