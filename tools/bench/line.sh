#!/usr/bin/env bash
# tools/bench/line.sh - issue 15's budget: packets per second and CPU ns per packet of the
# whole engine on the null device (no kernel copy), beside the user-space limit and DPDK.
#
#   limit            bench_line: pool -> TX ring -> null device -> completions -> pool, one
#                    core, nothing else (the loop the engine runs around)
#   testpmd          dpdk-testpmd --forward-mode=txonly on --vdev net_null0, one forwarding
#                    core (Debian's dpdk-dev), mbufs from the heap (--no-huge)
#   xtx-TREE-pP      xtx-send --dev null, 64-byte frames as it builds them (headers, per-flow
#                    sequence number, timestamp, checksums), dequeuer pinned to CPU 0,
#                    P producers pinned to CPU 1; TREE: default (one class, no limit),
#                    64x1024 (64 HTB leaves with fq, 1024 flows), 4096x65535; with its
#                    defaults, so with room (its 250 us target: producers count and wait)
#   xtx-TREE-pP-off  the same with --target off: no room (what room costs, in the same run)
#
# Every configuration runs K times, interleaved; median and spread (max - min) of Mpps and of
# the CPU ns per packet of each side (thread CPU clocks) go to the table. Unprivileged and
# without a network: the null device has no interface, testpmd runs in `unshare -n`.
#
# Derived columns: the dequeuer's and the producers' capacity in Mpps (1000 / their CPU ns
# per packet: what one core of each would sustain if it were the only limit), and the
# share of a 10GbE line at 64 bytes (14.88 Mpps) the run reached.
#
# Usage: line.sh [--runs K] [--duration S] [--md FILE] [--json FILE] | --render JSON [--md F]
# Environment: LINE_CONFIGS (default all), XTX_BENCH_FORCE_FAIL (tools/bench/lib.sh).
# JSON lines: {"config", "mpps", "spread", "deq_ns", "deq_spread", "prod_ns", "prod_spread",
# "runs", "duration_s", "runs_mpps", "runs_deq_ns", "runs_prod_ns"}; limit and testpmd have
# one core doing everything: their ns is in deq_ns, prod_ns is null.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tools/bench/lib.sh
BIN=build/release/bin
runs=3 dur=3 md='' json='' render=''
bench_opts "runs duration md json render" "$@"
[[ $runs =~ ^[1-9][0-9]?$ ]] || bench_die "--runs $runs: 1..99"
[[ $dur =~ ^[1-9][0-9]?$ ]] || bench_die "--duration $dur: whole seconds 1..99"

