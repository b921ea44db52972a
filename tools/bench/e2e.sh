#!/usr/bin/env bash
# tools/bench/e2e.sh - end-to-end packets per second on the veth testbed, counted at the
# receiver by xtx-sink (XDP), 64-byte frames, every configuration run K times interleaved:
#
#   plain-1q        tools/xsk-plain: one AF_XDP socket, one thread, no scheduling
#   plain-2q        tools/xsk-plain: two sockets on two queues, a thread each
#   xtx-1q-pN       xtx-send, 1 queue, one class with no limit, N producers (2, 4, 8)
#   xtx-2q-p4       xtx-send, 2 queues, one class, 4 producers
#   xtx-fq-1q-p4    xtx-send, 1 queue, two classes with fq leaves, 1024 flows, 4 producers
#   xtx-fq-2q-p4    the same on 2 queues: device-wide classes (xtx-send's default)
#   *-qc            the same with --queue-classes: per-queue classes (mq + HTB), no
#                   shared state (xtx-2q-p4-qc, xtx-fq-2q-p4-qc)
#   *-nt            the same with --target off: no room, producers run ahead to the
#                   leaf's limit (xtx-send's behaviour before its 500 us default; not in
#                   the default set, for an A/B: E2E_CONFIGS="xtx-1q-p4 xtx-1q-p4-nt")
#   kernel-htb-tN   tools/udp-send, N threads on UDP sockets through a one-class tc htb
#   xtx-idle        xtx-send offering 100 pps: the engine's CPU use when nearly idle
#
# Any failed step (testbed, tc, sink, sender, a missing figure) stops the benchmark with
# its message and exit 1: no median is taken over fewer runs than asked for.
# The table is rendered from the JSON lines, so --render FILE redraws it from a kept run.
#
# Usage: e2e.sh [--runs K] [--duration S] [--md FILE] [--json FILE]
#        e2e.sh --render JSON [--md FILE]
# Environment: E2E_CONFIGS (the configurations, default all), E2E_XTX_SEND (the
# xtx-send to run, default build/release/bin/xtx-send: an A/B, tools/bench/ab_e2e.sh),
# XTX_BENCH_FORCE_FAIL
# (tools/bench/lib.sh). JSON lines: {"config", "mpps", "spread", "cpu_ns_per_pkt", "runs",
# "duration_s", "pps", "runs_pps", "runs_cpu_ns_per_pkt"} (the last three since
# 2026-12-01; mpps and spread in Mpps, the per-run lists in pps and ns).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tools/common/testbed.sh
. tools/bench/lib.sh
BIN=build/release/bin
runs=3 dur=3 md='' json='' render=''
bench_opts "runs duration md json render" "$@"

# The table from JSON lines (FILE), on stdout; ratios from the medians in the file.
table() { # json-file
  local c m s u p rows
  declare -A M S U P
  # Lines before 2026-12-01 have no pps: then it is mpps (six decimals), "about" so many.
  rows=$(jq -r '[.config, .mpps, .spread, .cpu_ns_per_pkt, (.pps // "~\(.mpps * 1e6)")] | @tsv' "$1") ||
    return 1
  [ -n "$rows" ] || return 1
  local order=()
  while IFS=$'\t' read -r c m s u p; do
    order+=("$c") M[$c]=$m S[$c]=$s U[$c]=$u P[$c]=$p
  done <<< "$rows"
  ratio() { # a b: a / b as 1.23x, or - without b
    [ -n "$2" ] || { echo -; return; }
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'
  }
  plain_of() { case $1 in *-2q-*) echo plain-2q ;; plain-*|kernel-*|xtx-idle) ;; *) echo plain-1q ;; esac; }
  kern_of() { case $1 in xtx-1q-p2) echo kernel-htb-t2 ;;
              xtx-1q-p4|xtx-2q-p4*|xtx-fq-[12]q-p4*) echo kernel-htb-t4 ;;
              xtx-1q-p8) echo kernel-htb-t8 ;; esac; }
  echo "| configuration | Mpps at the sink | vs plain AF_XDP | vs kernel UDP+HTB (same threads) | sender CPU ns/pkt | CPU vs plain |"
  echo "|---|---|---|---|---|---|"
  for c in "${order[@]}"; do
    local pl k
    pl=$(plain_of "$c") k=$(kern_of "$c")
    if [ "$c" = xtx-idle ]; then
      # A rate of 100 pps: Mpps with six decimals, and pps beside it.
      local pps=${P[$c]#\~} pf='%.1f pps'
      [ "$pps" = "${P[$c]}" ] || pf='about %.0f pps'
      printf "| %s | %.6f ($pf) | - | - | %.0f (%.2f%% of a core) | - |\n" "$c" "${M[$c]}" \
        "$pps" "${U[$c]}" "$(awk -v p="$pps" -v u="${U[$c]}" 'BEGIN { print p * u / 1e7 }')"
      continue
    fi
    printf '| %s | %.3f ± %.3f | %s | %s | %.0f | %s |\n' "$c" "${M[$c]}" \
      "$(awk -v v="${S[$c]}" 'BEGIN { print v / 2 }')" \
      "$(ratio "${M[$c]}" "${pl:+${M[$pl]:-}}")" "$(ratio "${M[$c]}" "${k:+${M[$k]:-}}")" \
      "${U[$c]}" "$(ratio "${U[$c]}" "${pl:+${U[$pl]:-}}")"
  done
}

