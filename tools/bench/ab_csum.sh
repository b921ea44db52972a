#!/usr/bin/env bash
# ab_csum.sh - what --tx-csum saves the producers: xtx-send on the null device (no
# network: in a network namespace of its own, unshare -n), one dequeuer on CPU 0 and one
# producer on CPU 1, ROUNDS rounds of --tx-csum off then on, DURATION s each, for each
# frame size; one line per run on stdout ("SIZE MODE PPS PRODUCER_NS DEQUEUER_NS"), then
# the median and spread (max - min) of each.
#   tools/bench/ab_csum.sh [ROUNDS [DURATION [SIZE...]]]     (defaults: 5 2 64 1514)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5} dur=${2:-2}
shift $(($# > 2 ? 2 : $#))
sizes=("${@:-64}")
[ $# -gt 0 ] || sizes=(64 1514)
bin=build/release/bin/xtx-send
[ -x $bin ] || { echo "$0: $bin: run make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The null device sends nowhere, but the rule holds: never in the host's namespace.
[ "$(unshare -n readlink /proc/self/ns/net)" != "$(readlink /proc/1/ns/net)" ] ||
  { echo "$0: unshare -n gave the host's namespace" >&2; exit 1; }
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r), $(nproc) CPUs: size mode pps producer_cpu_ns_per_pkt dequeuer_cpu_ns_per_pkt"
echo "# xtx-send --dev null --dst-ip 198.18.0.2 --cpus 0 --producers 1 --producer-cpus 1 --size SIZE --duration $dur --tx-csum MODE"
for r in $(seq "$rounds"); do
  for s in "${sizes[@]}"; do
    for m in off on; do
      unshare -n timeout $((dur + 30)) $bin --dev null --dst-ip 198.18.0.2 --cpus 0 \
        --producers 1 --producer-cpus 1 --size "$s" --duration "$dur" --interval 0 \
        --no-doctor --json --tx-csum $m > "$tmp/o.json" 2> "$tmp/e" ||
        { cat "$tmp/e" >&2; echo "$0: xtx-send failed" >&2; exit 1; }
      jq -r --arg s "$s" '"\($s) \(.tx_csum) \(.pps) \(.producer_cpu_ns_per_pkt) \(.dequeuer_cpu_ns_per_pkt)"' \
        "$tmp/o.json" | tee -a "$tmp/all"
    done
  done
done
echo "# median (spread) over $rounds rounds"
for s in "${sizes[@]}"; do
  for m in off on; do
    awk -v s="$s" -v m="$m" '$1 == s && $2 == m { print $3, $4, $5 }' "$tmp/all" | sort -g -k2 |
      awk -v s="$s" -v m="$m" '{ p[NR] = $1; c[NR] = $2; d[NR] = $3 }
        function med(a, n,   t, i, j) { for (i = 1; i <= n; i++) t[i] = a[i]; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
          return n % 2 ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2 }
        function spr(a, n,   lo, hi, i) { lo = hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] } return hi - lo }
        END { printf "%s %s: %.2f Mpps (%.2f), producer %.2f ns/pkt (%.2f), dequeuer %.2f ns/pkt (%.2f)\n",
              s, m, med(p, NR) / 1e6, spr(p, NR) / 1e6, med(c, NR), spr(c, NR), med(d, NR), spr(d, NR) }'
  done
done