table() { # json-file
  local rows
  rows=$(jq -r 'select(.config) | [.config, .mpps, .spread, .deq_ns, .deq_spread, (.prod_ns // "-"),
                 (.prod_spread // "-")] | @tsv' "$1") || return 1
  [ -n "$(jq -r '.config // .wire // empty' "$1")" ] || return 1
  [ -z "$rows" ] ||
    echo "| configuration | Mpps | of 14.88 Mpps | dequeuer (or only core) CPU ns/pkt | its capacity, Mpps | producers' CPU ns/pkt | their capacity, Mpps |
|---|---|---|---|---|---|---|"
  [ -z "$rows" ] || while IFS=$'\t' read -r c m s d ds p ps; do
    awk -v c="$c" -v m="$m" -v s="$s" -v d="$d" -v ds="$ds" -v p="$p" -v ps="$ps" 'BEGIN {
      pc = p == "-" ? "-" : sprintf("%.1f ± %.1f", p, ps / 2)
      pk = p == "-" ? "-" : sprintf("%.1f", 1000 / p)
      printf "| %s | %.2f ± %.2f | %.0f%% | %.1f ± %.1f | %.1f | %s | %s |\n",
        c, m, s / 2, m / 14.88 * 100, d, ds / 2, 1000 / d, pc, pk }'
  done <<< "$rows"
  rows=$(jq -r 'select(.wire) | [.wire, .mpps, .busy_frac, .busy_spread, .wire_gbps,
                 .wire_spread] | @tsv' "$1") || return 1
  if [ -n "$rows" ]; then
    echo
    echo "The emulated wire (xtx-send --dev null:10gbit, one root class counting 24 bytes per"
    echo "frame; wire-SIZE at 10gbit, rate5g-SIZE at 5gbit): how busy the wire stayed between"
    echo "its first and last frame, and the rate at the wire over that time:"
    echo
    echo "| configuration | Mpps | wire busy | rate at the wire, Gbit/s | vs the class's rate |"
    echo "|---|---|---|---|---|"
    while IFS=$'\t' read -r c m b bs g gs; do
      awk -v c="$c" -v m="$m" -v b="$b" -v bs="$bs" -v g="$g" -v gs="$gs" 'BEGIN {
        r = c ~ /^rate5g/ ? 5 : 10
        printf "| %s | %.2f | %.2f%% ± %.2f | %.4f ± %.4f | %+.2f%% |\n", c, m, b * 100,
          bs * 50, g, gs / 2, (g / r - 1) * 100 }'
    done <<< "$rows"
  fi
  rows=$(jq -r 'select(.cost_tree) | [.cost_tree, .component, .instr_per_pkt] | @tsv' "$1") ||
    return 1
  [ -n "$rows" ] || return 0
  echo
  echo "Instructions per packet by component (tools/bench/line_cost.sh: cachegrind, xtx-send"
  echo "--dev null --size 60 --producers 1, every instruction charged to the file it came from):"
  echo
  jq -rs '[.[] | select(.cost_tree)] | group_by(.cost_tree) | map(.[0].cost_tree) | "| component | " + join(" | ") + " |"' "$1"
  jq -rs '[.[] | select(.cost_tree)] | group_by(.cost_tree) | "|---|" + (map("---|") | join(""))' "$1"
  jq -rs '[.[] | select(.cost_tree)] as $a | ($a | group_by(.cost_tree) | map(.[0].cost_tree)) as $t
    | ($a | map(.component) | unique) as $_ | [$a[] | .component] | reduce .[] as $c ([]; if index([$c]) then . else . + [$c] end)
    | .[] as $c | "| \($c) | " + ([$t[] as $tr | ($a[] | select(.cost_tree == $tr and .component == $c) | .instr_per_pkt | tostring)] | join(" | ")) + " |"' "$1"
}

if [ -n "$render" ]; then
  out=$(table "$render") || bench_die "cannot render $render"
  printf '%s\n' "$out"
  [ -z "$md" ] || printf '%s\n' "$out" > "$md"
  exit 0
fi

for b in xtx-send bench_line; do
  [ -x $BIN/$b ] || bench_die "missing $BIN/$b: run make"
done
command -v dpdk-testpmd >/dev/null || bench_die "dpdk-testpmd missing: make deps (Debian's dpdk-dev)"
[ "$(nproc)" -ge 2 ] || bench_die "needs 2 CPUs (dequeuer and producers apart)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The trees: 64 leaves x 1024 flows and 4096 x 65535 (every UDP port but 0: --dst-port 1),
# HTB + fq, fast enough not to shape.
awk 'BEGIN { print "class 1: rate 100gbit"
  for (i = 1; i <= 64; i++) printf "class 1:%x parent 1: rate 1gbit ceil 100gbit fq flows 32\n", i }' \
  > "$tmp/64x1024.conf"
awk 'BEGIN { print "class 1: rate 100gbit"
  for (i = 1; i <= 4096; i++) printf "class 1:%x parent 1: rate 20mbit ceil 100gbit fq flows 32 limit 100\n", i }' \
  > "$tmp/4096x65535.conf"