if [ -n "$render" ]; then
  out=$(table "$render") || { echo "e2e.sh: cannot render $render" >&2; exit 1; }
  printf '%s\n' "$out"
  [ -z "$md" ] || printf '%s\n' "$out" > "$md"
  exit 0
fi

[ "$(id -u)" = 0 ] || { echo "e2e.sh: needs root" >&2; exit 1; }
for b in xsk-plain xtx-send udp-send xtx-sink; do
  [ -x $BIN/$b ] || bench_die "missing $BIN/$b: run make VARIANT=release lib tools bpf"
done
tmp=$(mktemp -d)
SINK=
cleanup() {
  [ -n "$SINK" ] && kill -INT "$SINK" 2>/dev/null && wait "$SINK" 2>/dev/null
  tb_down
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tb_up e2e --queues 2 >/dev/null
cat > "$tmp/fq.conf" <<'EOF'
class 1:   rate 40gbit
class 1:10 parent 1: rate 20gbit ceil 40gbit prio 0 fq flows 1024
class 1:20 parent 1: rate 20gbit ceil 40gbit prio 0 fq flows 1024
EOF

# One measurement of configuration $1: appends its pps and CPU ns/pkt to pps[] and cpu[].
measure() { # config
  local c=$1 sender=() tc=0 rc
  case $c in
    plain-1q|plain-2q)
      sender=($BIN/xsk-plain --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC"
              --queues "${c:6:1}" --flows 64 --duration "$dur" --json) ;;
    xtx-*)
      local q=1 p=4 flows=64 cls=() rate=() qc=()
      [[ $c =~ -([0-9])q ]] && q=${BASH_REMATCH[1]}
      [[ $c =~ -p([0-9]+) ]] && p=${BASH_REMATCH[1]}
      [[ $c == xtx-fq-* ]] && { flows=1024; cls=(--classes "$tmp/fq.conf"); }
      [[ $c == xtx-idle ]] && { p=1; rate=(--rate 100pps); }
      [[ $c == *-qc ]] && qc=(--queue-classes)
      [[ $c == *-nt ]] && qc+=(--target off)
      sender=("${E2E_XTX_SEND:-$BIN/xtx-send}" --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC"
              --queues $q --producers $p --flows $flows "${cls[@]}" "${rate[@]}" "${qc[@]}"
              --duration "$dur" --drop --interval 0 --json) ;;
    kernel-htb-t*)
      tc=1
      sender=($BIN/udp-send --dst-ip "$RX_IP" --flows 64 --threads "${c#kernel-htb-t}"
              --sndbuf 8388608 --duration "$dur" --quiet --json) ;;
    *) bench_die "unknown configuration '$c' (E2E_CONFIGS)" ;;
  esac
  bench_forced sender && sender+=(--xtx-bench-forced-failure)
  if [ $tc = 1 ]; then
    bench_tc "$TX_NS" qdisc replace dev "$TX_DEV" root handle 1: htb default 1
    bench_tc "$TX_NS" class add dev "$TX_DEV" parent 1: classid 1:1 htb rate 40gbit
  fi
  local sink_args=(--netns "$RX_NS" --dev "$RX_DEV" --ports 9000-10023 --interval 0 --json
                   --ready-file "$tmp/ready")
  bench_forced sink && sink_args+=(--xtx-bench-forced-failure)
  rm -f "$tmp/ready"
  tb_private "$RX_NS"
  $BIN/xtx-sink "${sink_args[@]}" > "$tmp/sink.json" 2> "$tmp/sink.err" &
  SINK=$!
  bench_ready "$tmp/ready" $SINK "$c: xtx-sink" "$tmp/sink.err"
  tb_run "$TX_NS" timeout $((dur + 60)) "${sender[@]}" > "$tmp/send.json" 2> "$tmp/send.err" ||
    { rc=$?; bench_die "$c: ${sender[0]##*/} failed (exit $rc):$(printf '\n'; cat "$tmp/send.err")"; }
  sleep 0.3
  kill -INT $SINK
  wait $SINK || { rc=$?; bench_die "$c: xtx-sink failed (exit $rc):$(printf '\n'; cat "$tmp/sink.err")"; }
  SINK=
  [ $tc = 1 ] && bench_tc "$TX_NS" qdisc del dev "$TX_DEV" root
  local d u k
  bench_num d "$tmp/send.json" .duration_s
  bench_num u "$tmp/send.json" .cpu_ns_per_pkt
  bench_num k "$tmp/sink.json" .pkts
  bench_pkts_ok "$k" "$c: counted at the sink"
  pps[$c]+="$(awk -v k="$k" -v d="$d" 'BEGIN { printf "%.1f", k / d }') "
  cpu[$c]+="$u "
}