declare -A mpps deq prod
measure() { # config
  local c=$1 rc m d p
  case $c in
    limit)
      # 20 M packets per second of --duration: a few seconds at this loop's rate.
      $BIN/bench_line --pkts $((dur * 50000000)) --cpu 1 > "$tmp/out.json" 2> "$tmp/err" ||
        { rc=$?; bench_die "$c: bench_line failed (exit $rc):$(printf '\n'; cat "$tmp/err")"; }
      bench_num m "$tmp/out.json" .mpps
      bench_num d "$tmp/out.json" .cpu_ns_per_pkt
      p=- ;;
    testpmd)
      # One forwarding core (lcore 1; lcore 0 is the main one), net_null, txonly 64-byte
      # frames; its rate every second, the first one dropped (start-up). Its EAL start
      # (1 GiB of heap memory without huge pages) takes 3-7 s here: 12 s of margin.
      unshare -n timeout -s INT $((dur + 12)) dpdk-testpmd -l 0,1 --no-huge -m 1024 --no-pci \
        --vdev net_null0 --log-level=lib.eal:error -- --forward-mode=txonly \
        --total-num-mbufs=16384 --auto-start --stats-period 1 > "$tmp/out" 2> "$tmp/err"
      rc=$?
      [ $rc = 0 ] || [ $rc = 124 ] ||
        bench_die "$c: dpdk-testpmd failed (exit $rc):$(printf '\n'; tail -5 "$tmp/err" "$tmp/out")"
      m=$(awk '/Tx-pps:/ { v[++n] = $2 } END { if (n < 3) exit 1
        s = 0; for (i = 2; i <= n; i++) s += v[i]; printf "%.6f", s / (n - 1) / 1e6 }' "$tmp/out") ||
        bench_die "$c: fewer than 3 Tx-pps lines from dpdk-testpmd:$(printf '\n'; tail -5 "$tmp/out")"
      d=$(awk -v m="$m" 'BEGIN { printf "%.3f", 1000 / m }')	# one core busy all the time
      p=- ;;
    xtx-*)
      local tree=${c#xtx-} np cls=() flows=64 tgt=()
      [[ $tree == *-off ]] && tree=${tree%-off} tgt=(--target off)
      np=${tree##*-p} tree=${tree%-p*}
      case $tree in
        default) ;;
        64x1024) cls=(--classes "$tmp/64x1024.conf") flows=1024 ;;
        4096x65535) cls=(--classes "$tmp/4096x65535.conf" --frames 524288 --dst-port 1) flows=65535 ;;
        *) bench_die "unknown tree in '$c'" ;;
      esac
      local sender=($BIN/xtx-send --dev null --dst-ip 198.18.0.2 --size 60 --flows $flows
                    --producers "$np" --cpus 0 --producer-cpus 1 "${cls[@]}" "${tgt[@]}"
                    --duration "$dur" --drop --interval 0 --json)
      bench_forced sender && sender+=(--xtx-bench-forced-failure)
      unshare -n timeout $((dur + 60)) "${sender[@]}" > "$tmp/out.json" 2> "$tmp/err" ||
        { rc=$?; bench_die "$c: xtx-send failed (exit $rc):$(printf '\n'; cat "$tmp/err")"; }
      local u
      bench_num u "$tmp/out.json" .unaccounted_pkts
      [ "$u" = 0 ] || bench_die "$c: $u packets unaccounted"
      bench_num m "$tmp/out.json" '.pps / 1e6'
      bench_num d "$tmp/out.json" .dequeuer_cpu_ns_per_pkt
      bench_num p "$tmp/out.json" .producer_cpu_ns_per_pkt ;;
    wire-*|rate5g-*)
      # The emulated 10GbE wire: a root class at the wire's rate (wire-SIZE: is the wire
      # kept busy?) or at half of it (rate5g-SIZE: is the rate exact at the wire?), both
      # counting the wire's 24 bytes per frame (overhead 24).
      local size=${c#*-} conf=$tmp/wire10g.conf
      [[ $c == rate5g-* ]] && conf=$tmp/wire5g.conf
      local sender=($BIN/xtx-send --dev null:10gbit --dst-ip 198.18.0.2 --size "$size"
                    --flows 64 --producers 1 --cpus 0 --producer-cpus 1 --classes "$conf"
                    --duration "$dur" --drop --interval 0 --json)
      unshare -n timeout $((dur + 60)) "${sender[@]}" > "$tmp/out.json" 2> "$tmp/err" ||
        { rc=$?; bench_die "$c: xtx-send failed (exit $rc):$(printf '\n'; cat "$tmp/err")"; }
      local b g
      bench_num m "$tmp/out.json" '.pps / 1e6'
      bench_num b "$tmp/out.json" .null.busy_frac
      # bits per ns: Gbit/s
      bench_num g "$tmp/out.json" '.null.wire_bytes * 8 / (.null.busy_ns + .null.gap_ns)'
      d=$b p=$g ;;
    *) bench_die "unknown configuration '$c' (LINE_CONFIGS)" ;;
  esac
  mpps[$c]+="$m " deq[$c]+="$d " prod[$c]+="$p "
}
printf 'class 1: rate 10gbit\noverhead 24\n' > "$tmp/wire10g.conf"
printf 'class 1: rate 5gbit\noverhead 24\n' > "$tmp/wire5g.conf"