list=${E2E_CONFIGS:-plain-1q plain-2q xtx-1q-p2 xtx-1q-p4 xtx-1q-p8 xtx-2q-p4 xtx-2q-p4-qc
  xtx-fq-1q-p4 xtx-fq-2q-p4 xtx-fq-2q-p4-qc kernel-htb-t2 kernel-htb-t4 kernel-htb-t8 xtx-idle}
read -r -a configs <<< "${list//$'\n'/ }"	# one line: read stops at a newline
[ ${#configs[@]} -gt 0 ] || bench_die "E2E_CONFIGS is empty"
declare -A pps cpu
for ((r = 1; r <= runs; r++)); do
  for c in "${configs[@]}"; do
    printf '\re2e: run %d/%d %-16s' $r "$runs" "$c" >&2
    measure "$c"
  done
done
printf '\r%60s\r' '' >&2

# JSON lines first (every run's value kept), then the table drawn from them.
: > "$tmp/json"
for c in "${configs[@]}"; do
  read -r -a pv <<< "${pps[$c]:-}"
  read -r -a cv <<< "${cpu[$c]:-}"
  [ ${#pv[@]} = "$runs" ] && [ ${#cv[@]} = "$runs" ] ||
    bench_die "$c: ${#pv[@]} values for $runs runs"
  bench_stat m s "${pv[@]}"
  bench_stat cm _ "${cv[@]}"
  printf '{"config": "%s", "mpps": %.6f, "spread": %.6f, "cpu_ns_per_pkt": %.1f, "runs": %d, "duration_s": %s, "pps": %.1f, "runs_pps": [%s], "runs_cpu_ns_per_pkt": [%s]}\n' \
    "$c" "$(awk -v v="$m" 'BEGIN { print v / 1e6 }')" "$(awk -v v="$s" 'BEGIN { print v / 1e6 }')" \
    "$cm" "$runs" "$dur" "$m" "$(IFS=,; echo "${pv[*]}")" "$(IFS=,; echo "${cv[*]}")" >> "$tmp/json"
done
table "$tmp/json" > "$tmp/table" || bench_die "cannot render the table"
cat "$tmp/table"
[ -z "$md" ] || cp "$tmp/table" "$md" || bench_die "cannot write $md"
[ -z "$json" ] || cp "$tmp/json" "$json" || bench_die "cannot write $json"
exit 0