list=${LINE_CONFIGS:-limit testpmd xtx-default-p1 xtx-default-p1-off xtx-default-p2
  xtx-64x1024-p1 xtx-64x1024-p1-off xtx-64x1024-p2 xtx-4096x65535-p1 xtx-4096x65535-p1-off
  xtx-4096x65535-p2 wire-1514 wire-60 rate5g-1514}
read -r -a configs <<< "${list//$'\n'/ }"
[ ${#configs[@]} -gt 0 ] || bench_die "LINE_CONFIGS is empty"
for ((r = 1; r <= runs; r++)); do
  for c in "${configs[@]}"; do
    printf '\rline: run %d/%d %-24s' $r "$runs" "$c" >&2
    measure "$c"
  done
done
printf '\r%60s\r' '' >&2

: > "$tmp/json"
for c in "${configs[@]}"; do
  read -r -a mv <<< "${mpps[$c]}"
  read -r -a dv <<< "${deq[$c]}"
  read -r -a pv <<< "${prod[$c]}"
  [ ${#mv[@]} = "$runs" ] || bench_die "$c: ${#mv[@]} values for $runs runs"
  bench_stat m s "${mv[@]}"
  bench_stat dm ds "${dv[@]}"
  pj=null psj=null plist=null
  if [ "${pv[0]}" != - ]; then
    bench_stat pm ps "${pv[@]}"
    pj=$pm psj=$ps plist="[$(IFS=,; echo "${pv[*]}")]"
  fi
  if [[ $c == wire-* || $c == rate5g-* ]]; then
    printf '{"wire": "%s", "mpps": %s, "busy_frac": %s, "busy_spread": %s, "wire_gbps": %s, "wire_spread": %s, "runs": %d, "duration_s": %s, "runs_busy_frac": [%s], "runs_wire_gbps": [%s]}\n' \
      "$c" "$m" "$dm" "$ds" "$pm" "$ps" "$runs" "$dur" "$(IFS=,; echo "${dv[*]}")" \
      "$(IFS=,; echo "${pv[*]}")" >> "$tmp/json"
    continue
  fi
  printf '{"config": "%s", "mpps": %s, "spread": %s, "deq_ns": %s, "deq_spread": %s, "prod_ns": %s, "prod_spread": %s, "runs": %d, "duration_s": %s, "runs_mpps": [%s], "runs_deq_ns": [%s], "runs_prod_ns": %s}\n' \
    "$c" "$m" "$s" "$dm" "$ds" "$pj" "$psj" "$runs" "$dur" "$(IFS=,; echo "${mv[*]}")" \
    "$(IFS=,; echo "${dv[*]}")" "$plist" >> "$tmp/json"
done
# Where the instructions go, once per tree (instruction counts do not need repeats).
printf 'line: instruction counts (cachegrind)\n' >&2
tools/bench/line_cost.sh 2000000 default -- --flows 64 >> "$tmp/json" || exit 1
tools/bench/line_cost.sh 2000000 64x1024 "$tmp/64x1024.conf" -- --flows 1024 >> "$tmp/json" ||
  exit 1
tools/bench/line_cost.sh 2000000 4096x65535 "$tmp/4096x65535.conf" -- --flows 65535 \
  --frames 524288 --dst-port 1 >> "$tmp/json" || exit 1
jq -e . "$tmp/json" > /dev/null || bench_die "the JSON lines do not parse"
table "$tmp/json" > "$tmp/table" || bench_die "cannot render the table"
cat "$tmp/table"
[ -z "$md" ] || cp "$tmp/table" "$md" || bench_die "cannot write $md"
[ -z "$json" ] || cp "$tmp/json" "$json" || bench_die "cannot write $json"
exit 0
